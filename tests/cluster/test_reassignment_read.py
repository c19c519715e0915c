"""A reassignment in progress on the real cluster: read by the adapter, refused by the plan.

The reassignment is started directly through kafka-python and held in progress by a tiny
replication throttle on a topic with data, then cancelled.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient

from reconciler.cluster.adapter import Connection, read_state
from reconciler.cluster.state import Reassignment
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

RATES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")


def _alter(
    admin: AdminClient, kind: ResourceType, name: str, values: dict[str, str | None]
) -> None:
    entries = [
        ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
        if v is not None
        else ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE)
        for k, v in values.items()
    ]
    resource = ConfigResource(kind, name, incremental_configs=entries)
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()


def test_reassignment_in_progress_is_read_and_blocks_a_replication_change(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.moving"
    for future in admin.create_topics([NewTopic(topic, 1, replica_assignment=[[1]])]).values():
        future.result()
    wait_for_topic(admin, topic, 1)
    producer = Producer({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for _ in range(1024):
        producer.produce(topic, os.urandom(1024))
    assert producer.flush(30) == 0
    # 1 MiB to copy at 1 KiB/s: the move stays in progress for the whole test.
    for broker in ("1", "2"):
        _alter(admin, ResourceType.BROKER, broker, dict.fromkeys(RATES, "1024"))
    _alter(admin, ResourceType.TOPIC, topic, {
        "leader.replication.throttled.replicas": "0:1",
        "follower.replication.throttled.replicas": "0:2",
    })  # fmt: skip
    mover = KafkaAdminClient(bootstrap_servers=kafka3.bootstrap.split(","))
    try:
        mover.alter_partition_reassignments({TopicPartition(topic, 0): [1, 2]})
        deadline = time.monotonic() + 30
        while not mover.list_partition_reassignments():
            assert time.monotonic() < deadline, "the reassignment did not show as in progress"
            time.sleep(0.2)

        state = read_state(Connection("test", kafka3.bootstrap))
        mine = [r for r in state.reassignments if r.topic == topic]
        assert mine == [Reassignment(topic, 0, (1, 2), adding=(2,), removing=())]

        repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
        repo.topics({"name": topic, "partitions": 1, "replication_factor": 3})
        result = repo.run("plan", "--cluster", "test", "--format", "json")
        assert result.code == 1
        rules = [(d["rule"], d["topic"]) for d in result.json()["diagnostics"]]
        assert ("reassignment_in_progress", topic) in rules
    finally:
        mover.alter_partition_reassignments({TopicPartition(topic, 0): None})  # cancel
        mover.close()
        for broker in ("1", "2"):
            _alter(admin, ResourceType.BROKER, broker, dict.fromkeys(RATES))
