"""Waiting for what brokers learn asynchronously, through the independent clients tests use."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka.admin import AdminClient


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
