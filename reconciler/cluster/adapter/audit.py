"""The audit topic: one JSON record per apply, kept for as long as the cluster lives.

`_reconciler_audit` is created on first use with one partition (records stay in apply order),
no compaction and no time or size limit, so every apply ever made can be read back.
"""

from __future__ import annotations

from confluent_kafka.admin import AdminClient

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.records import all_records, produce
from reconciler.cluster.adapter.values import NewTopicRequest
from reconciler.cluster.adapter.write import create_topics
from reconciler.errors import ClusterError

AUDIT_TOPIC = "_reconciler_audit"
_AUDIT_CONFIG = (
    ("cleanup.policy", "delete"),
    ("max.message.bytes", str(16 * 1024 * 1024)),  # one record per apply, however large
    ("retention.bytes", "-1"),
    ("retention.ms", "-1"),
)


def write_audit(connection: Connection, admin: AdminClient, key: str, record: bytes) -> None:
    """Append one audit record (creating the audit topic if it does not exist yet)."""
    request = NewTopicRequest(AUDIT_TOPIC, 1, None, _AUDIT_CONFIG)
    failure = create_topics(connection, admin, [request])[AUDIT_TOPIC]
    if failure is not None and failure.code != "TOPIC_ALREADY_EXISTS":
        raise ClusterError(
            f"could not create the audit topic {AUDIT_TOPIC} on cluster '{connection.name}': "
            f"{failure}"
        )
    produce(connection, AUDIT_TOPIC, key, record)


def read_audit(connection: Connection, wait: float) -> list[bytes]:
    """Every audit record so far, oldest first."""
    return all_records(connection, AUDIT_TOPIC, wait)
