"""The Markdown comment within a character budget (GitHub refuses a body over 65,536).

A plan that fits renders whole (the goldens in test_render.py); one that does not keeps the
heading, the applyable line, every error, warning and hazard and the summary, then as many
topic sections as fit, and counts the rest. These tests read the output the way a reviewer
would: the rows and counts they look for are spelled out here, not taken from the renderer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.planning.changes import Action, Hazard
from reconciler.planning.plan import Plan
from reconciler.render.markdown import DEFAULT_MAX_CHARS, render_failure, render_markdown
from tests.planning import samples
from tests.property_examples import examples

MORE_CHANGES = re.compile(
    r"\*… and ([\d,]+) more change\(s\) \(([\d,]+) to create, ([\d,]+) to update, ([\d,]+) to "
    r"delete\) not shown: the full plan is in the saved plan .*`reconciler plan --format text`"
)
MORE_DIAGNOSTICS = re.compile(
    r"\| … \| \| \| \| \| ([\d,]+) more diagnostic\(s\) not shown \(([\d,]+) error\(s\), "
    r"([\d,]+) warning\(s\)\)"
)


def number(text: str) -> int:
    return int(text.replace(",", ""))


def status(hazard: Hazard) -> str:
    if hazard.acknowledged:
        return "acknowledged"
    return "needs acknowledgment" if hazard.severity is Severity.ERROR else "warning"


def diagnostic_row_start(d: Diagnostic) -> str:
    return f"| {d.severity.value} | {d.code} | `{d.rule}` | `{d.topic}` | `{d.location}` |"


LARGE = samples.large()


def test_a_2000_topic_plan_fits_and_keeps_every_error_and_hazard() -> None:
    plan = LARGE
    whole = render_markdown(plan, max_chars=10**9)
    comment = render_markdown(plan)
    assert len(whole) > 5 * DEFAULT_MAX_CHARS  # the budget is what makes it fit
    assert len(comment) <= DEFAULT_MAX_CHARS

    assert comment.startswith("## reconciler plan for `prod`\n")
    s = plan.summary
    assert f"| {s.create} | {s.update} | {s.delete} | {s.errors} | {s.warnings} |" in comment
    # The refusal, once and whole, names what to do: the first errors and approval items
    assert comment.count("Not applyable") == 1
    refused = (
        "**Not applyable**: fix the 9 errors (partition_decrease on bulk.topic-00003; "
        "delete_protected on bulk.topic-00004; "
    )
    assert refused in comment
    assert (
        "approve the 26 hazards under each topic's `acknowledge:` (bulk.topic-00091: "
        "`- {retention_decrease: {key: retention.ms, from: 604800000, to: 86400000}}`; "
        "bulk.topic-00242: `- {key_reorder: {from: 3, to: 6}}`; "
    ) in comment
    assert (
        "; and 21 more, each named by its hazard in the plan) or drop those changes, then plan "
        "again." in comment
    )
    assert (s.errors, s.warnings, len(plan.unacknowledged_hazards)) == (9, 40, 26)
    collapsed = "".join(re.findall(r"<details><summary>.*?</details>", comment))
    for d in plan.diagnostics:  # its own row, or named in its shape's grouped row
        assert diagnostic_row_start(d) in comment or f"`{d.topic}`" in collapsed, d
    hazards = [(c.topic, h) for c in plan.changes for h in c.hazards]
    assert len(hazards) > 200
    for topic, hazard in hazards:
        assert f"| `{topic}` | `{hazard.code}` | {status(hazard)} |" in comment
    # Hazards and errors late in the execution order are there too
    last = plan.changes[-1]
    assert last.action is Action.DELETE and last.hazards[0].blocks_apply
    assert f"| `{last.topic}` | `delete` | needs acknowledgment |" in comment
    assert "`bulk.topic-01999`" in comment  # the last topic: a protected tombstone (P106)

    # The sections shown are the first ones in execution order; the rest are counted exactly
    shown = comment.count("<details>\n<summary>")
    assert 0 < shown < len(plan.changes)
    for topic_change in plan.changes[:shown]:
        assert f"<code>{topic_change.topic}</code></summary>" in comment
    assert f"<code>{plan.changes[shown].topic}</code></summary>" not in comment
    [more] = MORE_CHANGES.findall(comment)
    rest = [c.action for c in plan.changes[shown:]]
    assert tuple(map(number, more)) == (
        len(rest),
        rest.count(Action.CREATE),
        rest.count(Action.UPDATE),
        rest.count(Action.DELETE),
    )
    assert comment.endswith(
        "**Plan: 400 to create, 1524 to update, 67 to delete. 9 errors, 40 warnings.**"
    )


def test_a_plan_that_fits_is_rendered_whole() -> None:
    plan = samples.kitchen_sink()
    whole = render_markdown(plan)
    assert render_markdown(plan, max_chars=len(whole)) == whole
    fitted = render_markdown(plan, max_chars=len(whole) - 1)
    assert fitted != whole and len(fitted) <= len(whole) - 1
    assert "### Hazards" in fitted and "### Hazards" not in whole


PLANS: dict[str, Callable[[], Plan]] = {
    "large": lambda: LARGE,
    "kitchen_sink": samples.kitchen_sink,
    "many_creates": lambda: samples.many_creates(60),
}


@settings(max_examples=examples(60), deadline=None)
@given(name=st.sampled_from(sorted(PLANS)), max_chars=st.integers(2000, 150_000))
def test_the_comment_never_exceeds_max_chars(name: str, max_chars: int) -> None:
    plan = PLANS[name]()
    comment = render_markdown(plan, max_chars=max_chars)
    assert len(comment) <= max_chars
    assert comment.startswith(f"## reconciler plan for `{plan.cluster}`")
    summary = f"**Plan: {plan.summary.create} to create, "
    assert summary in comment  # the summary line is never the one left out
    shown = comment.count("<details>\n<summary>") + comment.count("\n#### ")
    more = MORE_CHANGES.findall(comment)
    assert shown + sum(number(m[0]) for m in more) == len(plan.changes)


@pytest.mark.slow  # about 1 CPU-s a case (`make check` leaves it out)
@pytest.mark.parametrize("max_chars", [2000, 7919, 60_000])
def test_thousands_of_diagnostics_are_cut_errors_first(max_chars: int) -> None:
    def diagnostic(i: int, severity: Severity) -> Diagnostic:
        code = "P101" if severity is Severity.ERROR else "P116"
        where = Location("topics/bulk.yaml", i + 1, 5)
        return Diagnostic(severity, code, "some_rule", f"problem {i}", where, f"t.{i}")

    # Warnings first in the plan's own order (by place): the cut must still prefer errors
    warnings = [diagnostic(i, Severity.WARNING) for i in range(3000)]
    errors = [diagnostic(i, Severity.ERROR) for i in range(3000, 13000)]
    plan = Plan("prod", samples.FINGERPRINT, (), tuple(warnings + errors))
    comment = render_markdown(plan, max_chars=max_chars)
    assert len(comment) <= max_chars
    shown_errors = comment.count("| error | P101 |")
    shown_warnings = comment.count("| warning | P116 |")
    assert shown_errors > 0 and shown_warnings == 0
    [(missing, missing_errors, missing_warnings)] = MORE_DIAGNOSTICS.findall(comment)
    assert number(missing_errors) == 10_000 - shown_errors
    assert number(missing_warnings) == 3000
    assert number(missing) == 13_000 - shown_errors
    summary = "**Plan: 0 to create, 0 to update, 0 to delete. 10000 errors, 3000 warnings.**"
    assert comment.endswith(summary)


def test_many_unmanaged_topics_are_folded_and_counted() -> None:
    names = tuple(f"legacy.topic-{i:05d}" for i in range(5000))
    plan = Plan("prod", samples.FINGERPRINT, (), (), names)
    whole = render_markdown(plan, max_chars=10**9)
    assert "<summary>5,000 topics on the cluster, in no spec</summary>" in whole
    assert whole.count("- `legacy.topic-") == 5000
    comment = render_markdown(plan, max_chars=20_000)
    assert len(comment) <= 20_000
    shown = comment.count("- `legacy.topic-")
    assert 0 < shown < 5000
    assert f"- … and {5000 - shown:,} more: `reconciler plan --format text` lists them all" in (
        comment
    )
    assert "<details>" in comment and "</details>" in comment


@pytest.mark.parametrize("max_chars", [2000, 60_000])
def test_a_failure_comment_keeps_errors_first_within_the_budget(max_chars: int) -> None:
    warning = Diagnostic(
        Severity.WARNING, "R013", "ignored_file", "a .yml", Location("a.yml", 1, 1)
    )
    where = [Location("t.yaml", i, 5) for i in range(1, 5001)]
    errors = [
        Diagnostic(Severity.ERROR, "R301", "invalid_partitions", f"bad {loc.line}", loc)
        for loc in where
    ]
    found = [warning, *errors]
    comment = render_failure("plan", "prod", "5000 error(s) in the spec files", found, max_chars)
    assert len(comment) <= max_chars
    assert comment.startswith(
        "## reconciler plan for `prod`\n\n**`reconciler plan` failed**: 5000 error(s) in the "
        "spec files\n"
    )
    assert "| error | R301 | `invalid_partitions` |  | `t.yaml:1:5` | bad 1 |" in comment
    assert "| warning |" not in comment
    [(_, errors, warnings)] = MORE_DIAGNOSTICS.findall(comment)
    assert (number(errors), number(warnings)) == (5000 - comment.count("| error |"), 1)


def test_a_failure_without_diagnostics_says_what_failed() -> None:
    comment = render_failure(
        "drift", "prod", "could not describe cluster 'prod' at kafka-1:9092: <timed out>", ()
    )
    assert comment == (
        "## reconciler drift for `prod`\n\n**`reconciler drift` failed**: could not describe "
        "cluster 'prod' at kafka-1:9092: &lt;timed out&gt;\n\nNothing was changed on the cluster."
    )


def _stale(topic: str, line: int) -> Diagnostic:
    return Diagnostic(
        Severity.WARNING, "P133", "acknowledge_stale",
        f"{topic}: `{{retention_decrease: {{from: 1, to: 2}}}}` approves nothing the plan does; "
        f"remove it from {topic}'s acknowledge:",
        Location(f"topics/{topic}.yaml", line, 5), topic,
    )  # fmt: skip


def test_repeated_diagnostics_of_one_shape_are_one_row_with_every_topic_collapsed() -> None:
    names = [f"team.topic-{i:04d}" for i in range(479)]
    other = Diagnostic(Severity.ERROR, "P101", "partition_decrease", "t.x: 6 -> 3", None, "t.x")
    plan = Plan("prod", "sha256:x", (), (other, *(_stale(n, 3) for n in names)))
    comment = render_markdown(plan)
    rows = [line for line in comment.splitlines() if line.startswith("| warning | P133 ")]
    assert len(rows) == 1, rows  # not 479
    [row] = rows
    assert "479 topics: `team.topic-0000`, `team.topic-0001`, `team.topic-0002` and 476 more" in row
    assert "<details><summary>all 479</summary>" in row
    # The full list, collapsed: code spans, Markdown as the cell around them is
    assert all(f"`{n}`" in row.split("<summary>all 479</summary>")[1] for n in names)
    assert "TOPIC: `{retention_decrease:" in row and "remove it from TOPIC's" in row
    assert "team.topic-0000.yaml:3:5` (first of 479)" in row
    assert "| error | P101 | `partition_decrease` | `t.x` |" in comment  # another shape: its own
    assert len(comment) < 65_536


def test_grouped_rows_stay_within_the_budget_and_count_what_is_left_out() -> None:
    # 30 shapes (a message each) of 400 long-named topics: far over any comment's size
    diagnostics = tuple(
        Diagnostic(
            Severity.WARNING,
            "P133",
            "acknowledge_stale",
            f"{t}: item {shape} is stale",
            Location("topics/a.yaml", shape, 1),
            t,
        )
        for shape in range(30)
        for t in (f"{'x' * 200}.{i:04d}" for i in range(400))
    )
    comment = render_markdown(Plan("prod", "sha256:x", (), diagnostics))
    assert len(comment) <= DEFAULT_MAX_CHARS
    rows = [line for line in comment.splitlines() if line.startswith("| warning | P133 ")]
    assert 0 < len(rows) < 30
    left = 30 - len(rows)
    assert (
        f"{left * 400:,} more diagnostic(s) not shown (0 error(s), {left * 400:,} warning(s))"
        in (comment)
    )
    assert "more: `reconciler plan --format text` lists them all</details>" in rows[0]


def test_a_topic_name_inside_a_longer_name_is_not_taken_for_the_topic() -> None:
    short = Diagnostic(Severity.WARNING, "P133", "acknowledge_stale", "a: a.b is stale", None, "a")
    other = Diagnostic(Severity.WARNING, "P133", "acknowledge_stale", "c: a.b is stale", None, "c")
    row = [line for line in render_markdown(Plan("p", "s", (), (short, other))).splitlines()
           if line.startswith("| warning")]  # fmt: skip
    assert len(row) == 1 and "TOPIC: a.b is stale" in row[0]
