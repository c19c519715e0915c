"""The adapter's ClusterState against the real three-broker cluster, checked by kafka-python."""

from __future__ import annotations

import uuid
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient

from reconciler.cluster.adapter import Connection, read_state
from reconciler.cluster.state import TOPIC_OVERRIDE
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA


def test_state_matches_an_independent_client(kafka3: LocalCluster, ns: str) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    placed, tuned = f"{ns}.placed", f"{ns}.tuned"
    topics = [
        NewTopic(placed, 4, replica_assignment=[[1, 2], [2, 3], [3, 1], [1, 3]]),
        NewTopic(tuned, 2, 3, config={"retention.ms": "3600000", "cleanup.policy": "compact"}),
    ]
    for future in admin.create_topics(topics).values():
        future.result()
    for name in (placed, tuned):
        wait_for_topic(admin, name)

    state = read_state(
        Connection("test", kafka3.bootstrap, (("client.id", f"t-{uuid.uuid4().hex}"),))
    )

    other = KafkaAdminClient(bootstrap_servers=kafka3.bootstrap.split(","))
    try:
        described: list[dict[str, Any]] = other.describe_topics([placed, tuned])
        brokers = other.describe_cluster()["brokers"]
    finally:
        other.close()
    assert [(b.id, b.rack) for b in state.brokers] == sorted(
        (b["node_id"] if "node_id" in b else b["broker_id"], b["rack"]) for b in brokers
    )
    for topic in described:
        mine = state.topics[topic["topic"] if "topic" in topic else topic["name"]]
        theirs = sorted(topic["partitions"], key=lambda p: p["partition_index"])
        assert [p.replicas for p in mine.partitions] == [tuple(p["replica_nodes"]) for p in theirs]
        assert [p.partition for p in mine.partitions] == [p["partition_index"] for p in theirs]
        assert not mine.internal and mine.topic_id
    assert [p.replicas for p in state.topics[placed].partitions] == [(1, 2), (2, 3), (3, 1), (1, 3)]
    assert state.topics[tuned].overrides == {"retention.ms": "3600000", "cleanup.policy": "compact"}
    assert state.topics[tuned].replication_factor == 3
    sources = dict(state.topics[placed].configs)
    assert sources["retention.ms"].source != TOPIC_OVERRIDE
    assert sources["retention.ms"].value == "604800000"  # inherited, with its value
    assert state.broker_defaults["num.partitions"] == "3"
    assert state.broker_defaults["default.replication.factor"] == "2"
    assert state.controller_id in {b.id for b in state.brokers}
    assert state.reassignments == ()
