"""Access parts of a sample cluster state, as a snapshot holds them (shared by the snapshot
tests of both forms)."""

from __future__ import annotations

from typing import Any

from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.scram import ClusterScram, ScramCredential
from reconciler.spec.quotas import ClientQuota, QuotaEntity

READ = AclBinding("topic", "a.one", "literal", "User:billing", "Read")
GROUP = AclBinding("group", "billing-", "prefixed", "User:billing", "Read", "deny", "10.0.0.1")
QUOTA = ClientQuota(QuotaEntity("billing", "<default>"), (("producer_byte_rate", 1048576.0),))
DEFAULT = ClientQuota(QuotaEntity(None, "<default>"), (("request_percentage", 12.5),))
CREDENTIAL = ScramCredential("billing", "SCRAM-SHA-512", 8192)


def held_access() -> dict[str, Any]:
    """ClusterState's access fields: every part held (as read back: no digest)."""
    return {
        "acls": ClusterAcls((GROUP, READ), idempotent_write=True),
        "quotas": ClusterQuotas((DEFAULT, QUOTA)),
        "scram": ClusterScram((CREDENTIAL,), digests_read=False),
    }
