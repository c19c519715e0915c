"""The test clusters are real, multi-broker, racked Kafka: two independent clients agree."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA

pytestmark = pytest.mark.kafka


def _kafka_python(cl: LocalCluster) -> Any:
    return KafkaAdminClient(bootstrap_servers=cl.bootstrap.split(","), client_id="reconciler-test")


def _wait_for_topic(admin: Any, topic: str, timeout: float = 30.0) -> dict[str, Any]:
    """kafka-python's view of one topic, once every partition has a leader."""
    deadline = time.monotonic() + timeout
    while True:
        found = [
            t for t in admin.describe_topics([topic]) if t["name"] == topic and t["error_code"] == 0
        ]
        if found and all(p["leader_id"] >= 0 for p in found[0]["partitions"]):
            return dict(found[0])
        if time.monotonic() > deadline:
            raise AssertionError(f"topic {topic} never appeared through kafka-python")
        time.sleep(0.2)


def test_three_brokers_in_three_racks(kafka3: LocalCluster) -> None:
    desc = kafka3.describe()
    assert [(b.id, b.rack) for b in desc.brokers] == [(1, "rack-a"), (2, "rack-b"), (3, "rack-c")]
    assert len(kafka3.running_pids()) == 3


def test_topic_created_by_librdkafka_is_seen_by_kafka_python(kafka3: LocalCluster, ns: str) -> None:
    topic = f"{ns}.orders"
    rdkafka = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    rdkafka.create_topics([NewTopic(topic, num_partitions=6, replication_factor=3)])[topic].result(
        30
    )

    kp = _kafka_python(kafka3)
    try:
        racks = {b["broker_id"]: b["rack"] for b in kp.describe_cluster()["brokers"]}
        seen = _wait_for_topic(kp, topic)
    finally:
        kp.close()
    partitions = sorted(seen["partitions"], key=lambda p: p["partition_index"])
    assert [p["partition_index"] for p in partitions] == list(range(6))
    for p in partitions:
        assert sorted(p["replica_nodes"]) == [1, 2, 3]
        assert {racks[r] for r in p["replica_nodes"]} == {"rack-a", "rack-b", "rack-c"}
    # Leaders spread over the brokers: placement really used the three nodes.
    assert {p["leader_id"] for p in partitions} == {1, 2, 3}


def test_topic_created_by_kafka_python_is_seen_by_librdkafka(kafka3: LocalCluster, ns: str) -> None:
    topic = f"{ns}.events"
    kp = _kafka_python(kafka3)
    try:
        kp.create_topics({topic: {"num_partitions": 4, "replication_factor": 2}})
    finally:
        kp.close()
    rdkafka = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    parts = wait_for_topic(rdkafka, topic).partitions
    assert sorted(parts) == [0, 1, 2, 3]
    assert all(len(p.replicas) == 2 and len(set(p.replicas)) == 2 for p in parts.values())


@pytest.mark.parametrize(
    ("fixture", "partitions", "replication"), [("kafka3", 3, 2), ("kafka1", 3, 1)]
)
def test_broker_defaults_apply_to_minus_one_kip464(
    request: pytest.FixtureRequest, ns: str, fixture: str, partitions: int, replication: int
) -> None:
    """The fixture clusters' defaults differ from Kafka's built-in 1/1 and are really used."""
    cl: LocalCluster = request.getfixturevalue(fixture)
    topic = f"{ns}.defaults"
    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    admin.create_topics([NewTopic(topic)])[topic].result(30)  # -1/-1: the controller's defaults
    md = wait_for_topic(admin, topic)
    assert len(md.partitions) == partitions
    assert {len(p.replicas) for p in md.partitions.values()} == {replication}


def test_single_node_cluster(kafka1: LocalCluster) -> None:
    desc = kafka1.describe()
    assert [(b.id, b.rack) for b in desc.brokers] == [(1, None)]
