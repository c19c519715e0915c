"""The per-cluster apply lock: a topic on the cluster itself, so runners on any machine see it.

Taking the lock is one CreateTopics request for `_reconciler_lock`: the KRaft controller
creates a topic atomically, so of two runners exactly one gets it and the other gets
TOPIC_ALREADY_EXISTS. The request carries the taker's random token as the topic's
`segment.jitter.ms` (a harmless numeric config), so the topic itself says whose it is: a create
that timed out on the client side, or an "already exists" answer to a retry of our own create,
is resolved by reading the token back (DescribeConfigs), never guessed.

The holder then appends who it is (a JSON record) and, while it applies, heartbeats (more
records). The topic uses LogAppendTime, so record timestamps are the broker's clock. Releasing
is deleting the topic, and only when the token is still ours.
"""

from __future__ import annotations

import time

from confluent_kafka.admin import AdminClient, ResourceType

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.read import describe_configs
from reconciler.cluster.adapter.records import offsets, produce, records
from reconciler.cluster.adapter.write import create_topics, delete_topics
from reconciler.cluster.protocol.answers import Record
from reconciler.cluster.protocol.authorized import refused
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.protocol.reserved import LOCK_TOPIC, TOKEN_KEY
from reconciler.errors import ClusterError


def try_lock(
    connection: Connection, admin: AdminClient, token: int, replicas: int, attempts: int = 5
) -> bool:
    """Create the lock topic carrying `token`; True when the lock is ours, False when another
    token holds it. A create whose answer is lost is resolved by reading the token back."""
    request = NewTopicRequest(
        LOCK_TOPIC,
        1,
        replicas,
        (
            ("cleanup.policy", "delete"),
            (TOKEN_KEY, str(token)),
            ("message.timestamp.type", "LogAppendTime"),
            ("min.insync.replicas", "1"),  # heartbeats go on while one broker is down
        ),
    )
    for _ in range(attempts):
        failure = create_topics(connection, admin, [request])[LOCK_TOPIC]
        if failure is None:
            return True
        if failure.code not in ("TOPIC_ALREADY_EXISTS", "TIMED_OUT"):
            denied = refused(
                connection, failure.code, "Create", f"topic {LOCK_TOPIC}", "take the apply lock"
            )
            raise ClusterError(
                denied
                or f"could not take the apply lock (create topic {LOCK_TOPIC}) on cluster "
                f"'{connection.name}' at {connection.bootstrap}: {failure}"
            )
        holder = settled_token(connection, admin, connection.seconds)
        if holder is not None:
            return holder == token
        # The topic is not there (our create was lost, or its holder released it): ask again
    raise ClusterError(
        f"could not take the apply lock (create topic {LOCK_TOPIC}) on cluster "
        f"'{connection.name}' at {connection.bootstrap}: the controller answered neither "
        f"with the topic nor with its absence after {attempts} attempts"
    )


def settled_token(connection: Connection, admin: AdminClient, wait: float) -> int | None:
    """The lock topic's token, polling up to `wait` seconds for a create the controller may
    still be making visible; None when the topic is absent all that time."""
    deadline = time.monotonic() + wait
    while True:
        try:
            token = lock_token(connection, admin)
        except ClusterError:
            if time.monotonic() >= deadline:
                raise
            token = None  # a loaded cluster may time this read out too: ask again
        if token is not None or time.monotonic() >= deadline:
            return token
        time.sleep(0.25)


def lock_token(connection: Connection, admin: AdminClient) -> int | None:
    """The token of whoever holds the lock now; None if the lock topic does not exist. A lock
    topic without a token (made by an older reconciler) reads as token -1."""
    found = describe_configs(connection, admin, ResourceType.TOPIC, [LOCK_TOPIC])
    entries = found.get(LOCK_TOPIC)
    if entries is None:
        return None
    entry = entries.get(TOKEN_KEY)
    value = entry.value if entry is not None and not entry.is_default else None
    return int(value) if value is not None and value.isdigit() else -1


def append(connection: Connection, record: bytes, timeout: float | None = None) -> None:
    """Append a record (the holder's, a heartbeat) to the lock topic (acks=all)."""
    produce(connection, LOCK_TOPIC, "holder", record, timeout)


def lock_records(connection: Connection, wait: float) -> list[Record]:
    """The lock topic's records, oldest first: the holder's record, then its heartbeats."""
    low, high = offsets(connection, LOCK_TOPIC)
    return records(connection, LOCK_TOPIC, low, high, wait)


def lock_end(connection: Connection) -> int:
    """The lock topic's end offset: it moves while the holder heartbeats."""
    return offsets(connection, LOCK_TOPIC)[1]


def release_lock(
    connection: Connection, admin: AdminClient, token: int | None, created: bool = False
) -> bool:
    """Delete the lock topic if it still carries `token` (None: whoever holds it); False when
    it carries another one (it is not ours to delete). A lock already gone is fine. `created`:
    the caller's own create of it was just acknowledged, and the broker asked may not show it
    yet (the controller answers first): wait for it to show rather than take it for gone,
    which left the lock behind for the next apply to meet."""
    held = (
        settled_token(connection, admin, connection.seconds)
        if created
        else lock_token(connection, admin)
    )
    if held is None:
        return True
    if token is not None and held != token:
        return False
    failure = delete_topics(connection, admin, [LOCK_TOPIC])[LOCK_TOPIC]
    if failure is not None and failure.code != "UNKNOWN_TOPIC_OR_PART":
        raise ClusterError(
            f"could not release the apply lock (delete topic {LOCK_TOPIC}) on cluster "
            f"'{connection.name}' at {connection.bootstrap}: {failure}; delete it by hand once "
            "no apply runs"
        )
    _until_gone(connection, admin, held)
    return True


def _until_gone(connection: Connection, admin: AdminClient, deleted: int) -> None:
    """Until the broker this client asks no longer shows the deleted lock (bounded by the
    request timeout). The controller acknowledges a delete before the brokers have applied it,
    so a read right after the release (the holder confirming its lease, an apply taking the
    lock anew) could still meet the old topic and its token."""
    deadline = time.monotonic() + connection.seconds
    pause = 0.05
    while lock_token(connection, admin) == deleted and time.monotonic() < deadline:
        # Backing off: brokers busy with a large apply's metadata (10,000 new partitions) show
        # the deletion only after seconds, and a fixed 50 ms poll asked ~6 times a second for
        # all that time (measured: 700+ DescribeConfigs within one apply of 10,000 creates).
        time.sleep(pause)
        pause = min(2 * pause, 1.0)
