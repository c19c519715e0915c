"""The audit topic: the apply journal's records, kept for as long as the cluster lives.

`_reconciler_audit` has one partition (records stay in apply order), no compaction and no time
or size limit, so every apply ever made can be read back. It is made ready (created, replicated
where the cluster has brokers for it, its leader known to the brokers) before an apply's first
record: a record produced in the same breath as the create times out waiting for metadata.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from confluent_kafka.admin import AdminClient

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.read import read_topics
from reconciler.cluster.adapter.records import all_records, offsets, produce_all, records
from reconciler.cluster.adapter.write import create_topics
from reconciler.cluster.protocol.answers import Record
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC
from reconciler.errors import ClusterError

MAX_RECORD_BYTES = 16 * 1024 * 1024
_AUDIT_CONFIG = (
    ("cleanup.policy", "delete"),
    ("max.message.bytes", str(MAX_RECORD_BYTES)),
    ("retention.bytes", "-1"),
    ("retention.ms", "-1"),
    ("min.insync.replicas", "1"),  # the journal goes on while one broker is down
)


def ensure_audit_topic(connection: Connection, admin: AdminClient, replicas: int) -> None:
    """Create the audit topic if it does not exist, then wait until the brokers show it with a
    leader (bounded by twice the request timeout); raises ClusterError otherwise."""
    ensure_topic(connection, admin, NewTopicRequest(AUDIT_TOPIC, 1, replicas, _AUDIT_CONFIG))


def ensure_topic(connection: Connection, admin: AdminClient, request: NewTopicRequest) -> None:
    """Create one of reconciler's own topics if it does not exist, then wait until the brokers
    show it with a leader (bounded by twice the request timeout); raises ClusterError
    otherwise."""
    name = request.name
    failure = create_topics(connection, admin, [request])[name]
    if failure is not None and failure.code not in ("TOPIC_ALREADY_EXISTS", "TIMED_OUT"):
        raise ClusterError(
            f"could not create the topic {name} on cluster '{connection.name}': {failure}"
        )
    deadline = time.monotonic() + 2 * connection.seconds
    while True:
        shown = read_topics(connection, admin, [name], configs=False).get(name)
        if shown is not None and shown.led:
            return
        if time.monotonic() >= deadline:
            raise ClusterError(
                f"the topic {name} of cluster '{connection.name}' at "
                f"{connection.bootstrap} has no leader after {2 * connection.seconds:.0f} s"
            )
        time.sleep(0.25)


def write_audit(connection: Connection, key: str, values: Sequence[bytes]) -> None:
    """Append audit records in order, each acknowledged by every in-sync replica."""
    produce_all(connection, AUDIT_TOPIC, key, values)


def audit_offsets(connection: Connection) -> tuple[int, int]:
    """The audit topic's first and end offsets ((0, 0) when it does not exist yet)."""
    return offsets(connection, AUDIT_TOPIC)


def audit_records(connection: Connection, start: int, end: int, wait: float) -> list[Record]:
    """The audit records at offsets [start, end)."""
    return records(connection, AUDIT_TOPIC, start, end, wait)


def read_audit(connection: Connection, wait: float) -> list[bytes]:
    """Every audit record so far, oldest first."""
    return all_records(connection, AUDIT_TOPIC, wait)
