"""Mutations: one Kafka request per call, whatever the number of topics it carries.

    create_topics         CreateTopics (optionally validate_only)
    alter_topic_configs   IncrementalAlterConfigs (SET and DELETE per key; optionally validate_only)
    create_partitions     CreatePartitions (optionally validate_only); counts are absolute (KIP-195)
    delete_topics         DeleteTopics
    alter_reassignments   AlterPartitionReassignments (KIP-455, kafka-python)

Per-item results are `Failure` values (Kafka's error name and message) or None for success;
turning them into sentences is the apply step's business. Splitting work into requests (Kafka's
10,000 partitions per request) is the caller's: each call here sends exactly one request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigResource,
    NewPartitions,
    NewTopic,
    ResourceType,
)
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.connect import Connection, reason
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import (
    ConfigUpdate,
    NewTopicRequest,
    PartitionsRequest,
    Replicas,
)

if TYPE_CHECKING:
    from kafka import TopicPartition
    from kafka.admin import KafkaAdminClient
    from kafka.errors import BrokerResponseError
    from kafka.errors import KafkaError as KafkaPythonError


def create_topics(
    connection: Connection,
    admin: AdminClient,
    topics: Sequence[NewTopicRequest],
    validate_only: bool = False,
) -> dict[str, Failure | None]:

    if not topics:
        return {}
    with boundary.librdkafka(connection, "CreateTopics", mutation=not validate_only):
        futures = admin.create_topics(
            [_new_topic(connection, t) for t in topics],
            operation_timeout=connection.seconds,
            request_timeout=connection.seconds,
            validate_only=validate_only,
        )
    return _results(connection, "CreateTopics", futures, not validate_only)


@boundary.calls("CreateTopics", "confluent-kafka")
def _new_topic(connection: Connection, t: NewTopicRequest) -> NewTopic:
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
    connection: Connection,
    admin: AdminClient,
    updates: Sequence[ConfigUpdate],
    validate_only: bool = False,
) -> dict[str, Failure | None]:
    if not updates:
        return {}
    resources = []
    request = "IncrementalAlterConfigs"
    for update in updates:
        with boundary.librdkafka(connection, request):
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
    with boundary.librdkafka(connection, request, mutation=not validate_only):
        futures = admin.incremental_alter_configs(
            resources, request_timeout=connection.seconds, validate_only=validate_only
        )
        by_topic = {resource.name: future for resource, future in futures.items()}
    return _results(connection, request, by_topic, not validate_only)


def create_partitions(
    connection: Connection,
    admin: AdminClient,
    requests: Sequence[PartitionsRequest],
    validate_only: bool = False,
) -> dict[str, Failure | None]:
    if not requests:
        return {}
    with boundary.librdkafka(connection, "CreatePartitions", mutation=not validate_only):
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
    return _results(connection, "CreatePartitions", futures, not validate_only)


def delete_topics(
    connection: Connection, admin: AdminClient, names: Sequence[str]
) -> dict[str, Failure | None]:
    if not names:
        return {}
    with boundary.librdkafka(connection, "DeleteTopics", mutation=True):
        futures = admin.delete_topics(
            list(names), operation_timeout=connection.seconds, request_timeout=connection.seconds
        )
    return _results(connection, "DeleteTopics", futures, True)


def alter_reassignments(
    connection: Connection,
    admin: KafkaAdminClient,
    targets: Mapping[tuple[str, int], Replicas | None],
) -> dict[tuple[str, int], Failure | None]:
    """Start KIP-455 reassignments: (topic, partition) -> the target replica list, or None to
    cancel the one in progress (Kafka puts the partition back on its original replicas)."""
    if not targets:
        return {}
    from kafka import TopicPartition
    from kafka.errors import KafkaError as KafkaPythonError

    name = "AlterPartitionReassignments"
    with boundary.kafka_python(connection, name, admin):
        request: dict[TopicPartition, Sequence[int] | None] = {
            TopicPartition(t, p): None if replicas is None else list(replicas)
            for (t, p), replicas in targets.items()
        }
    try:
        with boundary.kafka_python(connection, name, admin, mutation=True):
            answered = admin.alter_partition_reassignments(request, timeout_ms=connection.millis)
    except KafkaPythonError as exc:
        return dict.fromkeys(targets, _python_failure(exc))
    results: dict[tuple[str, int], Failure | None] = {}
    for key in targets:
        with boundary.kafka_python(connection, name, admin, mutation=True):
            tp = TopicPartition(*key)
        if tp not in answered:
            results[key] = Failure("UNKNOWN_SERVER_ERROR", "the controller did not answer for it")
            continue
        error = answered[tp]
        results[key] = None if error is None else _python_failure(error)
    return results


def _results(
    connection: Connection, request: str, futures: Mapping[str, Future[Any]], mutation: bool
) -> dict[str, Failure | None]:
    results: dict[str, Failure | None] = {}
    for name, future in futures.items():
        try:
            with boundary.librdkafka(connection, request, mutation=mutation):
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


def _python_failure(error: type[BrokerResponseError] | KafkaPythonError) -> Failure:
    """kafka-python reports error classes (per partition) or raises instances (whole request)."""
    from kafka.errors import BrokerResponseError
    from kafka.errors import KafkaError as KafkaPythonError

    if isinstance(error, KafkaPythonError):
        named = error.message if isinstance(error, BrokerResponseError) else None
        code, detail = named or type(error).__name__, str(error)
    else:
        code, detail = error.message or error.__name__, error.description or ""
    if "TIMED_OUT" in code.upper() or "Timeout" in code:  # REQUEST_TIMED_OUT, KafkaTimeoutError
        code = "TIMED_OUT"
    return Failure(code, detail)
