"""Waiting for what brokers learn asynchronously, through the independent clients tests use."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

# The config of a topic a test writes records stamped in the past to: the broker's time-based
# retention (7 days by default, checked every 5 minutes) deletes segments, the active one after
# a roll, once their newest timestamp is older than retention.ms, so an old-stamped record
# could vanish mid-test. -1 keeps them whatever their stamps.
KEEPS_OLD_RECORDS = {"retention.ms": "-1"}


def wait_for_topic(
    admin: AdminClient, topic: str, partitions: int | None = None, timeout: float = 30.0
) -> Any:
    """librdkafka's TopicMetadata once the topic (and that many partitions) has leaders."""
    deadline = time.monotonic() + timeout
    agreeing, bootstrap = 0, ""
    while True:
        # Brokers learn new topics from the controller asynchronously: one broker knowing it is
        # not enough for the next reader, so fresh clients (whose requests go to brokers of
        # librdkafka's choosing) must agree several times in a row.
        reader = admin if agreeing == 0 else AdminClient({"bootstrap.servers": bootstrap})
        cluster = reader.list_topics(topic, timeout=10)
        bootstrap = ",".join(f"{b.host}:{b.port}" for b in cluster.brokers.values())
        md = cluster.topics.get(topic)
        if (
            md is not None
            and md.error is None
            and md.partitions
            and (partitions is None or len(md.partitions) == partitions)
            and all(p.leader >= 0 for p in md.partitions.values())
        ):
            agreeing += 1
            if agreeing > 4:
                return md
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(
                f"topic {topic} did not appear in metadata within {timeout} s: {md}"
            )
        time.sleep(0.2)


def wait_for_config(
    admin: AdminClient, topic: str, key: str, value: str | None, timeout: float = 30.0
) -> None:
    """Until fresh readers agree that `topic`'s override of `key` is `value` (None: no
    override): brokers apply config changes from the controller asynchronously."""
    from confluent_kafka.admin import ConfigResource, ConfigSource

    deadline = time.monotonic() + timeout
    agreeing = 0
    brokers = admin.list_topics(timeout=10).brokers.values()
    bootstrap = ",".join(f"{b.host}:{b.port}" for b in brokers)
    while agreeing <= 4:
        reader = AdminClient({"bootstrap.servers": bootstrap})
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
        entries = reader.describe_configs([resource])[resource].result(timeout=10)
        entry = entries.get(key)
        topic_own = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
        override = entry.value if entry is not None and entry.source == topic_own else None
        if override == value:
            agreeing += 1
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(f"{topic}: {key} stayed {override!r}, expected {value!r}")
        time.sleep(0.2)


def wait_for_topics(admin: AdminClient, partitions: dict[str, int], timeout: float = 60.0) -> None:
    """Until fresh readers agree, several times in a row, that every topic has that many
    partitions, each with a leader: one metadata request per poll, whatever the count.

    Each fresh reader is bootstrapped from one broker, the brokers in turn, so its request goes
    to that broker: every broker must have learned the topics from the controller (they do so
    asynchronously), not only those a client happened to ask. A command started right after
    (a faster start-up made this window real) may ask any of them."""
    deadline = time.monotonic() + timeout
    agreeing, servers = 0, list[str]()
    while agreeing <= 4:
        chosen = servers[agreeing % len(servers)] if servers else ""
        reader = admin if not chosen else AdminClient({"bootstrap.servers": chosen})
        cluster = reader.list_topics(timeout=10)
        servers = sorted(f"{b.host}:{b.port}" for b in cluster.brokers.values())
        missing = [
            name
            for name, count in partitions.items()
            if (md := cluster.topics.get(name)) is None
            or md.error is not None
            or len(md.partitions) != count
            or any(p.leader < 0 for p in md.partitions.values())
        ]
        if not missing:
            agreeing += 1
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(missing)} topic(s) not in metadata, e.g. {missing[:3]}")
        time.sleep(0.2)


def record_count(bootstrap: str, topic: str) -> int:
    """How many records partition 0 of `topic` holds (its high watermark minus its low)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused"})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        return int(high - low)
    finally:
        consumer.close()
