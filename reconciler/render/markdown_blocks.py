"""The blocks a Markdown plan is built of: one topic's section, one diagnostic's row. Every
value from the repository or the cluster in them passes markdown_escape (`escape`, `code`).
Formats only; markdown.py decides what fits.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import assert_never

from reconciler.diagnostics import Diagnostic
from reconciler.markdown_escape import code, escape
from reconciler.planning.changes import (
    AclChange,
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

# Diagnostics of one shape (same severity, code, rule and message but for the topic's name),
# e.g. one warning on each of 479 topics, are one row: the count, the first few topics, and
# every topic in a collapsed <details>, whose list stops at a length that keeps the comment
# well inside GitHub's 65,536 characters (markdown.py fits the rows to its budget)
GROUP_NAMED = 3
GROUP_LIST_CHARS = 25_000
_TOPIC = "\0"  # stands for the topic's name in a shape's message
# the characters of a topic name: a name next to one is part of a longer name ("" is an end)
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "._-")


def diagnostic_rows(diagnostics: Sequence[Diagnostic]) -> list[tuple[str, int]]:
    """The table rows of `diagnostics`, one per shape in the order each shape first appears,
    each with the number of diagnostics it stands for."""
    shapes: dict[tuple[str, str, str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        shapes.setdefault((d.severity.value, d.code, d.rule, _template(d)), []).append(d)
    return [
        (diagnostic_row(same[0]), 1) if len(same) == 1 else (_grouped_row(same), len(same))
        for same in shapes.values()
    ]


def _template(d: Diagnostic) -> str:
    """The message with the topic's name (as a whole name, not inside a longer one) as _TOPIC.
    Found with str.find, not a regular expression per topic: thousands of diagnostics meant
    thousands of patterns compiled (re's cache holds 512), seconds for one comment."""
    topic, message = d.topic, d.message
    if not topic:
        return message
    parts, done, at = [], 0, message.find(topic)
    while at != -1:
        end = at + len(topic)
        before = message[at - 1] if at else ""
        after = message[end] if end < len(message) else ""
        if before not in _NAME_CHARS and after not in _NAME_CHARS:
            parts += [message[done:at], _TOPIC]
            done, at = end, message.find(topic, end)
        else:
            at = message.find(topic, at + 1)
    return "".join(parts) + message[done:]


def _grouped_row(same: Sequence[Diagnostic]) -> str:
    first = same[0]
    names = [d.topic or (str(d.location) if d.location else "") for d in same]
    named = ", ".join(code(n) for n in names[:GROUP_NAMED])
    listed, length = [], 0
    for name in names:
        shown = code(name)  # Markdown, not HTML: a table cell's inline HTML is read as Markdown
        if length + len(shown) > GROUP_LIST_CHARS:
            break
        listed.append(shown)
        length += len(shown) + 2
    rest = len(names) - len(listed)
    tail = f" and {rest:,} more: `reconciler plan --format text` lists them all" if rest else ""
    details = f"<details><summary>all {len(same):,}</summary>{', '.join(listed)}{tail}</details>"
    more = f" and {len(same) - GROUP_NAMED:,} more" if len(same) > GROUP_NAMED else ""
    topics = f"{len(same):,} {'topics' if first.topic else 'places'}: {named}{more}"
    where = code(str(first.location)) + f" (first of {len(same):,})" if first.location else ""
    message = "TOPIC".join(escape(part) for part in _template(first).split(_TOPIC))
    return (
        f"| {first.severity.value} | {escape(first.code)} | {code(first.rule)} | "
        f"{topics} {details} | {where} | {message} |"
    )


def diagnostic_row(d: Diagnostic) -> str:
    topic = code(d.topic) if d.topic else ""
    where = code(str(d.location)) if d.location else ""
    return (
        f"| {d.severity.value} | {escape(d.code)} | {code(d.rule)} | {topic} | {where} | "
        f"{escape(d.message)} |"
    )


def topic_section(topic_change: TopicChange, collapse: bool) -> list[str]:
    action = topic_change.action
    title = f"{action.value} {action.word} {code(topic_change.topic)}"
    body: list[str] = []
    for change in topic_change.changes:
        body.extend(_change(change))
    if topic_change.depends_on:
        body += [f"Depends on: {', '.join(code(t) for t in topic_change.depends_on)}", ""]
    if topic_change.access:
        body += ["| access | binding |", "|---|---|"]
        body += [
            f"| {a.action} | {code(a.binding.text)}{kept_note(a)} |" for a in topic_change.access
        ]
        body.append("")
    for hazard in topic_change.hazards:
        status = common.hazard_status(hazard)
        body += [f"> **Hazard** {code(hazard.code)} ({status}): {escape(hazard.message)}", ""]
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


def kept_note(change: AclChange) -> str:
    """A shadowed revoke's note (AclChange.kept_note), each binding in code."""
    if not change.still_granted_by:
        return ""
    return f" (still granted by {'; '.join(map(code, change.still_granted_by))})"
