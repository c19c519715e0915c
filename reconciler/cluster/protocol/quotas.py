"""Client quotas as Kafka stores them: one entity (user, client id or both) and its values
(`reconciler help access`). The adapter reads them all in one DescribeClientQuotas and changes
them in one AlterClientQuotas; the planner compares them with a cluster's `quotas:`.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.spec.quotas import ClientQuota, QuotaEntity


@dataclass(frozen=True, slots=True)
class QuotaAlteration:
    """One key of one entity set to `value`, or removed (`value` None): an op of
    AlterClientQuotas (a removal is Kafka's `remove: true`)."""

    entity: QuotaEntity
    key: str
    value: float | None


@dataclass(frozen=True, slots=True)
class ClusterQuotas:
    """What DescribeClientQuotas answered: every user and client-id entity with a quota, sorted
    (IP entities, KIP-546, are neither read nor written)."""

    quotas: tuple[ClientQuota, ...]
