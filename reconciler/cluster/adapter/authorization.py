"""Authentication and authorization failures, as one sentence naming what is missing.

Kafka answers a request the principal may not make with TOPIC_AUTHORIZATION_FAILED or
CLUSTER_AUTHORIZATION_FAILED and no more; which ACL operation was missing depends on the
request. The operation each request needs is the one table of reconciler/cluster/acls.py
(Kafka's "Operations and Resources on Protocols"; `reconciler help security` shows it).

Kafka implies Describe from Read, Write, Delete and Alter, and DescribeConfigs from
AlterConfigs. A wrong password or an untrusted certificate never reaches a request: librdkafka
retries the connection and reports the reason only through its error callback, so each
connection's `Watch` (failures.py) records it and `Connection.failure` uses it when the request
then times out. The failures are classified by their codes in failures.py; this module names
what the principal may do (pre-flight) and makes the sentences apply and the lock use.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclOperation, AdminClient

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.failures import TOPIC_DENIED, Resource, code_of
from reconciler.errors import ClusterError

# The ACL operations' names as kafka-acls spells them.
OPERATIONS = {
    AclOperation.DESCRIBE: "Describe",
    AclOperation.DESCRIBE_CONFIGS: "DescribeConfigs",
    AclOperation.CREATE: "Create",
    AclOperation.ALTER: "Alter",
    AclOperation.ALTER_CONFIGS: "AlterConfigs",
    AclOperation.DELETE: "Delete",
    AclOperation.READ: "Read",
    AclOperation.WRITE: "Write",
    AclOperation.ALL: "All",
}
_IMPLIED = {  # Kafka's AclAuthorizer/StandardAuthorizer rules
    "Describe": {"Read", "Write", "Delete", "Alter", "All"},
    "DescribeConfigs": {"AlterConfigs", "All"},
}


def lacks(
    connection: Connection, operation: str, resource: str, why: str, unchanged: bool = True
) -> str:
    """The one sentence: who lacks what, on which resource ("the cluster", "topic NAME",
    "group NAME", "the topics"), needed for what, and the fix. `unchanged`: the refusal came
    before any change (reads, pre-flight, the lock)."""
    return connection.denied(operation, Resource.parse(resource), why, unchanged).sentence()


def refused(
    connection: Connection, code: str, operation: str, resource: str, why: str
) -> str | None:
    """The sentence for an item Kafka refused with an authorization code (a per-item answer
    such as a CreateTopics result), else None."""
    if code in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"):
        on = "the cluster" if code == "CLUSTER_AUTHORIZATION_FAILED" else resource
        return lacks(connection, operation, on, why)
    return None


# ---------------------------------------------------------------------------- pre-flight


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
        return bool({operation, "All"} & granted) or bool(_IMPLIED.get(operation, set()) & granted)


def _names(operations: object) -> frozenset[str]:
    """kafka-acls names of what Kafka says; a broker without KIP-430 (before 2.3) says nothing:
    then nothing is refused here (Kafka still refuses the request itself)."""
    if not isinstance(operations, Collection):
        return frozenset({"All"})
    return frozenset(OPERATIONS.get(op, getattr(op, "name", str(op))) for op in operations)


def names(operations: object) -> frozenset[str]:
    """kafka-acls names of the authorized operations Kafka reports (KIP-430)."""
    return _names(operations)


def authorized(connection: Connection, admin: AdminClient, topics: Collection[str]) -> Authorized:
    """One DescribeCluster and one Metadata request asking for the authorized operations."""
    try:
        with boundary.librdkafka(connection, "DescribeCluster"):
            described = admin.describe_cluster(
                request_timeout=connection.seconds, include_authorized_operations=True
            ).result()
            granted = _names(described.authorized_operations)
    except KafkaException as exc:
        raise connection.error("describe", exc) from exc
    per_topic: dict[str, frozenset[str] | None] = {}
    if topics:
        with boundary.librdkafka(connection, "Metadata"):
            futures = admin.describe_topics(
                TopicCollection(sorted(topics)),
                request_timeout=connection.seconds,
                include_authorized_operations=True,
            )
        for name, future in futures.items():
            try:
                with boundary.librdkafka(connection, "Metadata"):
                    per_topic[name] = _names(future.result().authorized_operations)
            except KafkaException as exc:
                if code_of(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    continue  # deleted meanwhile: nothing to check
                if code_of(exc) != TOPIC_DENIED:
                    raise connection.error(f"describe topic '{name}' of", exc) from exc
                per_topic[name] = None
    return Authorized(granted, per_topic)


def check_visible(connection: Connection, admin: AdminClient, creates: Collection[str]) -> None:
    """Raise ClusterError when Kafka hides some of the topics a plan would create.

    Kafka leaves the topics a principal may not Describe out of the topic list, so such a topic
    looks absent and the plan proposes to create it. Asked by name (one Metadata request), Kafka
    answers UNKNOWN_TOPIC_OR_PART for a topic that is really absent and
    TOPIC_AUTHORIZATION_FAILED for one the principal may not Describe, whether it exists or not.
    """
    if not creates:
        return
    with boundary.librdkafka(connection, "Metadata"):
        futures = admin.describe_topics(
            TopicCollection(sorted(creates)), request_timeout=connection.seconds
        )
    hidden = []
    for name, future in sorted(futures.items()):
        try:
            with boundary.librdkafka(connection, "Metadata"):
                future.result()
        except KafkaException as exc:
            if code_of(exc) == TOPIC_DENIED:
                hidden.append(name)
            elif code_of(exc) != KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise connection.error(f"describe topic '{name}' of", exc) from exc
    if hidden:
        why = "tell whether {} exists: Kafka hides it, so it looks absent"
        lines = [lacks(connection, "Describe", f"topic {n}", why.format(n)) for n in hidden[:10]]
        more = [f"... and {len(hidden) - 10} more"] if len(hidden) > 10 else []
        raise ClusterError("\n".join(lines + more))
