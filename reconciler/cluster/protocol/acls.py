"""ACL bindings as Kafka stores them: one principal, host, operation and permission on one
resource pattern (KIP-290). The planner compares these, the adapter sends them (CreateAcls,
DeleteAcls with an exact filter) and reads them (DescribeAcls), and every output names one by
`text`, the same line everywhere (`reconciler help access`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reconciler.cluster.protocol.address import ClusterAddress
from reconciler.errors import CannotAnswer

# Kafka's ResourceType and PatternType names, as the spec writes them
# (the ones librdkafka's admin API has: DelegationToken and User resources are not read)
ResourceType = Literal["topic", "group", "cluster", "transactional_id"]
PatternType = Literal["literal", "prefixed"]
Permission = Literal["allow", "deny"]

CLUSTER_NAME = "kafka-cluster"  # the one name of the Cluster resource
ANY_HOST = "*"
WILDCARD = "*"  # the literal name matching every resource of a type; also `User:*`

# How Kafka's tools spell each resource type (kafka-acls' output)
_RESOURCE_WORDS: dict[ResourceType, str] = {
    "topic": "Topic",
    "group": "Group",
    "cluster": "Cluster",
    "transactional_id": "TransactionalId",
}


@dataclass(frozen=True, slots=True, order=True)
class AclBinding:
    """One ACL binding; ordered by resource first, so a plan lists a resource's rules together."""

    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str  # `Type:name`
    operation: str  # Kafka's AclOperation name: Read, Write, IdempotentWrite, All, ...
    permission: Permission = "allow"
    host: str = ANY_HOST

    @property
    def text(self) -> str:
        """`User:billing ALLOW Read Topic:payments.orders.v1 (literal) from *`"""
        return (
            f"{self.principal} {self.permission.upper()} {self.operation} "
            f"{_RESOURCE_WORDS[self.resource_type]}:{self.resource_name} "
            f"({self.pattern_type}) from {self.host}"
        )

    @property
    def wide(self) -> bool:
        """A grant beyond one named client on one named resource: the wildcard principal, a
        prefixed pattern, or the literal `*` resource (the `acl_widen` hazard)."""
        return (
            self.principal.endswith(":" + WILDCARD)
            or self.pattern_type == "prefixed"
            or (self.resource_name == WILDCARD and self.resource_type != "cluster")
        )


@dataclass(frozen=True, slots=True)
class ClusterAcls:
    """What DescribeAcls answered: every binding of a kind reconciler reads, sorted, and
    whether the brokers need IdempotentWrite on the cluster for an idempotent producer
    (before Kafka 2.8, KIP-679; also when the brokers' release could not be told: the
    grant is then made rather than a producer refused)."""

    bindings: tuple[AclBinding, ...]
    idempotent_write: bool = False


def no_authorizer(address: ClusterAddress) -> CannotAnswer:
    """The sentence for access declared on a cluster whose brokers run no authorizer (the
    adapter's, and the fake's, the same words); `reconciler snapshot` records the phrase."""
    return CannotAnswer(
        f"cluster '{address.name}' at {address.bootstrap} has no authorizer (its "
        "brokers set no authorizer.class.name, so Kafka answers SECURITY_DISABLED), yet the "
        "spec declares access for it: grants there would protect nothing. Run the brokers "
        "with an authorizer, or leave `access:` and `acls:` out of the files of this cluster",
        "the brokers run no authorizer (authorizer.class.name is empty: SECURITY_DISABLED)",
    )
