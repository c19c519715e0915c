"""Phrases the text and Markdown renderers share, so the two formats say the same thing."""

from __future__ import annotations

import datetime
from typing import assert_never

from reconciler.cluster.evidence import GroupUse, TopicEvidence
from reconciler.planning.changes import Assignments, Hazard, ReassignReplicas, TopicChange
from reconciler.planning.limits import BrokerLoad
from reconciler.planning.plan import Plan
from reconciler.planning.refusal import refusal
from reconciler.spec import catalog
from reconciler.spec.units import format_duration_ms, format_size_bytes

# Per-partition lines shown for one reassignment or partition increase; the rest are counted.
MAX_LISTED_PARTITIONS = 10

NO_CHANGES = "No changes. The cluster matches the specs."


def no_changes(plan: Plan) -> str:
    """What an empty, applyable plan says: a scoped plan (--changed-since) speaks of the pull
    request, whose specs may match while other topics drift."""
    if not plan.scoped:
        return NO_CHANGES
    line = "No changes from this pull request."
    note = drift_note(plan)
    return f"{line} {note}" if note else line


def drift_note(plan: Plan) -> str | None:
    """What a scoped plan says of the drift it sets apart; None when there is none."""
    drift = plan.drift
    if not drift.changes and not drift.diagnostics:
        return None
    errors = sum(1 for d in drift.diagnostics if d.is_error)
    counted = f"{len(drift.changes)} pre-existing drift" + (
        f" ({_plural(errors, 'error')})" if errors else ""
    )
    return (
        f"{counted} on topics this pull request does not change: shown apart, not part of "
        "this plan, never applied with it and never blocking it; it is the drift job's "
        "(`reconciler drift`) to report and a change to those topics' specs to settle."
    )


# Consumer groups listed in one delete's evidence; the rest are counted.
MAX_LISTED_GROUPS = 5


def config_value(key: str, value: str) -> str:
    """A config value as Kafka holds it, with its human reading when that says more:
    `604800000 (7d)`, `268435456 (256MiB)`, `-1 (unlimited)`. Values stay Kafka's, so what a
    reviewer reads is what apply sends."""
    defn = catalog.lookup(key)
    if defn is None or defn.unit is None:
        return value
    try:
        number = int(value)
    except ValueError:
        return value
    special = dict(defn.special_values).get(number)
    if special is not None:
        return f"{value} ({special})"
    if number < 0:
        return value
    human = format_duration_ms(number) if defn.unit == "ms" else format_size_bytes(number)
    return value if human == value else f"{value} ({human})"


def count(desired: int | None, default: int | None) -> str:
    """A partition count or replication factor of a create: the spec's, or the broker's
    default it will get (KIP-464)."""
    if desired is not None:
        return str(desired)
    return f"broker default ({default})" if default is not None else "broker default"


def replicas(replica_list: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, replica_list)) + "]"


def moved(change: ReassignReplicas) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """(partition, current, target) of the partitions whose replicas differ."""
    return [
        (index, current, target)
        for index, (current, target) in enumerate(zip(change.current, change.target, strict=True))
        if current != target
    ]


def reassignment_summary(change: ReassignReplicas) -> str:
    """ "4 of 6 partitions move: 4 replicas added, 0 removed"."""
    rows = moved(change)
    added = sum(len(set(target) - set(current)) for _, current, target in rows)
    removed = sum(len(set(current) - set(target)) for _, current, target in rows)
    return (
        f"{len(rows)} of {len(change.target)} partitions move: "
        f"{added} replica(s) added, {removed} removed"
    )


def numbered(assignments: Assignments, first: int) -> list[tuple[int, tuple[int, ...]]]:
    """Replica lists with their partition ids, the first being `first`."""
    return [(first + offset, r) for offset, r in enumerate(assignments)]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_line(plan: Plan) -> str:
    """ "Plan: 1 to create, 2 to update, 0 to delete. 1 error, 0 warnings.", and with
    --changed-since " 2 from changes since main, 1 pre-existing drift." """
    s = plan.summary
    line = (
        f"Plan: {s.create} to create, {s.update} to update, {s.delete} to delete. "
        f"{_plural(s.errors, 'error')}, {_plural(s.warnings, 'warning')}."
    )
    if plan.quotas:
        line += f" {_plural(len(plan.quotas), 'quota change')}."
    if plan.acls:
        line += f" {_plural(len(plan.acls), 'ACL change')}."
    if plan.users:
        line += f" {_plural(len(plan.users), 'SCRAM user change')}."
    if plan.scoped:
        line += (
            f" {s.from_change} from changes since {plan.changed_since}; "
            f"{len(plan.drift.changes)} pre-existing drift shown apart, not part of this plan."
        )
    elif plan.changed_since is not None:
        line += (
            f" {s.from_change} from changes since {plan.changed_since}, "
            f"{s.drift} pre-existing drift."
        )
    return line


def cause_note(plan: Plan, topic_change: TopicChange) -> str | None:
    """What a topic line says about its cause (--changed-since), None without marks."""
    match topic_change.cause:
        case None:
            return None
        case "change":
            return f"(changed since {plan.changed_since})"
        case "drift" if plan.scoped and topic_change in plan.changes:
            return "(drift of a topic this change depends on: applied with it)"
        case "drift":
            return "(drift: not from this change)"
        case _:
            assert_never(topic_change.cause)


def not_applyable(plan: Plan) -> str | None:
    """The plan's verdict when apply would refuse it, None when it is applyable: the one
    refusal sentence (planning/refusal.py), which apply's own refusal repeats word for word."""
    clause = refusal(plan)
    return None if clause is None else f"Not applyable: {clause}."


def hazard_status(hazard: Hazard) -> str:
    """ "acknowledged", "needs acknowledgment" (apply refuses it) or "warning"."""
    if hazard.acknowledged:
        return "acknowledged"
    return "needs acknowledgment" if hazard.blocks_apply else "warning"


LOAD_HEADER = ("broker", "rack", "current", "desired", "limit", "%")


def load_title(plan: Plan) -> str:
    limit = plan.broker_load[0].limit
    return (
        f"Broker load (partition replicas; limits.max_broker_partitions {limit}; new partitions "
        "counted on the least-loaded brokers)"
    )


def load_cells(row: BrokerLoad) -> tuple[str, str, str, str, str, str]:
    over = " over" if row.desired > row.limit else ""
    return (
        str(row.broker),
        row.rack or "-",
        str(row.current),
        str(row.desired),
        str(row.limit),
        f"{row.percent}%{over}",
    )


# Said with every delete's evidence: what Kafka cannot show, so nobody reads "unused" into it
INVISIBLE_READERS = (
    "readers without a group (assign(): Connect, Schema Registry, Spark, Flink, Streams "
    "restore consumers) are invisible to Kafka"
)


def evidence_lines(evidence: TopicEvidence | None) -> list[str]:
    """A delete's evidence of use, one short line per item: the groups (at most
    MAX_LISTED_GROUPS, then "and N more"), the newest record, what could not be read. None
    (not read: a plan from a snapshot, whose warning P134 says so) shows nothing."""
    if evidence is None:
        return []
    lines = [f"evidence (read {_when(evidence.read_at)}):"]
    lines += [f"  group {_group(g)}" for g in evidence.groups[:MAX_LISTED_GROUPS]]
    if len(evidence.groups) > MAX_LISTED_GROUPS:
        lines.append(f"  ... and {len(evidence.groups) - MAX_LISTED_GROUPS} more group(s)")
    if not evidence.groups and not evidence.unreadable:
        lines.append("  none of the groups Kafka tracks reads it")
    lines.append(f"  {INVISIBLE_READERS}")
    if evidence.window_ms > 0:
        watched = format_duration_ms(evidence.window_ms)
        lines.append(
            f"  log end offsets: {evidence.written:,} record(s) appended in the {watched} watched"
            if evidence.written
            else f"  log end offsets: unchanged over the {watched} watched"
        )
    newest = evidence.newest_record
    stamped = (
        " (CreateTime: stamped by its producer, not by Kafka; an old stamp proves nothing)"
        if evidence.producer_stamped
        else ""
    )
    lines.append(
        f"  newest record: {_when(newest)}{stamped}" if newest is not None else "  no record"
    )
    lines += [f"  not readable: {why}" for why in evidence.unreadable[:MAX_LISTED_GROUPS]]
    if len(evidence.unreadable) > MAX_LISTED_GROUPS:
        lines.append(f"  ... and {len(evidence.unreadable) - MAX_LISTED_GROUPS} more")
    return lines


def _group(use: GroupUse) -> str:
    members = f", {use.members} member(s)" if use.members is not None else ""
    lag = f", lag {use.lag:,}" if use.lag is not None else ""
    how = [w for w, on in (("committed offsets", use.committed), ("assigned", use.assigned)) if on]
    return f"{use.group} ({use.state}{members}{lag}): {', '.join(how)}"


def _when(millis: int) -> str:
    moment = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
