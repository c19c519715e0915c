"""Phrases the text and Markdown renderers share, so the two formats say the same thing."""

from __future__ import annotations

from reconciler.planning.changes import Assignments, Hazard, ReassignReplicas
from reconciler.planning.limits import BrokerLoad
from reconciler.planning.plan import Plan

# Per-partition lines shown for one reassignment or partition increase; the rest are counted.
MAX_LISTED_PARTITIONS = 10

NO_CHANGES = "No changes. The cluster matches the specs."


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
    """ "Plan: 1 to create, 2 to update, 0 to delete. 1 error, 0 warnings." """
    s = plan.summary
    return (
        f"Plan: {s.create} to create, {s.update} to update, {s.delete} to delete. "
        f"{_plural(s.errors, 'error')}, {_plural(s.warnings, 'warning')}."
    )


def hazard_status(hazard: Hazard) -> str:
    """ "acknowledged", "needs acknowledgment" (apply refuses it) or "warning"."""
    if hazard.acknowledged:
        return "acknowledged"
    return "needs acknowledgment" if hazard.blocks_apply else "warning"


def unacknowledged_line(plan: Plan) -> str | None:
    """The sentence under the summary when apply would refuse the plan's hazards."""
    pending = plan.unacknowledged_hazards
    if not pending:
        return None
    topics = sorted({topic for topic, _ in pending})
    verb = "needs" if len(pending) == 1 else "need"
    return (
        f"{_plural(len(pending), 'hazard')} {verb} acknowledgment ({', '.join(topics)}): "
        "apply refuses the plan until each topic's spec lists the hazard under `acknowledge:`."
    )


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
