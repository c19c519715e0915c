"""Single records on the cluster's own topics (the apply lock's holder, the audit log): written
with acks=all, read back from the beginning of partition 0.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from reconciler.cluster.adapter.connect import DEFAULT_CLIENT_ID, Connection, reason
from reconciler.errors import ClusterError

Conf = dict[str, str | int | float | bool]  # librdkafka properties


def _client_conf(connection: Connection) -> Conf:
    conf: Conf = {"bootstrap.servers": connection.bootstrap, "client.id": DEFAULT_CLIENT_ID}
    conf.update(dict(connection.client))
    return conf


def produce(connection: Connection, topic: str, key: str, value: bytes) -> None:
    """Write one record and wait until every in-sync replica has it (acks=all)."""
    conf = _client_conf(connection)
    conf.update(
        {
            "acks": "all",
            "message.timeout.ms": connection.millis,
            # An audit record of 10,000 changes is a few MiB of JSON; zstd makes it ~10x smaller.
            "compression.type": "zstd",
            "message.max.bytes": 64 * 1024 * 1024,
        }
    )
    producer = Producer(conf)
    delivered: list[KafkaError | None] = []
    try:
        producer.produce(
            topic,
            value=value,
            key=key.encode(),
            on_delivery=lambda err, _msg: delivered.append(err),
        )
    except (KafkaException, BufferError) as exc:
        raise ClusterError(
            f"could not write to topic {topic} of cluster '{connection.name}': {reason(exc)}"
        ) from exc
    producer.flush(connection.seconds + 5)
    error = delivered[0] if delivered else None
    if not delivered or error is not None:
        why = f"{error.name()}: {error.str()}" if error is not None else "no acknowledgement"
        raise ClusterError(
            f"could not write to topic {topic} of cluster '{connection.name}' at "
            f"{connection.bootstrap}: {why}"
        )


def first_record(connection: Connection, topic: str, wait: float) -> bytes | None:
    """The value of the first record of partition 0 of `topic`, or None if none comes in time."""
    found = _read(connection, topic, OFFSET_BEGINNING, None, wait, limit=1)
    return found[0] if found else None


def all_records(connection: Connection, topic: str, wait: float) -> list[bytes]:
    """Every record value of partition 0 of `topic` up to its current end."""
    with _consumer(connection) as consumer:
        partition = KafkaTopicPartition(topic, 0)
        low, high = consumer.get_watermark_offsets(partition, timeout=connection.seconds)
    if high <= low:
        return []
    return _read(connection, topic, low, high - 1, wait)


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
    consumer = Consumer(conf)
    try:
        yield consumer
    finally:
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
    with _consumer(connection) as consumer:
        consumer.assign([KafkaTopicPartition(topic, 0, start)])
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            value = message.value()
            if isinstance(value, bytes):
                values.append(value)
            offset = message.offset()
            if (limit is not None and len(values) >= limit) or (
                last is not None and offset is not None and offset >= last
            ):
                break
    return values
