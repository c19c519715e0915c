"""The plan's client quota changes, as apply runs them (`help access`): every one in one
AlterClientQuotas, after the topic levels and the ACL grants (a quota belongs to no topic, so
no topic change waits for it). What the cluster already shows is not sent again: a resumed
apply repeats nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reconciler.cluster.ports import QuotaStore
from reconciler.cluster.protocol.quotas import ClusterQuotas, QuotaAlteration
from reconciler.planning.quota_changes import QuotaChange


def remaining(
    changes: Sequence[QuotaChange], quotas: ClusterQuotas | None
) -> tuple[QuotaAlteration, ...]:
    """The plan's quota changes the cluster does not show yet. `quotas` None: not read, so all
    of them are left (Kafka's answer settles each)."""
    if quotas is None:
        return tuple(c.alteration for c in changes)
    have = {(q.entity, key): value for q in quotas.quotas for key, value in q.values}
    return tuple(c.alteration for c in changes if have.get((c.entity, c.key)) != c.after)


def run(
    cluster: QuotaStore, alterations: Sequence[QuotaAlteration], progress: Callable[[str], None]
) -> list[str]:
    """Send `alterations` in one request; the refusals, one sentence per entity."""
    if not alterations:
        return []
    answers = cluster.alter_quotas(alterations)
    refused = [
        f"could not change the quotas of {entity.text}: {failure}"
        for entity, failure in answers.items()
        if failure is not None
    ]
    done = len({a.entity for a in alterations}) - len(refused)
    progress(f"changed the client quotas of {done} entit{'y' if done == 1 else 'ies'}")
    for line in refused:
        progress(line)
    return refused
