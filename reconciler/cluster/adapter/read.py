"""Reading a cluster's whole state in a fixed number of round trips, whatever its topic count.

    1. DescribeCluster                  brokers, racks, controller, cluster id
    2. Metadata (all topics)            the topic names
    3. Metadata (those names)           partitions, replicas, ISR, leaders, topic ids, internal flag
    4. DescribeConfigs (all topics)     every topic's configs with their sources
    5. DescribeConfigs (one broker)     the values topics inherit, KIP-464 defaults
    6. ListPartitionReassignments       in-progress KIP-455 reassignments (kafka-python)

plus each client's connection set-up (ApiVersions, a bootstrap Metadata). Peer tools send one
or more requests per topic; tests/cluster/test_round_trips.py counts ours on a real broker.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import ConfigResource, ConfigSource
from confluent_kafka.admin._resource import ResourceType
from confluent_kafka.admin._topic import TopicDescription
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError as KafkaPythonError

from reconciler.cluster.adapter.connect import Connection, error_code
from reconciler.cluster.adapter.describe import describe
from reconciler.cluster.state import (
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    TopicState,
)

# ConfigSource by number: one dict lookup instead of an Enum call per config entry (440,000
# entries for 11,000 topics).
_SOURCES = {int(source.value): source.name for source in ConfigSource}


def read_state(connection: Connection) -> ClusterState:
    """The cluster's state as frozen values; a ClusterError names the cluster when it fails."""
    admin = connection.admin()
    description = describe(connection, admin)
    brokers = tuple(BrokerState(b.id, b.host, b.port, b.rack) for b in description.brokers)
    names = _topic_names(connection, admin)
    described = _describe_topics(connection, admin, names)
    configs, broker_defaults = _describe_configs(
        connection, admin, sorted(described), brokers[0].id if brokers else None
    )
    topics = {
        name: _topic_state(description, configs.get(name, ()))
        for name, description in described.items()
    }
    return ClusterState(
        cluster_id=description.cluster_id,
        controller_id=description.controller_id,
        brokers=brokers,
        topics=dict(sorted(topics.items())),
        broker_defaults=broker_defaults,
        reassignments=_reassignments(connection),
    )


def _topic_names(connection: Connection, admin: AdminClient) -> list[str]:
    try:
        metadata = admin.list_topics(timeout=connection.seconds)
    except KafkaException as exc:
        raise connection.error("list the topics of", exc) from exc
    return sorted(metadata.topics)


def _describe_topics(
    connection: Connection, admin: AdminClient, names: list[str]
) -> dict[str, TopicDescription]:
    if not names:
        return {}
    futures = admin.describe_topics(TopicCollection(names), request_timeout=connection.seconds)
    described: dict[str, TopicDescription] = {}
    for name, future in futures.items():
        try:
            described[name] = future.result()
        except KafkaException as exc:
            if error_code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue  # deleted since it was listed: it is not part of the state
            raise connection.error(f"describe topic '{name}' of", exc) from exc
    return described


def _describe_configs(
    connection: Connection, admin: AdminClient, names: list[str], broker_id: int | None
) -> tuple[dict[str, tuple[tuple[str, ConfigEntry], ...]], dict[str, str]]:
    """All topics' configs in one DescribeConfigs request, and one broker's in another.

    Kept apart on purpose: librdkafka sends a request holding a BROKER resource to that very
    broker, topics included; measured on 11,000 topics, pinning the big request to one broker
    (here the KRaft controller) made it up to 15 times slower than letting librdkafka choose.
    """
    # Most entries repeat from topic to topic (every inherited default has the same value and
    # source), so equal entries share one frozen ConfigEntry and keys are interned: 10,000
    # topics carry ~330,000 entries but only a few hundred distinct ones.
    shared: dict[tuple[str | None, int, bool], ConfigEntry] = {}

    def entry(e: Any) -> ConfigEntry:
        found = shared.get((e.value, e.source, e.is_sensitive))
        if found is None:
            source = _SOURCES.get(e.source, "UNKNOWN_CONFIG")
            found = ConfigEntry(e.value, source, bool(e.is_sensitive))
            shared[(e.value, e.source, e.is_sensitive)] = found
        return found

    topics = {
        name: tuple((sys.intern(key), entry(e)) for key, e in sorted(entries.items()))
        for name, entries in describe_configs(connection, admin, ResourceType.TOPIC, names).items()
    }
    if broker_id is None:
        return topics, {}
    broker = describe_configs(connection, admin, ResourceType.BROKER, [str(broker_id)])
    defaults = {
        key: e.value
        for key, e in sorted(broker.get(str(broker_id), {}).items())
        if e.value is not None
    }
    return topics, defaults


def describe_configs(
    connection: Connection, admin: AdminClient, kind: ResourceType, names: list[str]
) -> dict[str, dict[str, Any]]:
    """One DescribeConfigs request for these resources: name -> {key: librdkafka ConfigEntry}."""
    if not names:
        return {}
    resources = [ConfigResource(kind, name) for name in names]
    futures = admin.describe_configs(resources, request_timeout=connection.seconds)
    found: dict[str, dict[str, Any]] = {}
    for resource, future in futures.items():
        try:
            found[resource.name] = future.result()
        except KafkaException as exc:
            if error_code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue  # deleted since it was listed: it is not part of the state
            raise connection.error(f"describe the configs of {resource.name} on", exc) from exc
    return found


def _topic_state(
    description: TopicDescription, configs: tuple[tuple[str, ConfigEntry], ...]
) -> TopicState:
    partitions = tuple(
        sorted(
            (
                PartitionState(
                    partition=p.id,
                    leader=p.leader.id if p.leader is not None and p.leader.id >= 0 else None,
                    replicas=_ids(p.replicas),
                    isr=_ids(p.isr),
                )
                for p in description.partitions
            ),
            key=lambda p: p.partition,
        )
    )
    topic_id = str(description.topic_id) if description.topic_id is not None else None
    return TopicState(
        name=description.name,
        internal=bool(description.is_internal),
        partitions=partitions,
        configs=configs,
        topic_id=topic_id,
    )


def _reassignments(connection: Connection) -> tuple[Reassignment, ...]:
    return tuple(
        Reassignment(
            topic=topic,
            partition=partition,
            replicas=tuple(moving["replicas"]),
            adding=tuple(moving["adding_replicas"]),
            removing=tuple(moving["removing_replicas"]),
        )
        for (topic, partition), moving in sorted(list_reassignments(connection).items())
    )


def list_reassignments(
    connection: Connection, admin: KafkaAdminClient | None = None
) -> dict[tuple[str, int], Any]:
    """KIP-455 reassignments in progress, (topic, partition) -> kafka-python's replicas,
    adding_replicas and removing_replicas lists: kafka-python, since librdkafka lacks the API.

    Pass `admin` (from `connection.reassignments_admin()`) when polling, so each poll costs one
    request rather than a new client's connection set-up.
    """
    timeout_ms = int(connection.seconds * 1000)
    try:
        if admin is not None:
            listed = admin.list_partition_reassignments(timeout_ms=timeout_ms)
        else:
            with connection.reassignments_admin() as own:
                listed = own.list_partition_reassignments(timeout_ms=timeout_ms)
    except KafkaPythonError as exc:
        raise connection.error("list the partition reassignments of", exc) from exc
    return {(tp.topic, tp.partition): moving for tp, moving in listed.items()}


def _ids(nodes: Iterable[Any]) -> tuple[int, ...]:
    return tuple(int(node.id) for node in nodes)  # librdkafka's Node
