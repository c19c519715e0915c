"""Replication throttles around a reassignment (apply --throttle), as kafka-reassign-partitions
sets them: a rate on each broker involved, and on each topic the replicas it applies to
(leader side: the replicas data is copied from; follower side: the new replicas).

`set_throttle` records what was there before and leaves alone a rate a broker already has of its
own (an operator's); `clear_throttle` puts back exactly that. Broker configs are altered one
broker per request (librdkafka sends a BROKER resource to that broker), so the requests grow
with the brokers involved, never with the topics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigResource,
    ConfigSource,
    ResourceType,
)
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry

from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.read import describe_configs, source_of

RATE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"


@dataclass(frozen=True, slots=True)
class Moves:
    """One topic's partition moves: which replicas copy from, which receive."""

    sources: tuple[str, ...]  # "partition:broker" of replicas that already hold the data
    destinations: tuple[str, ...]  # "partition:broker" of replicas being added


@dataclass(frozen=True, slots=True)
class Throttle:
    """What set_throttle changed, with the values it replaced (None: there was none)."""

    rate: int
    brokers: tuple[int, ...]  # brokers whose rates were set (those without a rate of their own)
    kept: tuple[tuple[int, str], ...]  # brokers that had a rate already: (id, its value)
    topics: tuple[tuple[str, str | None, str | None], ...]  # (topic, leader, follower) before


def set_throttle(
    connection: Connection,
    admin: AdminClient,
    rate: int,
    moves: Mapping[str, Moves],
    brokers: Iterable[int],
) -> Throttle:
    """Throttle these moves to `rate` bytes/s per broker. Raises ClusterError on a refusal."""
    before = _topic_overrides(connection, admin, sorted(moves))
    topics = tuple((t, *before.get(t, (None, None))) for t in sorted(moves))
    _alter_topics(
        connection,
        admin,
        {
            topic: {
                LEADER_REPLICAS: _merged(previous_leader, moves[topic].sources),
                FOLLOWER_REPLICAS: _merged(previous_follower, moves[topic].destinations),
            }
            for topic, previous_leader, previous_follower in topics
        },
    )
    mine: list[int] = []
    kept: list[tuple[int, str]] = []
    for broker in sorted(set(brokers)):
        own = _broker_rate(connection, admin, broker)
        if own is not None:
            kept.append((broker, own))  # an operator's throttle: not ours to change or remove
            continue
        _alter_broker(connection, admin, broker, dict.fromkeys(RATE_KEYS, str(rate)))
        mine.append(broker)
    return Throttle(rate, tuple(mine), tuple(kept), topics)


def clear_throttle(connection: Connection, admin: AdminClient, throttle: Throttle) -> None:
    """Put back what set_throttle replaced. Raises ClusterError on a refusal."""
    for broker in throttle.brokers:
        _alter_broker(connection, admin, broker, dict.fromkeys(RATE_KEYS))
    _alter_topics(
        connection,
        admin,
        {
            topic: {LEADER_REPLICAS: leader, FOLLOWER_REPLICAS: follower}
            for topic, leader, follower in throttle.topics
        },
    )


def _merged(previous: str | None, pairs: tuple[str, ...]) -> str:
    if previous == "*":
        return "*"
    have = [p for p in (previous or "").split(",") if p]
    return ",".join(dict.fromkeys([*have, *pairs]))


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
    resources = [
        ConfigResource(ResourceType.TOPIC, topic, incremental_configs=_entries(entries))
        for topic, entries in values.items()
    ]
    _alter(connection, admin, resources, "throttle the topics of")


def _alter_broker(
    connection: Connection, admin: AdminClient, broker: int, values: Mapping[str, str | None]
) -> None:
    resource = ConfigResource(
        ResourceType.BROKER, str(broker), incremental_configs=_entries(values)
    )
    _alter(connection, admin, [resource], f"set the throttle rate of broker {broker} of")


def _entries(values: Mapping[str, str | None]) -> list[KafkaConfigEntry]:
    """SET for a value, DELETE (back to the default) for None."""
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
    futures = admin.incremental_alter_configs(resources, request_timeout=connection.seconds)
    for future in futures.values():
        try:
            future.result()
        except KafkaException as exc:
            raise connection.error(action, exc) from exc
