"""Drift: what differs between the specs and the cluster, as the scheduled job reports it.

A pure function of the plan the planner makes for the same specs and state, so drift never
disagrees with `plan` about what differs: every change of the plan is drift, and so is every
error diagnostic (a difference the plan refuses or leaves blocked). Nothing here decides again
what the planner decided. Each difference is one `DriftItem`:

    missing             a spec's topic that the cluster does not have (plan: create)
    config              a config override differs, is missing, or is extra (plan: config change),
                        or a throttled-replica list an apply left (plan: leftover_throttle)
    partitions          partition count short of the spec's (plan: increase)
    replication_factor  replication factor differs (plan: reassignment)
    present             a tombstoned topic (`state: absent`) still on the cluster (plan: delete)
    unmanaged           a topic on the cluster that no spec names (internal and ignored ones
                        excepted)
    blocked             an error diagnostic of the plan: a difference apply cannot or may not
                        change (a count above the spec's, a reassignment in progress, a
                        held-back delete, a refused create, ...); `field` is the rule's name,
                        `diagnostic` the plan's own code and sentence (planning/drift_codes.py
                        lists the rules)
    placement           a spec with manual `assignments` whose replicas now sit elsewhere, at
                        the spec's replication factor: the one difference the planner leaves
                        alone by design (apply moves replicas only to change their number)

Values are Kafka's canonical strings (`604800000`, not `7d`), as in the JSON plan. Every item
of a spec'd topic carries the place of its `- name:` line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, assert_never, get_args

from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location
from reconciler.planning import p_codes, raw_acl_changes
from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
)
from reconciler.planning.plan import Plan
from reconciler.planning.quota_changes import QuotaChange
from reconciler.planning.user_changes import UserChange
from reconciler.spec.model import DesiredState, Presence

FORMAT_VERSION = 1

DriftKind = Literal[
    "missing", "config", "partitions", "replication_factor", "placement", "present", "unmanaged",
    "blocked",
]  # fmt: skip
# The kinds in the type's order: the summaries, tables and charts list them so
KINDS: tuple[DriftKind, ...] = get_args(DriftKind)


@dataclass(frozen=True, slots=True)
class DriftItem:
    topic: str | None  # None only for a blocked item about no one topic
    kind: DriftKind
    # "topic", "config.<key>", "partitions", "replication_factor", "assignments", or (blocked)
    # the rule's name
    field: str
    desired: str | None  # what the specs say; None: absent / no override
    current: str | None  # what the cluster shows; None: absent / no override
    location: Location | None = None  # the spec's `- name:` line; None for unmanaged topics
    # the plan's error (blocked items), or its leftover_throttle warning (a throttle an apply
    # left, perhaps over moves still in progress: the sentence says which)
    diagnostic: Diagnostic | None = None


@dataclass(frozen=True, slots=True)
class AccessDrift:
    """An ACL binding that differs (`help access`): one a topic's `access:` derives that the
    cluster lacks (`granted` False), or one the cluster holds on a topic whose `access:` does
    not derive it (`granted` True). Kept apart from the topic kinds: snapshots hold no ACLs,
    so the fleet job cannot judge these."""

    topic: str
    binding: str  # AclBinding.text
    granted: bool  # the cluster holds it now
    location: Location | None = None  # the topic's `- name:` line


RAW_ACLS = "(acls:)"  # the `topic` of an AccessDrift of the files' raw `acls:`


@dataclass(frozen=True, slots=True)
class DriftReport:
    cluster: str
    based_on: str  # fingerprint of the state read
    items: tuple[DriftItem, ...]  # sorted by topic, then field
    cluster_id: str | None = None  # the id the cluster reported
    access: tuple[AccessDrift, ...] = ()  # in the plan's order; () without `access:`
    # The plan's quota changes (planning/quota_changes.py); () without `quotas:`
    quotas: tuple[QuotaChange, ...] = ()
    # The plan's SCRAM user changes (planning/user_changes.py); () without `users:`
    users: tuple[UserChange, ...] = ()

    @property
    def in_sync(self) -> bool:
        return not self.items and not self.access and not self.quotas and not self.users

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics that differ, unmanaged ones included, sorted."""
        return tuple(sorted({i.topic for i in self.items if i.topic is not None}))

    def count(self, kind: DriftKind) -> int:
        return sum(1 for i in self.items if i.kind == kind)


def drift(plan: Plan, desired: DesiredState, state: ClusterState) -> DriftReport:
    """The drift `plan` (made from `desired` and `state`) reveals: its changes, its error
    diagnostics, its unmanaged topics, and placement the planner leaves alone."""
    items: list[DriftItem] = []
    for topic_change in plan.changes:
        spec = desired.topics.get(topic_change.topic)
        where = spec.location if spec is not None else None
        for change in topic_change.changes:
            items.extend(_items(change, where))
    items.extend(_blocked(d, desired) for d in plan.errors)
    items.extend(_placement(desired, state, plan))
    items.extend(_leftover_throttles(desired, state, plan))
    items.extend(DriftItem(name, "unmanaged", "topic", None, "present") for name in plan.unmanaged)
    access = tuple(
        AccessDrift(c.topic, a.binding.text, a.action == "revoke", _where(desired, c.topic))
        for c in plan.changes
        for a in c.access
    )
    # the `acls:` section's: on no topic entry, each at its `acls:` entry when the spec gives it
    given = raw_acl_changes.bindings(desired.acls or ())
    access += tuple(
        AccessDrift(RAW_ACLS, a.binding.text, a.action == "revoke",
                    given[a.binding].location if a.binding in given else None)
        for a in plan.acls
    )  # fmt: skip
    return DriftReport(
        cluster=plan.cluster,
        based_on=plan.based_on,
        cluster_id=plan.cluster_id,
        items=tuple(sorted(items, key=_order)),
        access=access,
        quotas=plan.quotas,
        users=plan.users,
    )


def _where(desired: DesiredState, topic: str) -> Location | None:
    spec = desired.topics.get(topic)
    return spec.location if spec is not None else None


def _order(item: DriftItem) -> tuple[str, str, str]:
    return (item.topic or "", item.field, item.diagnostic.message if item.diagnostic else "")


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


def _blocked(diagnostic: Diagnostic, desired: DesiredState) -> DriftItem:
    topic = diagnostic.topic
    spec = desired.topics.get(topic) if topic is not None else None
    where = diagnostic.location or (spec.location if spec is not None else None)
    return DriftItem(topic, "blocked", diagnostic.rule, None, None, where, diagnostic)


def _placement(desired: DesiredState, state: ClusterState, plan: Plan) -> Iterator[DriftItem]:
    """Manual assignments the replicas no longer follow, at the spec's replication factor: the
    planner plans no change for them (apply moves replicas only to change their number), so
    this is the one comparison drift makes itself. Ignored and tombstoned topics are out of
    reach."""
    ignored = {d.topic for d in plan.diagnostics if d.rule == p_codes.IGNORED_TOPIC.name}
    for name, spec in sorted(desired.topics.items()):
        current = state.topics.get(name)
        if not spec.assignments or current is None or spec.state is Presence.ABSENT:
            continue
        if name in ignored:
            continue
        now = tuple(p.replicas for p in current.partitions[: len(spec.assignments)])
        same_rf = all(len(r) == len(a) for r, a in zip(now, spec.assignments, strict=False))
        if same_rf and now != spec.assignments[: len(now)]:
            yield DriftItem(
                name, "placement", "assignments", _lists(spec.assignments[: len(now)]),
                _lists(now), spec.location,
            )  # fmt: skip


def _leftover_throttles(
    desired: DesiredState, state: ClusterState, plan: Plan
) -> Iterator[DriftItem]:
    """A throttle an apply left (the plan's leftover_throttle diagnostics,
    planning/leftover_warnings.py) is config drift: its topic keeps throttled-replica lists that
    no spec sets. Throttles no apply recorded are an operator's and not drift (the planner leaves
    those keys alone)."""
    for found in plan.diagnostics:
        if found.rule != p_codes.LEFTOVER_THROTTLE.name or found.topic is None:
            continue
        current = state.topics.get(found.topic)
        spec = desired.topics.get(found.topic)
        for key in sorted(OPERATIONAL_KEYS):
            value = current.overrides.get(key) if current is not None else None
            if value is not None:
                yield DriftItem(
                    found.topic, "config", f"config.{key}", None, value,
                    spec.location if spec is not None else None, found,
                )  # fmt: skip


def _lists(assignments: tuple[tuple[int, ...], ...]) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, r)) + "]" for r in assignments) + "]"


def to_json(report: DriftReport) -> dict[str, Any]:
    """The JSON form (schemas/drift.schema.json)."""
    return {
        "format_version": FORMAT_VERSION,
        "cluster": report.cluster,
        "cluster_id": report.cluster_id,
        "based_on": report.based_on,
        "in_sync": report.in_sync,
        "summary": {"topics": len(report.topics), **{k: report.count(k) for k in KINDS}},
        "drift": [_item_json(i) for i in report.items],
        **({"access": [_access_json(a) for a in report.access]} if report.access else {}),
        **({"quotas": [_quota_json(q) for q in report.quotas]} if report.quotas else {}),
        **({"users": [_user_json(u) for u in report.users]} if report.users else {}),
    }


def _user_json(u: UserChange) -> dict[str, Any]:
    """A credential that differs, in words: never the secret nor its digest."""
    return {"name": u.name, "mechanism": u.mechanism, "action": u.action,
            "reasons": list(u.reasons)}  # fmt: skip


def _quota_json(q: QuotaChange) -> dict[str, Any]:
    return {"entity": q.entity.text, "key": q.key, "desired": q.after, "current": q.before}


def _access_json(a: AccessDrift) -> dict[str, Any]:
    return {
        "topic": a.topic,
        "binding": a.binding,
        "spec": "revoked" if a.granted else "granted",
        "cluster": "granted" if a.granted else "revoked",
        "file": a.location.file if a.location else None,
        "line": a.location.line if a.location else None,
    }


def _item_json(i: DriftItem) -> dict[str, Any]:
    out: dict[str, Any] = {
        "topic": i.topic,
        "kind": i.kind,
        "field": i.field,
        "desired": i.desired,
        "current": i.current,
        "file": i.location.file if i.location else None,
        "line": i.location.line if i.location else None,
        "column": i.location.column if i.location else None,
    }
    if i.diagnostic is not None:
        out |= {"code": i.diagnostic.code, "message": i.diagnostic.message}
    return out
