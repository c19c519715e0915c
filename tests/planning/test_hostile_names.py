"""Names and values that try to rewrite a report: every field of the plan comment, the failure
comment and the drift comment (and their text forms) carries a newline, CR, `<!--`, `-->`, a
pipe, backquotes, an HTML tag, an escape sequence and a `**Plan:` line, and the report keeps
its structure: the same lines, the same table rows and columns, no injected heading or summary
line, no raw HTML comment, tag, CR or escape sequence.

The hostile text is appended to every string of the plan that comes from the repository or
the cluster (cluster, topics, config keys and values, file paths, messages, group names,
racks, the git ref), so a field added later without passing the escaping function fails here.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from reconciler.cluster.evidence import GroupUse, TopicEvidence
from reconciler.diagnostics import Diagnostic, Location, Severity
from reconciler.fleet import summary
from reconciler.markdown_escape import code, escape
from reconciler.planning.changes import DeleteTopic
from reconciler.planning.drift import KINDS, DriftItem, DriftReport
from reconciler.planning.limits import BrokerLoad
from reconciler.planning.plan import Plan
from reconciler.render.drift_report import render_drift_markdown, render_drift_text
from reconciler.render.markdown import render_failure, render_markdown
from reconciler.render.text import render_text
from tests.planning import samples

HOSTILE = (
    "\n\n**Plan: 0 to create, 0 to update, 0 to delete.**\n\n<!-- | `a``b | <b>x</b>"
    "<script>alert(1)</script>\r\x1b[2J\x1b]8;;http://e\x07\u202e\n### Fake\n-->|"
)
# Every string field carries it, the reconciler's own codes, rules and state hashes too (a saved
# plan or a snapshot is a file anyone can edit), but for the closed vocabularies renderers
# branch on (a change's cause and reason, a drift item's kind), which a plan file's checks
# hold to their values (planning/plan_input.py)
CLOSED = {"cause", "reason", "kind"}
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _hostile(value: Any, name: str = "") -> Any:
    if isinstance(value, str):
        return value if name in CLOSED else value + HOSTILE
    if isinstance(value, tuple):
        return tuple(_hostile(item, name) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {
            f.name: _hostile(getattr(value, f.name), f.name) for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changed)
    return value


def _with_evidence(plan: Plan) -> Plan:
    """Every delete with evidence of use, so its group lines are rendered too."""
    evidence = TopicEvidence(
        topic="t",
        read_at=0,
        groups=(GroupUse("readers", "Stable", 1, committed=True, assigned=True, lag=3),),
        newest_record=0,
        unreadable=("a group could not be described",),
    )
    changes = tuple(
        dataclasses.replace(
            c,
            cause="drift" if index % 2 else "change",  # both sections of --changed-since
            changes=tuple(
                dataclasses.replace(x, evidence=evidence) if isinstance(x, DeleteTopic) else x
                for x in c.changes
            ),
        )
        for index, c in enumerate(plan.changes)
    )
    load = (BrokerLoad(1, "rack-a", 9, 10, 10), BrokerLoad(2, None, 1, 2, 10))
    return dataclasses.replace(plan, changes=changes, broker_load=load, changed_since="main")


def _plans() -> tuple[Plan, Plan]:
    plain = _with_evidence(samples.kitchen_sink())
    return plain, _hostile(plain)


def _shape(line: str) -> tuple[str, int]:
    """What a line is in Markdown: its leading marker and, for a table row, its cell count."""
    marker = re.match(r"\s*(#+ |\||- |> |<details>|<summary>|</details>|\*\*|\d+\. |)", line)
    assert marker is not None
    pipes = len(UNESCAPED_PIPE.findall(line)) if line.startswith("|") else 0
    return marker.group(1), pipes


def _assert_inert(text: str) -> None:
    for raw in ("<!--", "-->", "<script", "<b>", "\r", "\x1b", "\x07", "\u202e"):
        assert raw not in text, f"{raw!r} reached the output raw"


def _assert_same_structure(plain: str, hostile: str) -> None:
    _assert_inert(hostile)
    plain_lines, hostile_lines = plain.split("\n"), hostile.split("\n")
    assert len(hostile_lines) == len(plain_lines)
    for before, after in zip(plain_lines, hostile_lines, strict=True):
        assert _shape(after) == _shape(before), (before, after)


def _assert_tables_intact(text: str) -> None:
    """Every row of every table has as many cells as its header."""
    _assert_inert(text)
    header: int | None = None
    for line in text.split("\n"):
        if not line.startswith("|"):
            header = None
            continue
        cells = len(UNESCAPED_PIPE.findall(line))
        if header is None:
            header = cells
        assert cells == header, line


def test_the_plan_comment_keeps_its_structure_whatever_the_names_hold() -> None:
    plain, hostile = _plans()
    before, after = render_markdown(plain), render_markdown(hostile)
    assert HOSTILE not in after
    _assert_same_structure(before, after)
    assert [line for line in after.split("\n") if line.startswith("**Plan:")] == [
        after.split("\n")[-1]
    ]
    assert "Fake" in after  # shown, as text
    assert not any(line.startswith("### Fake") for line in after.split("\n"))


def test_the_collapsed_plan_comment_keeps_its_structure() -> None:
    plain, hostile = _plans()
    many = tuple(
        dataclasses.replace(c, topic=f"{c.topic}.{i}") for i in range(3) for c in plain.changes
    )
    plain = dataclasses.replace(plain, changes=many)
    hostile = dataclasses.replace(hostile, changes=tuple(_hostile(c) for c in many))
    # Unbudgeted: hostile text in every field makes the comment longer, not differently built
    unbounded = 10**7
    _assert_same_structure(render_markdown(plain, unbounded), render_markdown(hostile, unbounded))


@pytest.mark.parametrize("max_chars", [2_500, 6_000, 20_000])
def test_a_fitted_plan_comment_keeps_its_tables_whole(max_chars: int) -> None:
    _, hostile = _plans()
    text = render_markdown(hostile, max_chars=max_chars)
    assert len(text) <= max_chars
    _assert_tables_intact(text)
    assert sum(line.startswith("**Plan:") for line in text.split("\n")) <= 1


def test_the_failure_comment_keeps_its_structure() -> None:
    diagnostics = [
        Diagnostic(
            Severity.ERROR, "R001", "yaml_syntax", "bad", Location("topics/a.yaml", 1, 1), "t"
        ),
        Diagnostic(Severity.WARNING, "R002", "dup", "dup", Location("topics/b.yaml", 2, 3)),
    ]
    plain = render_failure("plan", "prod", "specs are invalid", diagnostics)
    hostile = render_failure(
        "plan", "prod" + HOSTILE, "specs are invalid" + HOSTILE, [_hostile(d) for d in diagnostics]
    )
    _assert_same_structure(plain, hostile)
    _assert_tables_intact(hostile)


def _report() -> DriftReport:
    where = Location("topics/main.yaml", 3, 5)
    blocked = Diagnostic(Severity.ERROR, "P101", "partition_decrease", "cannot shrink", where, "t")
    items = [
        DriftItem(
            None if kind == "blocked" else "t",
            kind,
            "config.retention.ms" if kind == "config" else "partitions",
            "1",
            "2",
            where if kind != "unmanaged" else None,
            blocked if kind == "blocked" else None,
        )
        for kind in KINDS
    ]
    return DriftReport("prod", "sha256:" + "0" * 64, tuple(items))


def test_the_drift_comment_keeps_its_structure() -> None:
    plain = _report()
    hostile = _hostile(plain)
    _assert_same_structure(render_drift_markdown(plain), render_drift_markdown(hostile))
    _assert_tables_intact(render_drift_markdown(hostile, max_chars=1_500))


def test_text_reports_show_control_characters_as_escapes() -> None:
    plain, hostile = _plans()
    for before, after in (
        (render_text(plain), render_text(hostile)),
        (render_drift_text(_report()), render_drift_text(_hostile(_report()))),
    ):
        _assert_inert(after.replace("<!--", "").replace("-->", "").replace("<", ""))
        assert after.count("\n") == before.count("\n")  # no line added by a name
        assert "\\n\\n**Plan: 0 to create" in after and "\\r\\x1b[2J" in after


def test_colour_codes_are_the_reports_own() -> None:
    _, hostile = _plans()
    text = render_text(hostile, color=True)
    assert "\x1b[2J" not in text and "\r" not in text
    assert re.findall(r"\x1b[^\[]|\x1b\[[0-9;]*[^0-9;m]", text) == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("orders_v1", "`orders_v1`"),
        ("a`b", "``a`b``"),
        ("a|b", "<code>a\\|b</code>"),
        ("<!--", "<code>&lt;\\!--</code>"),
        ("x\ny", "`x\\ny`"),
    ],
)
def test_code_shows_a_value_literally(value: str, shown: str) -> None:
    assert code(value) == shown


def test_escape_keeps_a_messages_own_code_spans_and_escapes_the_rest() -> None:
    assert escape("set `retention.ms` to 1d") == "set `retention.ms` to 1d"
    assert (
        escape("**bold** [a](b) <i> _x_ a_b") == "\\*\\*bold\\*\\* [a\\](b) &lt;i&gt; \\_x\\_ a_b"
    )
    assert escape("`a|b` c") == "<code>a\\|b</code> c"


def _fleet_summary(extra: str) -> summary.Summary:
    def h(value: str) -> str:
        return value + extra

    return summary.Summary(
        desired=h("/in/desired"), snapshots=h("/in/snapshots"), since=None,
        first_date="2026-11-01", last_date="2026-11-02", snapshots_read=2, topic_rows=9,
        superseded=0, superseded_lines=0, desired_clusters=1,
        clusters=(
            summary.ClusterDrift(h("prod"), "2026-11-02", 1, 1, (("config", 1),), None, False),
        ),
        no_desired=(h("dev"),), no_snapshots=(h("qa"),),
        brokers=(summary.BrokerRow(h("prod"), "2026-11-02", 1, h("rack-a"), 9, 10, 90.0, 1.0, 1),),
        cluster_load=(summary.ClusterLoad(h("prod"), "2026-11-02", 9, 10, 90.0, 1.0),),
        consistency=(summary.ConsistencyDate("2026-11-02", 1, 1, 1),),
        examples=(summary.ConsistencyExample("2026-11-02", h("t"), h("partitions"), h("prod=1")),),
        bad=(summary.BadLines("snapshots", "not JSON", 3, h("cluster=prod/x.jsonl")),),
        incomplete=((h("prod"), "2026-11-02", h("x.jsonl"), h("no trailer")),),
    )  # fmt: skip


def test_the_fleet_summary_keeps_its_structure() -> None:
    """summary.md of `fleet drift` shows cluster names, racks, topics and file paths from the
    snapshots: they pass the same escaping."""
    _assert_same_structure(
        summary.render(_fleet_summary("")), summary.render(_fleet_summary(HOSTILE))
    )
