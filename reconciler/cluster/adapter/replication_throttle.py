"""Replication throttles around a reassignment (apply --throttle), as kafka-reassign-partitions
sets them: a rate on each broker involved, and on each topic the replicas it applies to
(leader side: the replicas data is copied from; follower side: the new replicas).

`set_throttle` reads first what is there (every read before any change), leaves alone a rate a
broker already has of its own (an operator's), hands what it is about to set to `record` (apply
journals it: a throttle nobody recorded is never set) and only then sets it. `remove_throttle`
takes away exactly what a recorded throttle added, as the cluster shows it now: a broker rate
only while it is still the recorded one, on each topic only the recorded replicas (what an
operator listed there stays). It serves a finished level (`clear_throttle`) and a throttle a
dead or failed apply left alike. Broker configs are altered one broker per request (librdkafka
sends a BROKER resource to that broker), so the requests grow with the brokers involved, never
with the topics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigResource,
    ConfigSource,
    ResourceType,
)
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.read import describe_configs, source_of
from reconciler.cluster.protocol.throttles import (
    FOLLOWER_REPLICAS,
    LEADER_REPLICAS,
    RATE_KEYS,
    Moves,
    Throttle,
    merged,
    new_pairs,
    without,
)


def set_throttle(
    connection: Connection,
    admin: AdminClient,
    rate: int,
    moves: Mapping[str, Moves],
    brokers: Iterable[int],
    record: Callable[[Throttle], None] = lambda _: None,
) -> Throttle:
    """Throttle these moves to `rate` bytes/s per broker, once `record` has taken what is about
    to be set (it raises to stop before any change). Raises ClusterError on a refusal."""
    before = _topic_overrides(connection, admin, sorted(moves))
    topics = tuple((t, *before.get(t, (None, None))) for t in sorted(moves))
    mine: list[int] = []
    kept: list[tuple[int, str]] = []
    for broker in sorted(set(brokers)):
        own = _broker_rate(connection, admin, broker)
        if own is not None:
            kept.append((broker, own))  # an operator's throttle: not ours to change or remove
        else:
            mine.append(broker)
    added = tuple(
        (
            topic,
            new_pairs(leader, moves[topic].sources),
            new_pairs(follower, moves[topic].destinations),
        )
        for topic, leader, follower in topics
    )
    throttle = Throttle(rate, tuple(mine), tuple(kept), topics, added)
    record(throttle)
    _alter_topics(
        connection,
        admin,
        {
            topic: {
                LEADER_REPLICAS: merged(previous_leader, moves[topic].sources),
                FOLLOWER_REPLICAS: merged(previous_follower, moves[topic].destinations),
            }
            for topic, previous_leader, previous_follower in topics
        },
    )
    for broker in mine:
        _alter_broker(connection, admin, broker, dict.fromkeys(RATE_KEYS, str(rate)))
    return throttle


def clear_throttle(connection: Connection, admin: AdminClient, throttle: Throttle) -> None:
    """Take away what set_throttle added. Raises ClusterError on a refusal."""
    remove_throttle(connection, admin, throttle.rate, throttle.brokers, throttle.added)


def remove_throttle(
    connection: Connection,
    admin: AdminClient,
    rate: int,
    brokers: Iterable[int],
    added: Iterable[tuple[str, Iterable[str], Iterable[str]]],
) -> None:
    """Take away a recorded throttle as the cluster shows it now: each broker's rate while it is
    still `rate`, then each topic's recorded replicas (topics last: while anything is left, the
    topics show it). Raises ClusterError on a refusal."""
    for broker in sorted(set(brokers)):
        if _broker_rate(connection, admin, broker) == str(rate):
            _alter_broker(connection, admin, broker, dict.fromkeys(RATE_KEYS))
    pairs = {topic: (set(leader), set(follower)) for topic, leader, follower in added}
    now = _topic_overrides(connection, admin, sorted(pairs))  # deleted topics left out
    _alter_topics(
        connection,
        admin,
        {
            topic: {
                LEADER_REPLICAS: without(leader, pairs[topic][0]),
                FOLLOWER_REPLICAS: without(follower, pairs[topic][1]),
            }
            for topic, (leader, follower) in now.items()
            if without(leader, pairs[topic][0]) != leader
            or without(follower, pairs[topic][1]) != follower
        },
    )


def broker_rates(
    connection: Connection, admin: AdminClient, brokers: Iterable[int]
) -> dict[int, str]:
    """Each broker's own dynamic throttle rate, for those that have one (one request each)."""
    found = {b: _broker_rate(connection, admin, b) for b in sorted(set(brokers))}
    return {b: rate for b, rate in found.items() if rate is not None}


def _topic_overrides(
    connection: Connection, admin: AdminClient, topics: list[str]
) -> dict[str, tuple[str | None, str | None]]:
    """Each topic's own (leader, follower) throttled-replicas lists, None where it has none."""

    def own(entries: dict[str, KafkaConfigEntry], key: str) -> str | None:
        entry = entries.get(key)
        topic_override = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
        if entry is None or source_of(entry) != topic_override:
            return None
        return str(entry.value)

    found = describe_configs(connection, admin, ResourceType.TOPIC, topics)
    return {
        topic: (own(entries, LEADER_REPLICAS), own(entries, FOLLOWER_REPLICAS))
        for topic, entries in found.items()
    }


def _broker_rate(connection: Connection, admin: AdminClient, broker: int) -> str | None:
    """The broker's own dynamic throttle rate, if an operator set one."""
    found = describe_configs(connection, admin, ResourceType.BROKER, [str(broker)])
    entries = found.get(str(broker), {})
    for key in RATE_KEYS:
        entry = entries.get(key)
        if entry is not None and source_of(entry) == ConfigSource.DYNAMIC_BROKER_CONFIG.value:
            return str(entry.value)
    return None


def _alter_topics(
    connection: Connection, admin: AdminClient, values: Mapping[str, Mapping[str, str | None]]
) -> None:
    with boundary.librdkafka(connection, "IncrementalAlterConfigs"):
        resources = [
            ConfigResource(ResourceType.TOPIC, topic, incremental_configs=_entries(entries))
            for topic, entries in values.items()
        ]
    _alter(connection, admin, resources, "throttle the topics of")


def _alter_broker(
    connection: Connection, admin: AdminClient, broker: int, values: Mapping[str, str | None]
) -> None:
    with boundary.librdkafka(connection, "IncrementalAlterConfigs"):
        resource = ConfigResource(
            ResourceType.BROKER, str(broker), incremental_configs=_entries(values)
        )
    _alter(connection, admin, [resource], f"set the throttle rate of broker {broker} of")


def _entries(values: Mapping[str, str | None]) -> list[KafkaConfigEntry]:
    """SET for a value, DELETE (back to the default) for None (built inside its caller's
    boundary: a relay, tests/cluster/boundary_walk.py)."""
    return [
        KafkaConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)
        if value is not None
        else KafkaConfigEntry(key, None, incremental_operation=AlterConfigOpType.DELETE)
        for key, value in values.items()
    ]


def _alter(
    connection: Connection, admin: AdminClient, resources: list[ConfigResource], action: str
) -> None:
    if not resources:
        return
    with boundary.librdkafka(connection, "IncrementalAlterConfigs", mutation=True):
        futures = admin.incremental_alter_configs(resources, request_timeout=connection.seconds)
    for future in futures.values():
        try:
            with boundary.librdkafka(connection, "IncrementalAlterConfigs", mutation=True):
                future.result()
        except KafkaException as exc:
            raise connection.error(action, exc) from exc
