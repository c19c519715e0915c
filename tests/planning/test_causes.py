"""`plan --changed-since REF` marks each change with its cause instead of leaving drift out.

mark_causes is pure: the topics the spec repository changed since REF are given (git decides
them, tests/plan/test_changed_since.py), every other change is drift. The marks travel through
the JSON plan and show in every format; apply never reads them.
"""

from __future__ import annotations

import dataclasses
import re

from reconciler.planning.json_plan import from_json, to_json
from reconciler.planning.plan import Plan, mark_causes, scope
from reconciler.planning.targeting import scope_targets
from reconciler.render.json import render_json
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from tests.planning import samples
from tests.planning.factories import checked_json

OURS = frozenset({"payments.orders.v1", "payments.ledger.v1", "payments.legacy"})


def marked() -> Plan:
    return mark_causes(samples.kitchen_sink(), "origin/main", OURS)


def test_every_change_is_kept_and_marked() -> None:
    plain = samples.kitchen_sink()
    plan = marked()
    assert [c.topic for c in plan.changes] == [c.topic for c in plain.changes]
    assert plan.diagnostics == plain.diagnostics and plan.unmanaged == plain.unmanaged
    causes = {c.topic: c.cause for c in plan.changes}
    assert {t for t, cause in causes.items() if cause == "change"} == OURS
    assert set(causes.values()) == {"change", "drift"}
    assert (plan.summary.from_change, plan.summary.drift) == (3, len(plan.changes) - 3)
    assert plain.changed_since is None and all(c.cause is None for c in plain.changes)
    # Marks are for reviewers: applyable and the hazards apply refuses do not change
    assert plan.applyable == plain.applyable
    assert (
        plan.unacknowledged_hazards == mark_causes(plain, "x", frozenset()).unacknowledged_hazards
    )


def test_the_json_plan_carries_the_marks_and_round_trips() -> None:
    data = checked_json(marked())  # validates against the schema and round-trips exactly
    assert data["changed_since"] == "origin/main"
    assert {e["topic"]: e["cause"] for e in data["changes"]} == {
        c.topic: ("change" if c.topic in OURS else "drift") for c in marked().changes
    }
    unmarked = checked_json(samples.kitchen_sink())
    assert unmarked["changed_since"] is None
    assert all("cause" not in e for e in unmarked["changes"])


def test_a_plan_saved_before_the_marks_existed_still_reads() -> None:
    data = to_json(samples.kitchen_sink())
    del data["changed_since"]
    assert from_json(data) == samples.kitchen_sink()


def test_an_unknown_cause_is_refused() -> None:
    data = to_json(marked())
    data["changes"][0]["cause"] = "luck"
    try:
        from_json(data)
    except ValueError as error:
        assert "unknown cause 'luck'" in str(error)
    else:
        raise AssertionError("an unknown cause was read")


def test_text_marks_each_topic_line_and_counts_in_the_summary() -> None:
    text = render_text(marked())
    heads = [
        line for line in text.splitlines() if re.match(r"  [+~-] (create|update|delete) ", line)
    ]
    assert len(heads) == len(marked().changes)
    for line in heads:
        topic = line.split()[2]
        note = "(changed since origin/main)" if topic in OURS else "(drift: not from this change)"
        assert line.endswith("  " + note), line
    assert "3 from changes since origin/main, 7 pre-existing drift." in text
    assert "(drift" not in render_text(samples.kitchen_sink())


def test_markdown_splits_the_pull_requests_changes_from_drift() -> None:
    plan = marked()
    comment = render_markdown(plan)
    ours = comment.index(
        "### Changes from this pull request (spec files changed since `origin/main`), in "
        "execution order"
    )
    drift = comment.index("### Pre-existing drift (specs unchanged since `origin/main`)")
    assert ours < drift
    for change in plan.changes:
        action = change.action
        where = comment.index(f"#### {action.value} {action.word} `{change.topic}`\n")
        assert (where < drift) is (change.topic in OURS), change.topic
    assert "Compared with `origin/main`: 3 topic change(s) from this pull request, 7 " in comment
    assert "### Changes, in execution order" not in comment


def test_marked_markdown_keeps_the_budget() -> None:
    large = samples.large()
    ours = frozenset(c.topic for c in large.changes[::2])
    comment = render_markdown(mark_causes(large, "main", ours), max_chars=30_000)
    assert len(comment) <= 30_000
    assert "### Changes from this pull request" in comment
    assert "### Pre-existing drift" in comment  # its title and count, even with no room left
    assert "more change(s)" in comment


def test_json_renderer_shows_the_marks() -> None:
    assert '"cause": "drift"' in render_json(marked())


def scoped(plan: Plan, ours: frozenset[str]) -> Plan:
    """`plan`'s scoped form as workflow/plan.py makes it: the scope's own plan (here `plan`
    restricted to `ours`, with none of its diagnostics) with the rest set apart as drift."""
    own = dataclasses.replace(
        plan,
        changes=tuple(c for c in plan.changes if c.topic in ours),
        diagnostics=(),
        targets=scope_targets(ours),
        scoped=True,
    )
    return scope(mark_causes(plan, "main", ours), own)


def test_a_scoped_plan_sets_the_drift_apart_and_round_trips() -> None:
    plan = scoped(samples.kitchen_sink(), OURS)
    assert {c.topic for c in plan.changes} == OURS and not plan.errors
    # what blocks it is its own topics' hazards, none of the drift's
    assert plan.unacknowledged_hazards and all(t in OURS for t, _ in plan.unacknowledged_hazards)
    assert {c.topic for c in plan.drift.changes} == {
        c.topic for c in samples.kitchen_sink().changes
    } - OURS
    assert plan.drift.diagnostics == samples.kitchen_sink().diagnostics
    data = checked_json(plan)  # schema-valid, and read back exactly
    assert data["scoped"] is True and len(data["drift"]["changes"]) == 7


def test_scoped_markdown_keeps_the_budget() -> None:
    large = samples.large()
    plan = scoped(large, frozenset(c.topic for c in large.changes[::2]))
    for budget in (3_000, 5_000, 30_000):
        comment = render_markdown(plan, max_chars=budget)
        assert len(comment) <= budget and "cut at the comment size limit" not in comment
        assert "### Diagnostics of the pre-existing drift" in comment  # its head and count
        assert "### Pre-existing drift" in comment
