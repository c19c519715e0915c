"""The per-cluster apply lock: a topic on the cluster itself, so runners on any machine see it.

Taking the lock is one CreateTopics request for `_reconciler_lock`: the KRaft controller
creates a topic atomically, so of two runners exactly one gets it and the other gets
TOPIC_ALREADY_EXISTS. The holder then writes who it is (a JSON record) to the topic; readers
take the first record. Releasing is deleting the topic.
"""

from __future__ import annotations

from confluent_kafka.admin import AdminClient

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.records import first_record, produce
from reconciler.cluster.adapter.values import NewTopicRequest
from reconciler.cluster.adapter.write import create_topics, delete_topics
from reconciler.errors import ClusterError

LOCK_TOPIC = "_reconciler_lock"


def try_lock(connection: Connection, admin: AdminClient, holder: bytes) -> bool:
    """Create the lock topic and record `holder` in it; False if someone else holds it."""
    request = NewTopicRequest(LOCK_TOPIC, 1, None, (("cleanup.policy", "delete"),))
    failure = create_topics(connection, admin, [request])[LOCK_TOPIC]
    if failure is not None and failure.code == "TOPIC_ALREADY_EXISTS":
        return False
    if failure is not None:
        raise ClusterError(
            f"could not take the apply lock (create topic {LOCK_TOPIC}) on cluster "
            f"'{connection.name}' at {connection.bootstrap}: {failure}"
        )
    produce(connection, LOCK_TOPIC, "holder", holder)
    return True


def lock_holder(connection: Connection, wait: float) -> bytes | None:
    """The holder record of the lock, or None if the topic has none (yet)."""
    return first_record(connection, LOCK_TOPIC, wait)


def release_lock(connection: Connection, admin: AdminClient) -> None:
    """Delete the lock topic; a lock already gone is fine."""
    failure = delete_topics(connection, admin, [LOCK_TOPIC])[LOCK_TOPIC]
    if failure is not None and failure.code != "UNKNOWN_TOPIC_OR_PART":
        raise ClusterError(
            f"could not release the apply lock (delete topic {LOCK_TOPIC}) on cluster "
            f"'{connection.name}' at {connection.bootstrap}: {failure}; delete it by hand once "
            "no apply runs"
        )
