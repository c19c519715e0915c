"""Drift: what differs between the specs and the cluster, as the scheduled job reports it.

A pure function of the plan the planner makes for the same specs and state, so drift never
disagrees with `plan` about what differs. Each difference is one `DriftItem`:

    missing             a spec's topic that the cluster does not have (plan: create)
    config              a config override differs, is missing, or is extra (plan: config change)
    partitions          partition count differs, growth (plan: increase) or a count above the
                        spec's, which Kafka cannot undo (plan: partition_decrease error)
    replication_factor  replication factor differs (plan: reassignment)
    placement           a spec with manual `assignments` whose replicas now sit elsewhere
    present             a tombstoned topic (`state: absent`) still on the cluster (plan: delete)
    unmanaged           a topic on the cluster that no spec names (internal and ignored ones
                        excepted)

Values are Kafka's canonical strings (`604800000`, not `7d`), as in the JSON plan. Every item
of a spec'd topic carries the place of its `- name:` line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Location
from reconciler.planning import rules
from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
)
from reconciler.planning.plan import Plan
from reconciler.spec.model import DesiredState, Presence

FORMAT_VERSION = 1

DriftKind = Literal[
    "missing", "config", "partitions", "replication_factor", "placement", "present", "unmanaged"
]


@dataclass(frozen=True, slots=True)
class DriftItem:
    topic: str
    kind: DriftKind
    field: str  # "topic", "config.<key>", "partitions", "replication_factor", "assignments"
    desired: str | None  # what the specs say; None: absent / no override
    current: str | None  # what the cluster shows; None: absent / no override
    location: Location | None = None  # the spec's `- name:` line; None for unmanaged topics


@dataclass(frozen=True, slots=True)
class DriftReport:
    cluster: str
    based_on: str  # fingerprint of the state read
    items: tuple[DriftItem, ...]  # sorted by topic, then field
    cluster_id: str | None = None  # the id the cluster reported

    @property
    def in_sync(self) -> bool:
        return not self.items

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics that differ, unmanaged ones included, sorted."""
        return tuple(sorted({i.topic for i in self.items}))

    def count(self, kind: DriftKind) -> int:
        return sum(1 for i in self.items if i.kind == kind)


def drift(plan: Plan, desired: DesiredState, state: ClusterState) -> DriftReport:
    """The drift `plan` (made from `desired` and `state`) reveals."""
    items: list[DriftItem] = []
    for topic_change in plan.changes:
        spec = desired.topics.get(topic_change.topic)
        where = spec.location if spec is not None else None
        for change in topic_change.changes:
            items.extend(_items(change, where))
    items.extend(_blocked(desired, state, plan))
    items.extend(DriftItem(name, "unmanaged", "topic", None, "present") for name in plan.unmanaged)
    unique = {(i.topic, i.field): i for i in items}  # a blocked item may repeat a planned one
    return DriftReport(
        cluster=plan.cluster,
        based_on=plan.based_on,
        cluster_id=plan.cluster_id,
        items=tuple(sorted(unique.values(), key=lambda i: (i.topic, i.field))),
    )


def _items(change: Change, where: Location | None) -> Iterator[DriftItem]:
    match change:
        case CreateTopic():
            yield DriftItem(change.topic, "missing", "topic", "present", None, where)
        case AlterTopicConfig():
            for entry in change.entries:
                yield DriftItem(
                    change.topic, "config", f"config.{entry.key}", entry.desired, entry.current,
                    where,
                )  # fmt: skip
        case IncreasePartitions():
            yield DriftItem(
                change.topic, "partitions", "partitions", str(change.desired), str(change.current),
                where,
            )  # fmt: skip
        case ReassignReplicas():
            yield DriftItem(
                change.topic, "replication_factor", "replication_factor",
                str(change.desired_rf), str(change.current_rf), where,
            )  # fmt: skip
        case DeleteTopic():
            if change.reason == "tombstone":
                yield DriftItem(change.topic, "present", "topic", None, "present", where)
            # a prune delete is an unmanaged topic, listed as such
        case _:
            assert_never(change)


def _blocked(desired: DesiredState, state: ClusterState, plan: Plan) -> Iterator[DriftItem]:
    """Differences the plan shows as a diagnostic, or not at all, because apply cannot or may
    not change them: more partitions than the spec (Kafka has no decrease), a tombstoned topic
    whose delete the policy holds back, and manual assignments the replicas no longer follow."""
    ignored = {d.topic for d in plan.diagnostics if d.rule == rules.IGNORED_TOPIC.name}
    for name, spec in sorted(desired.topics.items()):
        current = state.topics.get(name)
        if current is None or name in ignored:
            continue
        if spec.state is Presence.ABSENT:  # a delete the policy or `protect` holds back
            yield DriftItem(name, "present", "topic", None, "present", spec.location)
            continue
        count = len(current.partitions)
        wanted = spec.partitions or (len(spec.assignments) if spec.assignments else None)
        if wanted is not None and wanted < count:
            yield DriftItem(
                name, "partitions", "partitions", str(wanted), str(count), spec.location
            )
        if spec.assignments:
            now = tuple(p.replicas for p in current.partitions[: len(spec.assignments)])
            same_rf = all(len(r) == len(a) for r, a in zip(now, spec.assignments, strict=False))
            if same_rf and now != spec.assignments[: len(now)]:
                yield DriftItem(
                    name, "placement", "assignments", _lists(spec.assignments[: len(now)]),
                    _lists(now), spec.location,
                )  # fmt: skip


def _lists(assignments: tuple[tuple[int, ...], ...]) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, r)) + "]" for r in assignments) + "]"


def to_json(report: DriftReport) -> dict[str, Any]:
    """The JSON form (schemas/drift.schema.json)."""
    kinds: tuple[DriftKind, ...] = (
        "missing", "config", "partitions", "replication_factor", "placement", "present",
        "unmanaged",
    )  # fmt: skip
    return {
        "format_version": FORMAT_VERSION,
        "cluster": report.cluster,
        "cluster_id": report.cluster_id,
        "based_on": report.based_on,
        "in_sync": report.in_sync,
        "summary": {"topics": len(report.topics), **{k: report.count(k) for k in kinds}},
        "drift": [
            {
                "topic": i.topic,
                "kind": i.kind,
                "field": i.field,
                "desired": i.desired,
                "current": i.current,
                "file": i.location.file if i.location else None,
                "line": i.location.line if i.location else None,
                "column": i.location.column if i.location else None,
            }
            for i in report.items
        ],
    }
