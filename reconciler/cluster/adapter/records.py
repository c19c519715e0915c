"""Records on the cluster's own topics (the apply lock's holder and heartbeats, the audit log):
written with acks=all, read back from partition 0 with their offsets and timestamps.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from reconciler.cluster.adapter import boundary, client_security, msk_iam
from reconciler.cluster.adapter.connect import (
    DEFAULT_CLIENT_ID,
    LIBRDKAFKA_LOG,
    Connection,
    reason,
)
from reconciler.cluster.protocol.answers import Record
from reconciler.errors import ClusterError

Conf = dict[str, str | int | float | bool]  # librdkafka properties


def _client_conf(connection: Connection) -> Conf:
    conf: Conf = {"bootstrap.servers": connection.bootstrap, "client.id": DEFAULT_CLIENT_ID}
    conf.update(client_security.librdkafka_settings(connection.name, dict(connection.client)))
    if isinstance(tokens := connection.tokens(), msk_iam.Signer):
        tokens.into(conf)  # librdkafka signs no MSK IAM token itself
    return conf


def produce(
    connection: Connection, topic: str, key: str, value: bytes, timeout: float | None = None
) -> None:
    """Write one record and wait until every in-sync replica has it (acks=all)."""
    produce_all(connection, topic, key, [value], timeout)


def produce_all(
    connection: Connection,
    topic: str,
    key: str,
    values: Sequence[bytes],
    timeout: float | None = None,
) -> None:
    """Write `values` in order (idempotent producer: retries neither reorder nor duplicate)
    and wait until every in-sync replica has each; raises ClusterError unless all arrived.
    `timeout`: seconds to wait for the acknowledgements (default: the connection's)."""
    seconds = connection.seconds if timeout is None else timeout
    conf = _client_conf(connection)
    conf.update(
        {
            "acks": "all",
            "enable.idempotence": True,
            "message.timeout.ms": max(1, int(seconds * 1000)),
            # An audit record of 10,000 changes is a few MiB of JSON; zstd makes it ~10x smaller.
            "compression.type": "zstd",
            "message.max.bytes": 64 * 1024 * 1024,
        }
    )
    with boundary.librdkafka(connection, "Produce"):
        producer = Producer(conf, logger=LIBRDKAFKA_LOG)  # never librdkafka's own stderr
    delivered: list[KafkaError | None] = []
    try:
        with boundary.librdkafka(connection, "Produce", mutation=True):
            for value in values:
                producer.produce(
                    topic,
                    value=value,
                    key=key.encode(),
                    on_delivery=lambda err, _msg: delivered.append(err),
                )
                producer.poll(0)
    except (KafkaException, BufferError) as exc:
        raise ClusterError(
            f"could not write to topic {topic} of cluster '{connection.name}': {reason(exc)}"
        ) from exc
    with boundary.librdkafka(connection, "Produce", mutation=True):
        producer.flush(seconds + 5)
    error = next((e for e in delivered if e is not None), None)
    if len(delivered) < len(values) or error is not None:
        why = f"{error.name()}: {error.str()}" if error is not None else "no acknowledgement"
        raise ClusterError(
            f"could not write to topic {topic} of cluster '{connection.name}' at "
            f"{connection.bootstrap}: {why}"
        )


def all_records(connection: Connection, topic: str, wait: float) -> list[bytes]:
    """Every record value of partition 0 of `topic` up to its current end."""
    low, high = offsets(connection, topic)
    if high <= low:
        return []
    return _read(connection, topic, low, high - 1, wait)


def offsets(connection: Connection, topic: str) -> tuple[int, int]:
    """Partition 0's first offset and end offset ((0, 0) when the topic does not exist)."""
    with _consumer(connection) as consumer:
        try:
            with boundary.librdkafka(connection, "ListOffsets"):
                partition = KafkaTopicPartition(topic, 0)
                low, high = consumer.get_watermark_offsets(partition, timeout=connection.seconds)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if isinstance(error, KafkaError) and error.code() in (
                KafkaError.UNKNOWN_TOPIC_OR_PART,
                KafkaError._UNKNOWN_PARTITION,
                KafkaError._UNKNOWN_TOPIC,
            ):
                return 0, 0
            raise ClusterError(
                f"could not read the offsets of topic {topic} of cluster '{connection.name}' "
                f"at {connection.bootstrap}: {reason(exc)}"
            ) from exc
    return int(low), int(high)


def records(connection: Connection, topic: str, start: int, end: int, wait: float) -> list[Record]:
    """The records of partition 0 at offsets [start, end), with offsets and timestamps; fewer
    if they do not all arrive within `wait` seconds."""
    found: list[Record] = []
    if end <= start:
        return found
    for offset, timestamp, value in _messages(connection, topic, start, wait):
        if offset < end:
            found.append(Record(offset, timestamp, value))
        if offset >= end - 1:
            break
    return found


def _messages(
    connection: Connection, topic: str, start: int, wait: float
) -> Iterator[tuple[int, int, bytes]]:
    """(offset, timestamp, value) of partition 0's records from offset `start`, as they arrive
    within `wait` seconds; the caller stops early by breaking."""
    with _consumer(connection) as consumer:
        with boundary.librdkafka(connection, "Fetch"):
            consumer.assign([KafkaTopicPartition(topic, 0, start)])
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with boundary.librdkafka(connection, "Fetch"):
                message = consumer.poll(0.2)
                if message is None or message.error() is not None:
                    continue
                offset, value = message.offset(), message.value()
                stamp = message.timestamp()[1]
            if offset is not None and isinstance(value, bytes):
                yield offset, stamp, value


@contextlib.contextmanager
def _consumer(connection: Connection) -> Iterator[Consumer]:
    conf = _client_conf(connection)
    conf.update(
        {
            "group.id": "reconciler-reader",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",
        }
    )
    with boundary.librdkafka(connection, "setting up its consumer"):
        consumer = Consumer(conf, logger=LIBRDKAFKA_LOG)
    try:
        yield consumer
    finally:
        with boundary.librdkafka(connection, "closing its consumer"):
            consumer.close()


def _read(
    connection: Connection,
    topic: str,
    start: int,
    last: int | None,
    wait: float,
    limit: int | None = None,
) -> list[bytes]:
    """Record values of partition 0 from offset `start` until offset `last` (None: any), `limit`
    records, or `wait` seconds, whichever comes first."""
    values: list[bytes] = []
    for offset, _, value in _messages(connection, topic, start, wait):
        values.append(value)
        if (limit is not None and len(values) >= limit) or (last is not None and offset >= last):
            break
    return values


# A partition's last offsets may be transaction markers, which a consumer never returns, or
# gaps left by compaction: reading from this many offsets before the end finds a data record
_TAIL = 16


def last_timestamps(
    connection: Connection, ranges: dict[tuple[str, int], tuple[int, int]], wait: float
) -> tuple[dict[tuple[str, int], int], dict[tuple[str, int], str]]:
    """The newest timestamp among the last records of each (topic, partition) whose offsets
    span [earliest, end), read by one consumer (fetches batched per broker) within `wait`
    seconds; (found, why not found) by partition. Empty ranges are neither."""
    wanted = {key: span for key, span in ranges.items() if span[1] > span[0]}
    found: dict[tuple[str, int], int] = {}
    if not wanted:
        return found, {}
    with _consumer(connection) as consumer:
        with boundary.librdkafka(connection, "Fetch"):
            consumer.assign(
                [
                    KafkaTopicPartition(t, p, max(low, end - _TAIL))
                    for (t, p), (low, end) in wanted.items()
                ]
            )
        done: set[tuple[str, int]] = set()
        deadline = time.monotonic() + wait
        while len(done) < len(wanted) and time.monotonic() < deadline:
            with boundary.librdkafka(connection, "Fetch"):
                message = consumer.poll(0.2)
                if message is None or message.error() is not None:
                    continue
                key = (str(message.topic()), int(message.partition() or 0))
                offset = message.offset()
                if key not in wanted or offset is None:
                    continue
                found[key] = max(found.get(key, -1), message.timestamp()[1])
            if offset >= wanted[key][1] - 1:
                done.add(key)
    missing = {key: f"no record arrived within {wait:.0f} s" for key in wanted if key not in found}
    return found, missing
