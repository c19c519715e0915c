"""Import leaves Kafka's own placement to Kafka, on the real three racked brokers."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient

from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.adopt.test_import_real import create, specs
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo, schema_validator

pytestmark = pytest.mark.kafka


def test_a_topic_kafka_placed_imports_without_assignments_and_grows(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    # Enough of them that main's evenness test pinned some (13 of 120 Kafka-made topics of 1
    # to 48 partitions on these brokers, all of 24 or 48 partitions)
    placed = [NewTopic(f"{ns}.placed.{i}.rf{1 + i % 3}", 24, 1 + i % 3) for i in range(24)]
    # Visibly deliberate: every leader on broker 1, partitions of one replica and of two
    by_hand = NewTopic(f"{ns}.hand", 3, replica_assignment=[[1, 2], [1, 3], [1, 2]])
    create(admin, [*placed, by_hand])
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)

    imported = repo.run("import", "--cluster", "test")
    assert imported.code == 0, imported.stdout + imported.stderr
    written = specs(tmp_path)
    for topic in placed:
        assert "assignments" not in written[topic.topic], topic.topic
    assert written[f"{ns}.hand"]["assignments"] == [[1, 2], [1, 3], [1, 2]]
    # import names the topic that keeps its placement, and why
    assert f"{ns}.hand" in imported.stdout + imported.stderr
    assert "keeps its assignments" in imported.stdout + imported.stderr

    # A partition increase of a Kafka-placed topic plans and applies
    path = next((tmp_path / "topics").glob("*.yaml"))
    text = path.read_text()
    name = f"{ns}.placed.2.rf3"
    document = yaml.safe_load(text)
    for entry in document["topics"]:
        if entry["name"] == name:
            entry["partitions"] = 30
    path.write_text(yaml_text.safe_dump(document, sort_keys=False))
    plan = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert plan.code == 2, plan.stdout + plan.stderr
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stdout + applied.stderr
    after = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert after.code == 0, after.stdout + after.stderr

    # A rebalance (as Cruise Control makes) of a topic without assignments is not drift
    moved = f"{ns}.placed.0.rf1"
    now = admin.list_topics(moved, timeout=10).topics[moved].partitions[0].replicas
    target = [next(b for b in (1, 2, 3) if b not in now)]
    mover = KafkaAdminClient(bootstrap_servers=kafka3.bootstrap.split(","))
    try:
        mover.alter_partition_reassignments({TopicPartition(moved, 0): target})
        deadline = time.monotonic() + 60
        while admin.list_topics(moved, timeout=10).topics[moved].partitions[0].replicas != target:
            assert time.monotonic() < deadline, "the move did not finish"
            time.sleep(0.2)
    finally:
        mover.close()
    drift = repo.run("drift", "--cluster", "test")
    assert drift.code == 0, drift.stdout + drift.stderr


def test_keep_assignments_pins_every_topic(tmp_path: Path, kafka3: LocalCluster, ns: str) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    create(admin, [NewTopic(f"{ns}.kept", 6, 2)])
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    imported = repo.run("import", "--cluster", "test", "--keep-assignments", "--format", "json")
    assert imported.code == 0, imported.stdout + imported.stderr
    report = imported.json()
    schema_validator("import.schema.json").validate(report)
    assert report["mode"] == "import" and report["complete"] is True
    assert report["topics"] == [
        {
            "name": f"{ns}.kept",
            "file": report["files"][0]["path"],
            "assignments_kept": "--keep-assignments",
            "notes": [],
        }
    ]
    assert {"topic": "__consumer_offsets", "reason": "internal"} in report["skipped"]
    kept = specs(tmp_path)[f"{ns}.kept"]["assignments"]
    assert len(kept) == 6 and all(len(r) == 2 for r in kept)
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0
