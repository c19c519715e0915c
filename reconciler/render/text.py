"""The plan for a terminal, like `terraform plan`: diagnostics, then changes, then a summary.

Colour only when `color` is true (the CLI decides whether stdout is a terminal). The renderer
formats the Plan value and computes nothing.
"""

from __future__ import annotations

from typing import assert_never

import click

from reconciler.diagnostics import Diagnostic, Severity
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.plan import Plan
from reconciler.printable import printable
from reconciler.render import common
from reconciler.wrap import wrap_all

_ACTION_COLOUR = {Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red"}
_INDENT = "      "  # attribute lines sit under the topic's name


def render_text(
    plan: Plan,
    *,
    color: bool = False,
    width: int | None = None,
    verbose: bool = False,
    verdict: bool = True,
) -> str:
    """The plan as text, each line wrapped at `width` under its own indent (reconciler/wrap.py;
    None: not wrapped). `verbose` adds the state hash the plan is based on (the JSON plan's
    based_on); `verdict` False leaves out the refusal sentence, for apply, whose own refusal
    says it (planning/refusal.py)."""
    paint = _Painter(color)
    head = f"Plan for cluster {paint.bold(printable(plan.cluster))}"
    lines = [f"{head}, based on {printable(plan.based_on)}" if verbose else head, ""]
    if plan.diagnostics:
        lines.append(paint.bold("Diagnostics:"))
        lines.extend("  " + _diagnostic(d, paint) for d in plan.diagnostics)
        lines.append("")
    if plan.policy_changes:
        lines.extend(_policy(plan, paint))
        lines.append("")
    if plan.quotas:
        lines.extend(_quotas(plan, paint))
        lines.append("")
    if plan.acls:
        rows = [(f"{'+' if a.action == 'grant' else '-'} {a.action} {a.binding.text}"
                 f"{a.change.kept_note}", a.hazards) for a in plan.acls]  # fmt: skip
        lines.extend(_cluster_section("ACL changes (acls:):", rows, paint))
    if plan.users:
        rows = [(f"{_USER_MARK[u.action]} {u.text}", u.hazards) for u in plan.users]
        lines.extend(_cluster_section("SCRAM user changes (reconciler.yaml users:):", rows, paint))
        lines.append("")
    if plan.load_near_limit:
        lines.extend(_load_table(plan, paint))
        lines.append("")
    if plan.changes:
        lines.append(paint.bold("Changes, in execution order:"))
        lines.append("")
        for topic_change in plan.changes:
            lines.extend(_topic(plan, topic_change, paint))
            lines.append("")
    lines.extend(_drift(plan, paint))
    if plan.unmanaged:
        lines.append(paint.bold("Unmanaged topics (on the cluster, in no spec):"))
        lines.extend(f"  {printable(name)}" for name in plan.unmanaged)
        lines.append("")
    if plan.empty and plan.applyable:
        lines.append(paint.style(printable(common.no_changes(plan)), fg="green"))
    else:
        lines.append(paint.bold(printable(common.summary_line(plan))))
        if (note := common.drift_note(plan)) is not None:
            lines.append(printable(note))
    refused = common.not_applyable(plan) if verdict else None
    if refused is not None:
        lines.append(paint.style(printable(refused), fg="red", bold=True))
    return "\n".join(wrap_all(lines, width))


def _drift(plan: Plan, paint: _Painter) -> list[str]:
    """A scoped plan's pre-existing drift, after its own changes: what the whole plan has on
    other topics, said to be none of this plan's business."""
    drift = plan.drift
    if not drift.changes and not drift.diagnostics:
        return []
    lines = [
        paint.bold(
            f"Pre-existing drift (specs unchanged since {printable(plan.changed_since or '')}; "
            "not part of this plan: not applied with it, not blocking it):"
        ),
        "",
    ]
    lines.extend("  " + _diagnostic(d, paint) for d in drift.diagnostics)
    if drift.diagnostics:
        lines.append("")
    for topic_change in drift.changes:
        lines.extend(_topic(plan, topic_change, paint))
        lines.append("")
    return lines


class _Painter:
    """click.style when colour is on, the identity otherwise."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def style(self, text: str, fg: str | None = None, bold: bool | None = None) -> str:
        return click.style(text, fg=fg, bold=bold) if self.color else text

    def bold(self, text: str) -> str:
        return self.style(text, bold=True)


def _diagnostic(d: Diagnostic, paint: _Painter) -> str:
    match d.severity:
        case Severity.ERROR:
            colour = "red"
        case Severity.WARNING:
            colour = "yellow"
        case _:
            assert_never(d.severity)
    label = paint.style(f"{d.severity.value}[{printable(d.code)}]", fg=colour, bold=True)
    where = f"{printable(str(d.location))}: " if d.location else ""
    return f"{where}{label}: {printable(d.message)} ({printable(d.rule)})"


def _topic(plan: Plan, topic_change: TopicChange, paint: _Painter) -> list[str]:
    action = topic_change.action
    head = f"  {action.value} {action.word} {paint.bold(printable(topic_change.topic))}"
    lines = [paint.style(head, fg=_ACTION_COLOUR[action])]
    note = common.cause_note(plan, topic_change)
    if note is not None:
        note = printable(note)
        # Beside the name; drift in a colour of its own, so it stands out from the change's own
        lines[0] += "  " + (paint.style(note, fg="cyan") if topic_change.cause == "drift" else note)
    for change in topic_change.changes:
        lines.extend(_change(change, paint))
    if topic_change.depends_on:
        lines.append(f"{_INDENT}depends_on: {', '.join(map(printable, topic_change.depends_on))}")
    for acl in topic_change.access:
        sign = "+" if acl.action == "grant" else "-"
        lines.append(f"{_INDENT}{sign} {acl.action} {printable(acl.binding.text + acl.kept_note)}")
    for hazard in topic_change.hazards:
        marker = paint.style(f"! hazard {printable(hazard.code)}", fg="magenta", bold=True)
        message = printable(hazard.message)
        lines.append(f"{_INDENT}{marker} ({common.hazard_status(hazard)}): {message}")
    return lines


def _policy(plan: Plan, paint: _Painter) -> list[str]:
    """The cluster's policy changes (planning/policy_changes.py), each gate off with its hazard."""
    rows = [
        (f"~ policy.{change.setting}: {change.before} -> {change.after}", change.hazards)
        for change in plan.policy_changes
    ]
    return _cluster_section("Policy changes (reconciler.yaml):", rows, paint)


def _quotas(plan: Plan, paint: _Painter) -> list[str]:
    """The cluster's client quota changes (planning/quota_changes.py), with their hazards."""
    rows = [(f"{_mark(q.before, q.after)} quota {q.text}", q.hazards) for q in plan.quotas]
    return _cluster_section("Client quota changes (reconciler.yaml quotas:):", rows, paint)


_USER_MARK = {"create": "+", "update": "~", "delete": "-"}


def _mark(before: object, after: object) -> str:
    """+ a value set where none was, - one removed, ~ one changed."""
    return "+" if before is None else "-" if after is None else "~"


def _cluster_section(
    title: str, rows: list[tuple[str, tuple[Hazard, ...]]], paint: _Painter
) -> list[str]:
    """A section of the cluster's own changes: one line each, its hazards under it."""
    lines = [paint.bold(title)]
    for line, hazards in rows:
        lines.append(f"  {printable(line)}")
        for hazard in hazards:
            marker = paint.style(f"! hazard {printable(hazard.code)}", fg="magenta", bold=True)
            lines.append(
                f"{_INDENT}{marker} ({common.hazard_status(hazard)}): {printable(hazard.message)}"
            )
    return lines


def _load_table(plan: Plan, paint: _Painter) -> list[str]:
    rows = [
        common.LOAD_HEADER,
        *(tuple(map(printable, common.load_cells(r))) for r in plan.broker_load),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(common.LOAD_HEADER))]
    lines = [paint.bold(common.load_title(plan) + ":")]
    for index, row in enumerate(rows):
        cells = [
            cell.ljust(width) if column == 1 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        line = "  " + "  ".join(cells).rstrip()
        over = index > 0 and plan.broker_load[index - 1].desired > plan.broker_load[index - 1].limit
        lines.append(paint.style(line, fg="red") if over else line)
    return lines


def _change(change: Change, paint: _Painter) -> list[str]:
    match change:
        case CreateTopic():
            lines = [
                f"{_INDENT}partitions: "
                f"{common.count(change.partitions, change.default_partitions)}",
                f"{_INDENT}replication_factor: "
                f"{common.count(change.replication_factor, change.default_replication_factor)}",
            ]
            lines.extend(
                paint.style(
                    f"{_INDENT}+ {printable(key)}: {printable(common.config_value(key, value))}",
                    fg="green",
                )
                for key, value in change.config
            )
            if change.assignments is not None:
                lines.append(f"{_INDENT}assignments:")
                lines.extend(_partition_lines(common.numbered(change.assignments, 0)))
            return lines
        case AlterTopicConfig():
            return [_config_entry(entry, paint) for entry in change.entries]
        case IncreasePartitions():
            lines = [f"{_INDENT}partitions: {change.current} -> {change.desired}"]
            if change.assignments is not None:
                lines.append(f"{_INDENT}new partitions placed on:")
                lines.extend(_partition_lines(common.numbered(change.assignments, change.current)))
            return lines
        case ReassignReplicas():
            lines = [
                f"{_INDENT}replication_factor: {change.current_rf} -> {change.desired_rf} "
                f"({common.reassignment_summary(change)})"
            ]
            rows = common.moved(change)
            for partition, current, target in rows[: common.MAX_LISTED_PARTITIONS]:
                lines.append(
                    f"{_INDENT}  partition {partition}: "
                    f"{common.replicas(current)} -> {common.replicas(target)}"
                )
            if len(rows) > common.MAX_LISTED_PARTITIONS:
                more = len(rows) - common.MAX_LISTED_PARTITIONS
                lines.append(f"{_INDENT}  ... and {more} more partition(s)")
            return lines
        case DeleteTopic():
            return [
                f"{_INDENT}partitions: {change.partitions}",
                f"{_INDENT}reason: {_delete_reason(change)}",
                *(f"{_INDENT}{printable(line)}" for line in common.evidence_lines(change.evidence)),
            ]
        case _:
            assert_never(change)


def _config_entry(entry: ConfigChange, paint: _Painter) -> str:
    def shown(value: str) -> str:
        return printable(common.config_value(entry.key, value))

    key = printable(entry.key)

    if entry.desired is None:
        assert entry.current is not None
        fallback = shown(entry.inherited) if entry.inherited is not None else "unknown"
        text = f"- {key}: {shown(entry.current)} (falls back to {fallback})"
        return paint.style(_INDENT + text, fg="red")
    if entry.current is None:
        was = f" (inherited now: {shown(entry.inherited)})" if entry.inherited is not None else ""
        return paint.style(f"{_INDENT}+ {key}: {shown(entry.desired)}{was}", fg="green")
    change = f"{shown(entry.current)} -> {shown(entry.desired)}"
    return paint.style(f"{_INDENT}~ {key}: {change}", fg="yellow")


def _partition_lines(rows: list[tuple[int, tuple[int, ...]]]) -> list[str]:
    lines = [
        f"{_INDENT}  partition {partition}: {common.replicas(r)}"
        for partition, r in rows[: common.MAX_LISTED_PARTITIONS]
    ]
    if len(rows) > common.MAX_LISTED_PARTITIONS:
        lines.append(f"{_INDENT}  ... and {len(rows) - common.MAX_LISTED_PARTITIONS} more")
    return lines


def _delete_reason(change: DeleteTopic) -> str:
    if change.reason == "tombstone":
        return "tombstone (state: absent)"
    return "unmanaged, --prune"
