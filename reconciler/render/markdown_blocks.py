"""The blocks a Markdown plan is built of: one topic's section, one diagnostic's row. Every
value from the repository or the cluster in them passes markdown_escape (`escape`, `code`).
Formats only; markdown.py decides what fits.
"""

from __future__ import annotations

from typing import assert_never

from reconciler.diagnostics import Diagnostic
from reconciler.markdown_escape import code, escape
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
from reconciler.render import common


def diagnostic_row(d: Diagnostic) -> str:
    topic = code(d.topic) if d.topic else ""
    where = code(str(d.location)) if d.location else ""
    return (
        f"| {d.severity.value} | {d.code} | `{d.rule}` | {topic} | {where} | {escape(d.message)} |"
    )


def topic_section(topic_change: TopicChange, collapse: bool) -> list[str]:
    action = topic_change.action
    title = f"{action.value} {action.word} {code(topic_change.topic)}"
    body: list[str] = []
    for change in topic_change.changes:
        body.extend(_change(change))
    if topic_change.depends_on:
        body += [f"Depends on: {', '.join(code(t) for t in topic_change.depends_on)}", ""]
    for hazard in topic_change.hazards:
        status = common.hazard_status(hazard)
        body += [f"> **Hazard** `{hazard.code}` ({status}): {escape(hazard.message)}", ""]
    if collapse:
        summary = f"{action.value} {action.word} {code(topic_change.topic, html=True)}"
        return ["<details>", f"<summary>{summary}</summary>", "", *body, "</details>", ""]
    return [f"#### {title}", "", *body]


def _change(change: Change) -> list[str]:
    match change:
        case CreateTopic():
            lines = [
                f"- partitions: {common.count(change.partitions, change.default_partitions)}",
                "- replication factor: "
                + common.count(change.replication_factor, change.default_replication_factor),
            ]
            if change.assignments is not None:
                rows = common.numbered(change.assignments, 0)
                lines.append("- assignments: " + _placements(rows))
            lines.append("")
            if change.config:
                lines += ["| config | desired |", "| --- | --- |"]
                lines.extend(
                    f"| {code(k)} | {code(common.config_value(k, v))} |" for k, v in change.config
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
            shown = common.evidence_lines(change.evidence)
            evidence = [f"- {escape(shown[0])}"] if shown else []
            evidence += [f"  - {escape(line.strip())}" for line in shown[1:]]
            return [f"- partitions: {change.partitions}", f"- reason: {reason}", *evidence, ""]
        case _:
            assert_never(change)


def _config_row(entry: ConfigChange) -> str:
    def shown(value: str) -> str:
        return code(common.config_value(entry.key, value))

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
    return f"| {code(entry.key)} | {current} | {desired} |"


def _placements(rows: list[tuple[int, tuple[int, ...]]]) -> str:
    shown = ", ".join(
        f"{p}: `{common.replicas(r)}`" for p, r in rows[: common.MAX_LISTED_PARTITIONS]
    )
    if len(rows) > common.MAX_LISTED_PARTITIONS:
        shown += f", … and {len(rows) - common.MAX_LISTED_PARTITIONS} more"
    return shown
