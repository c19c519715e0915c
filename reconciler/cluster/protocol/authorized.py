"""Authorized operations: what each request needs, what Kafka implies, and what a principal may
do (KIP-430), with the one sentence of a refusal.

Kafka answers a request the principal may not make with TOPIC_AUTHORIZATION_FAILED or
CLUSTER_AUTHORIZATION_FAILED and no more; which ACL operation was missing depends on the
request. The operation each request needs (Kafka's "Operations and Resources on Protocols"):

    request                         operation        resource
    DescribeCluster                 Describe         Cluster (only for authorized operations)
    Metadata                        Describe         Topic (unauthorized topics are left out)
    DescribeConfigs                 DescribeConfigs  Topic; Cluster for broker configs
    ListPartitionReassignments      Describe         Cluster
    CreateTopics                    Create           Cluster or Topic
    CreatePartitions                Alter            Topic
    IncrementalAlterConfigs         AlterConfigs     Topic; Cluster for broker configs
    DeleteTopics                    Delete           Topic
    ListGroups                      Describe         Cluster (else only the groups it may Describe)
    DescribeGroups, OffsetFetch     Describe         Group (the in-use evidence of a delete)
    AlterPartitionReassignments     Alter            Cluster
    DescribeAcls                    Describe         Cluster (a spec declaring access)
    CreateAcls, DeleteAcls          Alter            Cluster (grants and revokes)
    DescribeClientQuotas            DescribeConfigs  Cluster (a cluster declaring `quotas:`)
    AlterClientQuotas               AlterConfigs     Cluster
    DescribeUserScramCredentials    Describe         Cluster (a cluster declaring `users:`)
    AlterUserScramCredentials       Alter            Cluster

Kafka implies Describe from Read, Write, Delete and Alter, and DescribeConfigs from
AlterConfigs. The cluster's answer (which operations the principal holds) is asked by the adapter
(cluster/adapter/authorization.py); what it allows is judged here, Kafka-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reconciler.cluster.protocol.address import ClusterAddress
from reconciler.cluster.protocol.failures import Denied, Resource

# What an ALLOW of each operation also allows: Kafka's AclAuthorizer/StandardAuthorizer rules
# (the pre-flight and the planner's coverage, planning/acl_coverage.py, read it)
IMPLIED: dict[str, set[str]] = {
    "Describe": {"Read", "Write", "Delete", "Alter", "All"},
    "DescribeConfigs": {"AlterConfigs", "All"},
}


def lacks(
    address: ClusterAddress, operation: str, resource: str, why: str, unchanged: bool = True
) -> str:
    """The one sentence: who lacks what, on which resource ("the cluster", "topic NAME",
    "group NAME", "the topics"), needed for what, and the fix. `unchanged`: the refusal came
    before any change (reads, pre-flight, the lock)."""
    on = Resource.parse(resource)
    denied = Denied(
        address.name, address.bootstrap, address.principal, operation, on, why, unchanged
    )
    return denied.sentence()


def refused(
    address: ClusterAddress, code: str, operation: str, resource: str, why: str
) -> str | None:
    """The sentence for an item Kafka refused with an authorization code (a per-item answer
    such as a CreateTopics result), else None."""
    if code in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"):
        on = "the cluster" if code == "CLUSTER_AUTHORIZATION_FAILED" else resource
        return lacks(address, operation, on, why)
    return None


@dataclass(frozen=True, slots=True)
class Authorized:
    """What the principal may do (KIP-430), as kafka-acls names operations."""

    cluster: frozenset[str]
    # None: not even Describe on it. A topic Kafka says does not exist is left out: it only
    # says so to a principal that may Describe it.
    topics: Mapping[str, frozenset[str] | None]

    def allows(self, operation: str, topic: str | None) -> bool:
        if topic is not None and topic not in self.topics:
            return operation == "Describe"
        granted = self.cluster if topic is None else self.topics[topic]
        if granted is None:
            return False
        return bool({operation, "All"} & granted) or bool(IMPLIED.get(operation, set()) & granted)
