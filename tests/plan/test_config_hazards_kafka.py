"""The config hazards on real brokers: each compares the value Kafka reports in effect (here
the broker's defaults, inherited by a topic with no override) with the spec's, so the `from`
an approval names is Kafka's, not a table of ours. Plan only: nothing is applied."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def test_each_config_hazard_names_the_value_kafka_reports_before(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    boot = kafka1.bootstrap
    topic = f"{ns}.compacted"
    admin = AdminClient({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    new = NewTopic(topic, 1, 1, config={"cleanup.policy": "compact"})
    admin.create_topics([new])[topic].result(30)
    wait_for_topics(admin, {topic: 1})
    repo = SpecRepo(tmp_path, boot, ns)
    config = {
        "cleanup.policy": "compact",
        "unclean.leader.election.enable": "true",
        "delete.retention.ms": 0,
        "segment.ms": 1,
        "max.message.bytes": 1024,
    }
    repo.topics({"name": topic, "partitions": 1, "config": config})

    planned = repo.run("plan", "--cluster", "test", "--format", "json")

    assert planned.code == 1, planned.stdout + planned.stderr
    [change] = planned.json()["changes"]
    found = {h["code"]: h["approve_with"][h["code"]] for h in change["hazards"]}
    # Kafka's own defaults, as the broker reports them, are each transition's `from`
    assert {code: (v["key"], v["from"], v["to"]) for code, v in found.items()} == {
        "unclean_leader_election": ("unclean.leader.election.enable", "false", "true"),
        "delete_retention_decrease": ("delete.retention.ms", 86400000, 0),
        "segment_per_record": ("segment.ms", 604800000, 1),
        "max_message_bytes_decrease": ("max.message.bytes", 1048588, 1024),
    }
    assert all(v["topic_id"] for v in found.values())  # Kafka 2.8+: bound to the topic id
    text = repo.run("plan", "--cluster", "test").stdout
    assert "Kafka cannot show the largest batch the topic holds" in text
