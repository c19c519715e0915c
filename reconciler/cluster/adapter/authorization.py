"""What the principal may do (KIP-430 authorized operations), asked of the cluster.

apply's pre-flight asks it (`authorized`), and `check_visible` for the topics a plan creates;
Kafka's implications and the sentences of a refusal are reconciler/cluster/protocol/authorized.py's;
the ACLs each request needs, the one table of reconciler/cluster/acls.py (`reconciler help
security` shows it). A wrong password or an untrusted certificate never reaches a request:
librdkafka retries the connection and reports the reason only through its error callback, so
each connection's `Watch` (failures.py) records it and `Connection.failure` uses it when the
request then times out.
"""

from __future__ import annotations

from collections.abc import Collection

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclOperation, AdminClient

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.failures import TOPIC_DENIED, code_of
from reconciler.cluster.protocol.authorized import Authorized, lacks
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
