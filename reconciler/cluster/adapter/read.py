"""Reading a cluster into reconciler.cluster.state values, in a fixed number of round trips.

The whole state (`Cluster.read_state`, put together by `state_of`), whatever the topic count:

    1. DescribeCluster                  brokers, racks, controller, cluster id
    2. Metadata (all topics)            the topic names
    3. Metadata (those names)           partitions, replicas, ISR, leaders, topic ids, internal flag
    4. DescribeConfigs (all topics)     every topic's configs with their sources
    5. DescribeConfigs (one broker)     the values topics inherit, KIP-464 defaults
    6. ListPartitionReassignments       in-progress KIP-455 reassignments (kafka-python)

plus each client's connection set-up (ApiVersions, a bootstrap Metadata). Peer tools send one
or more requests per topic; tests/cluster/test_round_trips.py counts ours on a real broker.
Apply's checks of some topics (`topics`: steps 3 and, on request, 4) and of the reassignments
in progress (`reassignments`: step 6) give the same values.

Each step takes the timeout of one attempt (default: the connection's); `Cluster` retries the
attempts that failed for a reason that may pass (retry.py), with fresh clients.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable, Sequence

from confluent_kafka import KafkaError, KafkaException, Node, TopicCollection
from confluent_kafka.admin import (
    AdminClient,
    ConfigResource,
    ConfigSource,
    ResourceType,
    TopicDescription,
)
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError as KafkaPythonError

from reconciler.cluster.adapter.connect import Connection, bounded, error_code
from reconciler.cluster.adapter.describe import ClusterDescription
from reconciler.cluster.state import (
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    TopicState,
)

Configs = tuple[tuple[str, ConfigEntry], ...]

# ConfigSource by number: one dict lookup instead of an Enum call per config entry (440,000
# entries for 11,000 topics).
_SOURCES = {int(source.value): source.name for source in ConfigSource}


def state_of(
    description: ClusterDescription,
    topics: dict[str, TopicState],
    defaults: dict[str, str],
    reassignments: tuple[Reassignment, ...],
) -> ClusterState:
    """The ClusterState of what the steps read."""
    return ClusterState(
        cluster_id=description.cluster_id,
        controller_id=description.controller_id,
        brokers=tuple(BrokerState(b.id, b.host, b.port, b.rack) for b in description.brokers),
        topics=dict(sorted(topics.items())),
        broker_defaults=defaults,
        reassignments=reassignments,
    )


def read_topics(
    connection: Connection,
    admin: AdminClient,
    names: Sequence[str],
    configs: bool,
    timeout: float | None = None,
) -> dict[str, TopicState]:
    """These topics as the brokers show them now: one Metadata request and, with `configs`,
    one DescribeConfigs. A topic the brokers do not know (not created yet, or deleted) is left
    out; without `configs`, each topic's `configs` is empty (not read)."""
    described = describe_topics(connection, admin, names, timeout)
    found = topic_configs(connection, admin, sorted(described), timeout) if configs else {}
    return topic_states(described, found)


def topic_states(
    described: dict[str, TopicDescription], configs: dict[str, Configs]
) -> dict[str, TopicState]:
    """The TopicStates of what describe_topics and topic_configs read."""
    return {
        name: _topic_state(description, configs.get(name, ()))
        for name, description in described.items()
    }


def read_reassignments(
    connection: Connection,
    admin: KafkaAdminClient,
    topics: Collection[str] | None = None,
    timeout: float | None = None,
) -> tuple[Reassignment, ...]:
    """KIP-455 reassignments in progress (of `topics` only, if given), in one
    ListPartitionReassignments request: kafka-python, since librdkafka lacks the API."""
    seconds = connection.seconds if timeout is None else timeout
    millis = max(1, int(seconds * 1000))
    try:
        listed = bounded(lambda: admin.list_partition_reassignments(timeout_ms=millis), seconds)
    except KafkaPythonError as exc:
        raise connection.error("list the partition reassignments of", exc) from exc
    return tuple(
        Reassignment(
            topic=tp.topic,
            partition=tp.partition,
            replicas=tuple(moving["replicas"]),
            adding=tuple(moving["adding_replicas"]),
            removing=tuple(moving["removing_replicas"]),
        )
        for tp, moving in sorted(listed.items(), key=lambda item: item[0])
        if topics is None or tp.topic in topics
    )


def describe_configs(
    connection: Connection,
    admin: AdminClient,
    kind: ResourceType,
    names: list[str],
    timeout: float | None = None,
) -> dict[str, dict[str, KafkaConfigEntry]]:
    """One DescribeConfigs request for these resources: name -> {key: librdkafka ConfigEntry}."""
    if not names:
        return {}
    resources = [ConfigResource(kind, name) for name in names]
    seconds = connection.seconds if timeout is None else timeout
    futures = admin.describe_configs(resources, request_timeout=seconds)
    found: dict[str, dict[str, KafkaConfigEntry]] = {}
    for resource, future in futures.items():
        try:
            found[resource.name] = future.result()
        except KafkaException as exc:
            if error_code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue  # deleted since it was listed: it is not part of the state
            raise connection.error(f"describe the configs of {resource.name} on", exc) from exc
    return found


def source_of(entry: KafkaConfigEntry) -> int:
    """The entry's ConfigSource number: librdkafka gives the number, though typed as the Enum."""
    source = entry.source
    return source.value if isinstance(source, ConfigSource) else int(source)


def topic_names(
    connection: Connection, admin: AdminClient, timeout: float | None = None
) -> list[str]:
    """Every topic's name: one Metadata request."""
    try:
        metadata = admin.list_topics(timeout=connection.seconds if timeout is None else timeout)
    except KafkaException as exc:
        raise connection.error("list the topics of", exc) from exc
    return sorted(metadata.topics)


def describe_topics(
    connection: Connection, admin: AdminClient, names: Sequence[str], timeout: float | None
) -> dict[str, TopicDescription]:
    """These topics' partitions (one Metadata request, which librdkafka sends to the
    controller); those the brokers do not know are left out."""
    if not names:
        return {}
    futures = admin.describe_topics(
        TopicCollection(list(names)),
        request_timeout=connection.seconds if timeout is None else timeout,
    )
    described: dict[str, TopicDescription] = {}
    for name, future in futures.items():
        try:
            described[name] = future.result()
        except KafkaException as exc:
            if error_code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue  # not (or no longer) there: left out
            raise connection.error(f"describe topic '{name}' of", exc) from exc
    return described


def topic_configs(
    connection: Connection, admin: AdminClient, names: list[str], timeout: float | None
) -> dict[str, Configs]:
    """Every config entry of these topics, in one DescribeConfigs request.

    Most entries repeat from topic to topic (every inherited default has the same value and
    source), so equal entries share one frozen ConfigEntry and keys are interned: 10,000 topics
    carry ~330,000 entries but only a few hundred distinct ones.
    """
    shared: dict[tuple[str | None, int, bool], ConfigEntry] = {}

    def entry(e: KafkaConfigEntry) -> ConfigEntry:
        number = source_of(e)
        found = shared.get((e.value, number, e.is_sensitive))
        if found is None:
            found = ConfigEntry(e.value, _SOURCES.get(number, "UNKNOWN_CONFIG"), e.is_sensitive)
            shared[(e.value, number, e.is_sensitive)] = found
        return found

    return {
        name: tuple((sys.intern(key), entry(e)) for key, e in sorted(entries.items()))
        for name, entries in describe_configs(
            connection, admin, ResourceType.TOPIC, names, timeout
        ).items()
    }


def broker_defaults(
    connection: Connection,
    admin: AdminClient,
    broker_ids: Sequence[int],
    attempt: int = 0,
    timeout: float | None = None,
) -> dict[str, str]:
    """One broker's values, in a request of its own: the lowest id's, or on a retry (`attempt`
    > 0) the next broker's, since that request goes to that very broker and it may be down.

    Kept apart from the topics' request on purpose: librdkafka sends a request holding a BROKER
    resource to that very broker, topics included; measured on 11,000 topics, pinning the big
    request to one broker (here the KRaft controller) made it up to 15 times slower than
    letting librdkafka choose.
    """
    if not broker_ids:
        return {}
    broker_id = sorted(broker_ids)[attempt % len(broker_ids)]
    broker = describe_configs(connection, admin, ResourceType.BROKER, [str(broker_id)], timeout)
    return {
        key: e.value
        for key, e in sorted(broker.get(str(broker_id), {}).items())
        if e.value is not None
    }


def _topic_state(description: TopicDescription, configs: Configs) -> TopicState:
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


def _ids(nodes: Iterable[Node]) -> tuple[int, ...]:
    return tuple(int(node.id) for node in nodes)
