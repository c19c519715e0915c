"""Client quota changes: a cluster's `quotas:` compared with what DescribeClientQuotas answered
(`reconciler help access`).

Each change is one key of one entity: set (new or raised: no hazard), lowered (`quota_lower`)
or removed (`quota_remove`: the clients fall back to a less specific quota, the default
entity's or none). Both hazards are the cluster's, approved like a gate turned off, by the
transition in the cluster's `policy.acknowledge:` (policy_changes.cluster_hazard):
`{quota_lower: {key: "user=billing producer_byte_rate", from: 1048576, to: 524288}}`, `to:
none` for a removal.

Ownership: a listed entity's every key is managed (a key it no longer lists is removed). An
entity the list does not name is removed only when it is within `policy.manage` (when set):
each name it has (user, client id) matches a pattern, so `user=payments-api,client-id=<default>`
is within `^payments-`; an entity of defaults only (`client-id=<default>`) only when
`policy.manage` is unset, as no pattern names it.

Pure: the adapter reads, this decides; drift and apply take the decision from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.cluster.protocol.quotas import ClusterQuotas, QuotaAlteration
from reconciler.planning.changes import Hazard, transition
from reconciler.planning.ownership import owned
from reconciler.planning.policy_changes import cluster_hazard
from reconciler.spec.model import Policy
from reconciler.spec.quotas import ClientQuota, QuotaEntity, shown_value, value_text

QUOTA_LOWER, QUOTA_REMOVE = "quota_lower", "quota_remove"
QUOTA_CODES = (QUOTA_LOWER, QUOTA_REMOVE)


@dataclass(frozen=True, slots=True)
class QuotaChange:
    """One key of one entity: its value on the cluster (None: no quota) and as the spec says
    (None: removed)."""

    entity: QuotaEntity
    key: str
    before: float | None
    after: float | None
    hazards: tuple[Hazard, ...] = ()

    @property
    def alteration(self) -> QuotaAlteration:
        """What AlterClientQuotas is sent for it."""
        return QuotaAlteration(self.entity, self.key, self.after)

    @property
    def text(self) -> str:
        """`user=billing producer_byte_rate: 1048576 -> 524288` (`(none)` for no quota)."""
        values = f"{shown_value(self.before)} -> {shown_value(self.after)}"
        return f"{self.entity.text} {self.key}: {values}"


def quota_changes(
    desired: Sequence[ClientQuota] | None, cluster: ClusterQuotas | None, policy: Policy
) -> tuple[QuotaChange, ...]:
    """The changes turning `cluster`'s quotas into `desired`, sorted by entity then key; ()
    when the cluster declares no `quotas:` or they were not read (a snapshot)."""
    if desired is None or cluster is None:
        return ()
    want = {q.entity: dict(q.values) for q in desired}
    have = {q.entity: dict(q.values) for q in cluster.quotas}
    changes: list[QuotaChange] = []
    for entity in sorted(want.keys() | have.keys(), key=lambda e: e.order):
        if entity not in want and not owned_entity(entity, policy):
            continue
        wanted, held = want.get(entity, {}), have.get(entity, {})
        for key in sorted(wanted.keys() | held.keys()):
            before, after = held.get(key), wanted.get(key)
            if before != after:
                change = QuotaChange(entity, key, before, after)
                changes.append(_with_hazard(change, policy))
    return tuple(changes)


def owned_entity(entity: QuotaEntity, policy: Policy) -> bool:
    """Whether the cluster's `policy.manage` covers `entity` (every name it has matches)."""
    if not policy.manage:
        return True
    names = [n for _, n in entity.parts if n is not None]  # a default part names nobody
    return bool(names) and all(owned(n, policy) for n in names)


def _with_hazard(change: QuotaChange, policy: Policy) -> QuotaChange:
    before, after = change.before, change.after
    if before is None or (after is not None and after >= before):
        return change
    code = QUOTA_REMOVE if after is None else QUOTA_LOWER
    consequence = (
        "its clients fall back to a less specific quota (the default entity's, or none)"
        if after is None
        else "its clients are throttled sooner"
    )
    approval = transition(value_text(before), _approved(after), None, _key(change))
    hazard = cluster_hazard(
        code, f"quota {change.text}: {consequence}", approval, policy.acknowledge
    )
    return QuotaChange(change.entity, change.key, before, after, (hazard,))


def _approved(value: float | None) -> str:
    return "none" if value is None else value_text(value)


def _key(change: QuotaChange) -> str:
    """The approval's key: the entity and the quota key, `user=billing producer_byte_rate`."""
    return f"{change.entity.text} {change.key}"
