"""Mutations: one Kafka request per call, whatever the number of topics it carries.

    create_topics         CreateTopics (optionally validate_only)
    alter_topic_configs   IncrementalAlterConfigs (SET and DELETE per key)
    create_partitions     CreatePartitions (optionally validate_only); counts are absolute (KIP-195)
    delete_topics         DeleteTopics
    alter_reassignments   AlterPartitionReassignments (KIP-455, kafka-python)
    reassigning           ListPartitionReassignments for some partitions (kafka-python)
    observe               Metadata + DescribeConfigs for some topics: what the brokers show now

Per-item results are `Failure` values (Kafka's error name and message) or None for success;
turning them into sentences is the apply step's business. Splitting work into requests (Kafka's
10,000 partitions per request) is the caller's: each call here sends exactly one request.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicCollection,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import (
    AlterConfigOpType,
    ConfigResource,
    ConfigSource,
)
from confluent_kafka.admin._config import ConfigEntry as KafkaConfigEntry
from confluent_kafka.admin._resource import ResourceType
from confluent_kafka.cimpl import NewPartitions, NewTopic
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError as KafkaPythonError

from reconciler.cluster.adapter.connect import Connection, error_code, reason
from reconciler.cluster.adapter.read import describe_configs, list_reassignments
from reconciler.errors import ClusterError

Replicas = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Failure:
    """Why Kafka refused one item of a request."""

    code: str  # Kafka's error name (TOPIC_ALREADY_EXISTS, ...); TIMED_OUT for client timeouts
    detail: str  # Kafka's own message

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}" if self.detail else self.code


@dataclass(frozen=True, slots=True)
class NewTopicRequest:
    name: str
    partitions: int | None  # None: the controller's num.partitions (KIP-464)
    replication_factor: int | None  # None: default.replication.factor (KIP-464)
    config: tuple[tuple[str, str], ...] = ()
    assignments: tuple[Replicas, ...] | None = None


@dataclass(frozen=True, slots=True)
class ConfigUpdate:
    topic: str
    set: tuple[tuple[str, str], ...] = ()
    delete: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PartitionsRequest:
    topic: str
    total: int  # absolute count (KIP-195)
    assignments: tuple[Replicas, ...] | None = None  # for the new partitions only


@dataclass(frozen=True, slots=True)
class Observed:
    """What the brokers show for one topic: partitions with a leader, replicas, ISR, overrides."""

    partitions: int
    led: bool  # every partition has a leader
    replicas: tuple[Replicas, ...] = ()
    isr: tuple[Replicas, ...] = ()
    overrides: dict[str, str] = field(default_factory=dict)


def create_topics(
    connection: Connection,
    admin: AdminClient,
    topics: Sequence[NewTopicRequest],
    validate_only: bool = False,
) -> dict[str, Failure | None]:
    if not topics:
        return {}
    new = [_new_topic(t) for t in topics]
    futures = admin.create_topics(
        new,
        operation_timeout=connection.seconds,
        request_timeout=connection.seconds,
        validate_only=validate_only,
    )
    return _results(futures)


def _new_topic(t: NewTopicRequest) -> NewTopic:
    config = {str(k): str(v) for k, v in t.config}
    if t.assignments:
        # Manual placement: Kafka takes both counts from the assignment.
        return NewTopic(
            t.name,
            num_partitions=len(t.assignments),
            replica_assignment=[list(r) for r in t.assignments],
            config=config,
        )
    return NewTopic(
        t.name,
        num_partitions=t.partitions if t.partitions is not None else -1,
        replication_factor=t.replication_factor if t.replication_factor is not None else -1,
        config=config,
    )


def alter_topic_configs(
    connection: Connection, admin: AdminClient, updates: Sequence[ConfigUpdate]
) -> dict[str, Failure | None]:
    if not updates:
        return {}
    resources = []
    for update in updates:
        entries = [
            KafkaConfigEntry(key, str(value), incremental_operation=AlterConfigOpType.SET)
            for key, value in update.set
        ] + [
            KafkaConfigEntry(key, None, incremental_operation=AlterConfigOpType.DELETE)
            for key in update.delete
        ]
        resources.append(
            ConfigResource(ResourceType.TOPIC, update.topic, incremental_configs=entries)
        )
    futures = admin.incremental_alter_configs(resources, request_timeout=connection.seconds)
    return _results({resource.name: future for resource, future in futures.items()})


def create_partitions(
    connection: Connection,
    admin: AdminClient,
    requests: Sequence[PartitionsRequest],
    validate_only: bool = False,
) -> dict[str, Failure | None]:
    if not requests:
        return {}
    new = [
        NewPartitions(r.topic, r.total, [list(a) for a in r.assignments])
        if r.assignments
        else NewPartitions(r.topic, r.total)
        for r in requests
    ]
    futures = admin.create_partitions(
        new,
        operation_timeout=connection.seconds,
        request_timeout=connection.seconds,
        validate_only=validate_only,
    )
    return _results(futures)


def delete_topics(
    connection: Connection, admin: AdminClient, names: Sequence[str]
) -> dict[str, Failure | None]:
    if not names:
        return {}
    futures = admin.delete_topics(
        list(names), operation_timeout=connection.seconds, request_timeout=connection.seconds
    )
    return _results(futures)


def alter_reassignments(
    connection: Connection, targets: dict[tuple[str, int], Replicas]
) -> dict[tuple[str, int], Failure | None]:
    """Start KIP-455 reassignments: (topic, partition) -> the target replica list."""
    if not targets:
        return {}
    request = {TopicPartition(t, p): list(replicas) for (t, p), replicas in targets.items()}
    try:
        with connection.reassignments_admin() as admin:
            answered = admin.alter_partition_reassignments(
                request, timeout_ms=int(connection.seconds * 1000)
            )
    except KafkaPythonError as exc:
        failure = _python_failure(exc)
        return dict.fromkeys(targets, failure)
    results: dict[tuple[str, int], Failure | None] = {}
    for key in targets:
        error = answered.get(TopicPartition(*key), "missing")
        if error is None:
            results[key] = None
        elif error == "missing":
            results[key] = Failure("UNKNOWN_SERVER_ERROR", "the controller did not answer for it")
        else:
            results[key] = _python_failure(error)
    return results


def reassigning(
    connection: Connection, topics: Iterable[str], admin: KafkaAdminClient | None = None
) -> dict[tuple[str, int], Any]:
    """Reassignments in progress on these topics (see read.list_reassignments)."""
    wanted = set(topics)
    return {k: v for k, v in list_reassignments(connection, admin).items() if k[0] in wanted}


def observe(
    connection: Connection,
    admin: AdminClient,
    names: Sequence[str],
    configs: bool = False,
) -> dict[str, Observed | None]:
    """One Metadata request (and with `configs`, one DescribeConfigs) for these topics.

    None for a topic the brokers do not know (not yet created, or deleted).
    """
    if not names:
        return {}
    futures = admin.describe_topics(
        TopicCollection(list(names)), request_timeout=connection.seconds
    )
    seen: dict[str, Observed | None] = {}
    for name, future in futures.items():
        try:
            description = future.result()
        except KafkaException as exc:
            if error_code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                seen[name] = None
                continue
            raise connection.error(f"describe topic '{name}' of", exc) from exc
        partitions = sorted(description.partitions, key=lambda p: p.id)
        seen[name] = Observed(
            partitions=len(partitions),
            led=all(p.leader is not None and p.leader.id >= 0 for p in partitions),
            replicas=tuple(tuple(int(n.id) for n in p.replicas) for p in partitions),
            isr=tuple(tuple(int(n.id) for n in p.isr) for p in partitions),
        )
    if configs:
        present = [name for name, o in seen.items() if o is not None]
        for name, overrides in _overrides(connection, admin, present).items():
            found = seen[name]
            if found is not None:
                seen[name] = Observed(
                    found.partitions, found.led, found.replicas, found.isr, overrides
                )
    return seen


def _overrides(
    connection: Connection, admin: AdminClient, names: Sequence[str]
) -> dict[str, dict[str, str]]:
    """Each topic's own overrides (DYNAMIC_TOPIC_CONFIG entries), by name."""
    own = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    return {
        name: {k: e.value for k, e in entries.items() if e.source == own and e.value is not None}
        for name, entries in describe_configs(
            connection, admin, ResourceType.TOPIC, list(names)
        ).items()
    }


def _results(futures: dict[str, Future[Any]]) -> dict[str, Failure | None]:
    results: dict[str, Failure | None] = {}
    for name, future in futures.items():
        try:
            future.result()
        except KafkaException as exc:
            results[name] = _failure(exc)
        else:
            results[name] = None
    return results


def _failure(exc: KafkaException) -> Failure:
    error = exc.args[0] if exc.args else None
    if isinstance(error, KafkaError):
        name = error.name()
        if name in ("_TIMED_OUT", "REQUEST_TIMED_OUT", "_TIMED_OUT_QUEUE"):
            name = "TIMED_OUT"
        return Failure(name.lstrip("_"), error.str())
    return Failure("UNKNOWN", reason(exc))


def _python_failure(error: Any) -> Failure:
    """kafka-python reports error classes (per partition) or raises instances (whole request)."""
    name = getattr(error, "message", None) or type(error).__name__
    detail = getattr(error, "description", "") or ""
    if isinstance(error, BaseException) and str(error):
        detail = str(error)
    if "TIMED_OUT" in str(name).upper() or "Timeout" in str(name):
        name = "TIMED_OUT"
    return Failure(str(name), str(detail))


def _client_conf(connection: Connection) -> dict[str, Any]:
    conf: dict[str, Any] = {"bootstrap.servers": connection.bootstrap, "client.id": "reconciler"}
    conf.update(dict(connection.client))
    return conf


def produce(connection: Connection, topic: str, key: str, value: bytes) -> None:
    """Write one record and wait until every in-sync replica has it (acks=all)."""
    conf = _client_conf(connection)
    conf.update(
        {
            "acks": "all",
            "message.timeout.ms": int(connection.seconds * 1000),
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
        consumer.assign([KafkaTopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            value = message.value()
            return value if isinstance(value, bytes) else None
        return None
    finally:
        consumer.close()


def all_records(connection: Connection, topic: str, wait: float) -> list[bytes]:
    """Every record value of partition 0 of `topic` up to its current end."""
    conf = _client_conf(connection)
    conf.update({"group.id": "reconciler-reader", "enable.auto.commit": False})
    consumer = Consumer(conf)
    values: list[bytes] = []
    try:
        partition = KafkaTopicPartition(topic, 0)
        low, high = consumer.get_watermark_offsets(partition, timeout=connection.seconds)
        if high <= low:
            return values
        consumer.assign([KafkaTopicPartition(topic, 0, low)])
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            value = message.value()
            if isinstance(value, bytes):
                values.append(value)
            if message.offset() is not None and (message.offset() or 0) >= high - 1:
                break
        return values
    finally:
        consumer.close()
