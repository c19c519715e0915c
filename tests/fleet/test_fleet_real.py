"""Two nights of snapshots of the real three-broker cluster, an out-of-band change between them,
and the fleet job on a real SparkSession: the change shows from the second night, and the
broker load is the cluster's own replica count."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)
from pyspark.sql import SparkSession

from reconciler.fleet import job
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka

NIGHTS = ("2026-11-01", "2026-11-02")


def replicas_per_broker(admin: AdminClient) -> Counter[int]:
    """Partition replicas each broker hosts, every topic counted, from the cluster's metadata."""
    hosted: Counter[int] = Counter()
    metadata = admin.list_topics(timeout=30)
    for b in metadata.brokers:
        hosted[b] += 0
    for t in metadata.topics.values():
        for p in t.partitions.values():
            hosted.update(p.replicas)
    return hosted


def test_two_nights_of_a_real_cluster_show_the_change_and_the_load(
    spark: SparkSession, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka3.bootstrap, ns)
    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["limits"] = {"max_broker_partitions": 5000, "max_partitions": 9000}
    repo.write("reconciler.yaml", config)
    orders, events = f"{ns}.orders", f"{ns}.events"
    repo.topics(
        {"name": orders, "partitions": 3, "replication_factor": 2,
         "config": {"retention.ms": "7d"}},
        {"name": events, "partitions": 2, "replication_factor": 1},
    )  # fmt: skip
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    wait_for_topic(admin, orders, partitions=3)
    wait_for_topic(admin, events, partitions=2)

    snapshots = tmp_path / "snapshots"
    load: dict[str, Counter[int]] = {}

    def night(day: str, *command: str) -> None:
        """Snapshot the cluster for `day` while its replica counts hold still (other tests'
        topics may still be going away), and keep those counts."""
        where = snapshots / "cluster=test" / f"date={day}"
        where.mkdir(parents=True, exist_ok=True)
        for _ in range(10):
            before = replicas_per_broker(admin)
            done = repo.run(*command, str(where / "snapshot.jsonl"))
            assert done.code in (0, 2), done.stdout + done.stderr
            if replicas_per_broker(admin) == before:
                load[day] = before
                return
            time.sleep(1)
        pytest.fail("the cluster's replica counts did not hold still for a snapshot")

    night(NIGHTS[0], "snapshot", "--cluster", "test", "--format", "jsonl", "-o")

    # Out of band, between the two nights: a retention change and a topic created by hand
    resource = ConfigResource(
        ConfigResource.Type.TOPIC,
        orders,
        incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    stray = f"{ns}.stray"
    for future in admin.create_topics([NewTopic(stray, 4, 2)]).values():
        future.result()
    wait_for_config(admin, orders, "retention.ms", "3600000")
    wait_for_topic(admin, stray, partitions=4)

    # The scheduled job's command: drift, with its snapshot (the .jsonl name picks the form)
    night(NIGHTS[1], "drift", "--cluster", "test", "--snapshot-out")

    desired = tmp_path / "desired"
    compiled = repo.run("compile", "--cluster", "test", "--out", str(desired))
    assert compiled.code == 0, compiled.stderr
    out = tmp_path / "out"
    result = job.run(spark, str(desired), str(snapshots), str(out))

    drift = {
        (str(r["date"]), r["topic"], r["field"]): r
        for r in spark.read.parquet(str(out / "drift")).collect()
    }
    assert set(drift) == {
        (NIGHTS[1], orders, "config.retention.ms"),
        (NIGHTS[1], stray, "topic"),
    }, drift
    retention = drift[(NIGHTS[1], orders, "config.retention.ms")]
    assert (retention["desired"], retention["actual"], retention["kind"]) == (
        "604800000", "3600000", "config",
    )  # fmt: skip
    assert str(retention["first_seen"]) == NIGHTS[1]
    assert (retention["file"], retention["line"]) == ("topics/main.yaml", 2)
    unmanaged = spark.read.parquet(str(out / "unmanaged")).collect()
    assert [(r["topic"], str(r["first_seen"]), r["partitions"], r["replication_factor"])
            for r in unmanaged] == [(stray, NIGHTS[1], 4, 2)]  # fmt: skip

    rows = spark.read.parquet(str(out / "broker_load")).collect()
    for day in NIGHTS:
        got = {r["broker"]: r["replicas"] for r in rows if str(r["date"]) == day}
        assert got == dict(load[day]), day
        assert {r["max_broker_partitions"] for r in rows} == {5000}
    grown = {r["broker"]: r["replicas_change"] for r in rows if str(r["date"]) == NIGHTS[1]}
    assert sum(grown.values()) == sum(load[NIGHTS[1]].values()) - sum(load[NIGHTS[0]].values())
    assert result.summary.bad == ()
    summary = (out / "summary.md").read_text()
    # differences, topics, then one count per drift kind (KINDS order: missing, config,
    # partitions, replication_factor, placement, present, unmanaged, blocked)
    counts = "| 2 | 2 | 0 | 1 | 0 | 0 | 0 | 0 | 1 | 0 |"
    assert f"| test | {NIGHTS[1]} {counts} {NIGHTS[1]} |" in summary
