"""The plan as a pull-request comment (GitHub-flavoured Markdown), never with ANSI colour.

A heading with the cluster and a summary table, diagnostics first, then a section per topic.
Past COLLAPSE_ABOVE topics each section folds into a `<details>` block, so a large plan stays
reviewable. The renderer formats the Plan value and computes nothing.
"""

from __future__ import annotations

from typing import assert_never

from reconciler.diagnostics import Diagnostic
from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.plan import Plan
from reconciler.render import common

COLLAPSE_ABOVE = 20  # topics; beyond this, per-topic sections are collapsible


def render_markdown(plan: Plan) -> str:
    s = plan.summary
    lines = [
        f"## reconciler plan for `{plan.cluster}`",
        "",
        "| create | update | delete | errors | warnings |",
        "| ---: | ---: | ---: | ---: | ---: |",
        f"| {s.create} | {s.update} | {s.delete} | {s.errors} | {s.warnings} |",
        "",
        f"Based on cluster state `{plan.based_on}`. "
        + (
            "Applyable."
            if plan.applyable
            else "**Not applyable**: fix the errors below and plan again."
        ),
        "",
    ]
    if plan.diagnostics:
        lines += ["### Diagnostics", "", "| severity | code | rule | topic | where | message |"]
        lines.append("| --- | --- | --- | --- | --- | --- |")
        lines.extend(_diagnostic(d) for d in plan.diagnostics)
        lines.append("")
    if plan.load_near_limit:
        lines += [f"### {common.load_title(plan)}", ""]
        lines += [
            "| " + " | ".join(common.LOAD_HEADER) + " |",
            "| ---: | --- | ---: | ---: | ---: | ---: |",
        ]
        lines.extend("| " + " | ".join(common.load_cells(r)) + " |" for r in plan.broker_load)
        lines.append("")
    if plan.changes:
        lines += ["### Changes, in execution order", ""]
        collapse = len(plan.changes) > COLLAPSE_ABOVE
        for topic_change in plan.changes:
            lines.extend(_topic(topic_change, collapse))
    if plan.unmanaged:
        lines += ["### Unmanaged topics", "", "On the cluster, in no spec:", ""]
        lines.extend(f"- `{name}`" for name in plan.unmanaged)
        lines.append("")
    if not plan.changes and plan.applyable:
        lines.append(common.NO_CHANGES)
    else:
        lines.append(f"**{common.summary_line(plan)}**")
    pending = common.unacknowledged_line(plan)
    if pending is not None:
        lines += ["", f"**{_cell(pending)}**"]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """Text safe inside a table cell: no pipe, newline or HTML tag can break the row."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("|", "\\|")
        .replace("\n", " ")
    )


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def _diagnostic(d: Diagnostic) -> str:
    topic = _code(d.topic) if d.topic else ""
    where = _code(str(d.location)) if d.location else ""
    return (
        f"| {d.severity.value} | {d.code} | `{d.rule}` | {topic} | {where} | {_cell(d.message)} |"
    )


def _topic(topic_change: TopicChange, collapse: bool) -> list[str]:
    action = topic_change.action
    title = f"{action.value} {action.word} `{topic_change.topic}`"
    body: list[str] = []
    for change in topic_change.changes:
        body.extend(_change(change))
    if topic_change.depends_on:
        body += [f"Depends on: {', '.join(_code(t) for t in topic_change.depends_on)}", ""]
    for hazard in topic_change.hazards:
        status = common.hazard_status(hazard)
        body += [f"> **Hazard** `{hazard.code}` ({status}): {_cell(hazard.message)}", ""]
    if collapse:
        summary = f"{action.value} {action.word} <code>{topic_change.topic}</code>"
        return ["<details>", f"<summary>{summary}</summary>", "", *body, "</details>", ""]
    return [f"#### {title}", "", *body]


def _change(change: Change) -> list[str]:
    match change:
        case CreateTopic():
            lines = [
                f"- partitions: {_count(change.partitions, change.default_partitions)}",
                "- replication factor: "
                + _count(change.replication_factor, change.default_replication_factor),
            ]
            if change.assignments is not None:
                rows = common.numbered(change.assignments, 0)
                lines.append("- assignments: " + _placements(rows))
            lines.append("")
            if change.config:
                lines += ["| config | desired |", "| --- | --- |"]
                lines.extend(
                    f"| `{k}` | {_code(_cell(common.config_value(k, v)))} |"
                    for k, v in change.config
                )
                lines.append("")
            return lines
        case AlterTopicConfig():
            lines = ["| config | current | desired |", "| --- | --- | --- |"]
            lines.extend(_config_row(entry) for entry in change.entries)
            return [*lines, ""]
        case IncreasePartitions():
            lines = [f"- partitions: {change.current} → {change.desired}"]
            if change.assignments is not None:
                rows = common.numbered(change.assignments, change.current)
                lines.append("- new partitions placed on: " + _placements(rows))
            return [*lines, ""]
        case ReassignReplicas():
            lines = [
                f"- replication factor: {change.current_rf} → {change.desired_rf} "
                f"({common.reassignment_summary(change)})",
                "",
                "| partition | current | target |",
                "| ---: | --- | --- |",
            ]
            moves = common.moved(change)
            lines.extend(
                f"| {p} | `{common.replicas(c)}` | `{common.replicas(t)}` |"
                for p, c, t in moves[: common.MAX_LISTED_PARTITIONS]
            )
            if len(moves) > common.MAX_LISTED_PARTITIONS:
                more = len(moves) - common.MAX_LISTED_PARTITIONS
                lines.append(f"| … | {more} more partition(s) | |")
            return [*lines, ""]
        case DeleteTopic():
            reason = (
                "tombstone (`state: absent`)"
                if change.reason == "tombstone"
                else "unmanaged, `--prune`"
            )
            return [f"- partitions: {change.partitions}", f"- reason: {reason}", ""]
        case _:
            assert_never(change)


def _count(desired: int | None, default: int | None) -> str:
    if desired is not None:
        return str(desired)
    return f"broker default ({default})" if default is not None else "broker default"


def _config_row(entry: ConfigChange) -> str:
    def shown(value: str) -> str:
        return _code(_cell(common.config_value(entry.key, value)))

    if entry.desired is None:
        fallback = shown(entry.inherited) if entry.inherited is not None else "unknown"
        desired = f"*removed, falls back to* {fallback}"
    else:
        desired = shown(entry.desired)
    if entry.current is None:
        current = "*not set*"
        if entry.inherited is not None:
            current += f" (inherited {shown(entry.inherited)})"
    else:
        current = shown(entry.current)
    return f"| `{entry.key}` | {current} | {desired} |"


def _placements(rows: list[tuple[int, tuple[int, ...]]]) -> str:
    shown = ", ".join(
        f"{p}: `{common.replicas(r)}`" for p, r in rows[: common.MAX_LISTED_PARTITIONS]
    )
    if len(rows) > common.MAX_LISTED_PARTITIONS:
        shown += f", … and {len(rows) - common.MAX_LISTED_PARTITIONS} more"
    return shown
