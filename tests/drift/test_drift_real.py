"""`reconciler drift` against the real three-broker cluster: changes made outside git show."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import jsonschema
import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    ResourceType,
)
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo
from tests.unreachable import UNREACHABLE_MS

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kafka


def schema(name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((ROOT / "schemas" / name).read_text())
    return loaded


@pytest.fixture
def repo(tmp_path: Path, kafka3: LocalCluster, ns: str) -> SpecRepo:
    return SpecRepo(tmp_path, kafka3.bootstrap, ns)


def test_in_sync_then_out_of_band_changes_are_reported(
    repo: SpecRepo, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    orders, events, placed = f"{ns}.orders", f"{ns}.events", f"{ns}.placed"
    repo.topics(
        {
            "name": orders,
            "partitions": 3,
            "replication_factor": 2,
            "config": {"retention.ms": "7d"},
        },
        {"name": events, "partitions": 2, "replication_factor": 1},
        {"name": placed, "assignments": [[1, 2], [2, 3]]},
    )
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr

    in_sync = repo.run("drift", "--cluster", "test")
    assert in_sync.code == 0, in_sync.stdout + in_sync.stderr
    assert "In sync: cluster 'test' matches the specs." in in_sync.stdout

    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    resource = ConfigResource(
        ConfigResource.Type.TOPIC,
        orders,
        incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    for future in admin.create_partitions([NewPartitions(events, 4)]).values():
        future.result()
    stray = f"{ns}.stray"
    for future in admin.create_topics([NewTopic(stray, 1, 1)]).values():
        future.result()
    wait_for_config(admin, orders, "retention.ms", "3600000")
    wait_for_topic(admin, events, partitions=4)
    wait_for_topic(admin, stray)

    snapshot = tmp_path / "snapshot.json"
    drifted = repo.run(
        "drift", "--cluster", "test", "--format", "json", "--snapshot-out", str(snapshot)
    )
    assert drifted.code == 2, drifted.stdout + drifted.stderr
    report = drifted.json()
    jsonschema.validate(report, schema("drift.schema.json"))
    found = {(d["topic"], d["field"]): d for d in report["drift"]}
    assert set(found) == {
        (orders, "config.retention.ms"),
        (events, "partition_decrease"),  # the plan's P101: Kafka cannot shrink it back
        (stray, "topic"),
    }
    retention = found[(orders, "config.retention.ms")]
    assert (retention["desired"], retention["current"]) == ("604800000", "3600000")
    assert (retention["file"], retention["line"]) == ("topics/main.yaml", 2)
    grown = found[(events, "partition_decrease")]
    assert (grown["kind"], grown["code"]) == ("blocked", "P101")
    assert "cannot shrink from 4 to 2" in grown["message"]
    assert found[(stray, "topic")]["kind"] == "unmanaged"
    # --snapshot-out holds what was read: a plan against it sees the same cluster
    jsonschema.validate(json.loads(snapshot.read_text()), schema("snapshot.schema.json"))
    offline = repo.run("plan", "--cluster", "test", "--state", str(snapshot), "--format", "json")
    assert offline.json()["unmanaged"] == [stray]

    text = repo.run("drift", "--cluster", "test")
    assert text.code == 2
    where = f"topics/main.yaml:2:{retention['column']}"
    assert f"{where}  {orders}  retention.ms: spec 604800000 (7d), cluster 3600000 (1h)" in (
        text.stdout
    )
    markdown = repo.run("drift", "--cluster", "test", "--format", "markdown")
    assert markdown.code == 2
    assert markdown.stdout.startswith("## reconciler drift for `test`")
    assert f"| `{orders}` | `retention.ms` |" in markdown.stdout


def test_placement_drift_when_a_spec_sets_assignments(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    name = f"{ns}.placed"
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    # Created outside the tool with the leaders swapped against the spec's assignments.
    created = admin.create_topics([NewTopic(name, 2, replica_assignment=[[2, 1], [3, 2]])])
    for future in created.values():
        future.result()
    wait_for_topic(admin, name, partitions=2)
    repo.topics({"name": name, "assignments": [[1, 2], [2, 3]]})

    plan = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert plan.code == 0, plan.stdout + plan.stderr  # apply does not move replicas of an equal RF
    drifted = repo.run("drift", "--cluster", "test", "--format", "json")
    assert drifted.code == 2, drifted.stdout + drifted.stderr
    (item,) = drifted.json()["drift"]
    assert (item["kind"], item["desired"], item["current"]) == (
        "placement",
        "[[1, 2], [2, 3]]",
        "[[2, 1], [3, 2]]",
    )


def test_errors_exit_1_and_markdown_says_what_failed(repo: SpecRepo, ns: str) -> None:
    repo.topics({"name": f"{ns}.bad", "partitions": 0})
    invalid = repo.run("drift", "--cluster", "test", "--format", "markdown")
    assert invalid.code == 1
    assert "topics/main.yaml:3:" in invalid.stdout and "R301" in invalid.stdout
    assert "topics/main.yaml:3:" in invalid.stderr

    repo.topics({"name": f"{ns}.good", "partitions": 1})
    repo.write(
        "reconciler.yaml",
        {
            "clusters": {
                "test": {
                    "bootstrap": "127.0.0.1:1",
                    "client": {"request.timeout.ms": UNREACHABLE_MS},
                }
            }
        },
    )
    unreachable = repo.run("drift", "--cluster", "test", "--format", "markdown")
    assert unreachable.code == 1, unreachable.stdout + unreachable.stderr
    assert "127.0.0.1:1" in unreachable.stdout
    assert unreachable.stdout.startswith("## reconciler drift for `test`")


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


def _until_brokers_throttle(admin: AdminClient, brokers: tuple[str, ...]) -> None:
    """Until each broker itself reports its replication rates (a broker's configs are
    described by that broker): from then on it throttles."""
    deadline = time.monotonic() + 30
    for broker in brokers:
        resource = ConfigResource(ResourceType.BROKER, broker)
        while True:
            entries = admin.describe_configs([resource])[resource].result(timeout=10)
            # a rate the broker has not applied yet is not listed at all
            if all(k in entries and entries[k].value == "1024" for k in RATES):
                break
            assert time.monotonic() < deadline, f"broker {broker} does not show its throttle"
            time.sleep(0.1)


def test_drift_during_a_reassignment_in_progress_is_what_the_plan_refuses(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    """The plan refuses the spec's replication factor while Kafka is still moving replicas
    (P103): drift reports exactly that refusal and exits 2, never "In sync"."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    name = f"{ns}.moving"
    for future in admin.create_topics([NewTopic(name, 1, replica_assignment=[[1]])]).values():
        future.result()
    wait_for_topic(admin, name, 1)
    producer = Producer({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for _ in range(16 * 1024):
        producer.produce(name, os.urandom(1024))
    assert producer.flush(60) == 0
    # A throttled follower still takes a whole fetch (replica.fetch.max.bytes, 1 MiB) each time
    # the quota's samples expire (replication.quota.window.num x .size.seconds, 11 s): the move
    # lasts about 11 s per MiB whatever the rate. 1 MiB was copied before drift ran on a busy
    # machine; 16 MiB keeps it going past the test's commands.
    for broker in ("1", "2"):
        _alter(admin, ResourceType.BROKER, broker, dict.fromkeys(RATES, "1024"))
    _alter(admin, ResourceType.TOPIC, name, {
        "leader.replication.throttled.replicas": "0:1",
        "follower.replication.throttled.replicas": "0:2",
    })  # fmt: skip
    # Brokers apply config changes asynchronously: a move started before they throttle it
    # copies the megabyte at once and is no longer in progress when drift looks
    _until_brokers_throttle(admin, ("1", "2"))
    wait_for_config(admin, name, "leader.replication.throttled.replicas", "0:1")
    wait_for_config(admin, name, "follower.replication.throttled.replicas", "0:2")
    repo.topics({"name": name, "partitions": 1, "replication_factor": 3})
    mover = KafkaAdminClient(bootstrap_servers=kafka3.bootstrap.split(","))
    try:
        mover.alter_partition_reassignments({TopicPartition(name, 0): [1, 2]})
        deadline = time.monotonic() + 30
        while not mover.list_partition_reassignments():
            assert time.monotonic() < deadline, "the reassignment did not show as in progress"
            time.sleep(0.2)

        plan = repo.run("plan", "--cluster", "test", "--format", "json")
        assert plan.code == 1, plan.stdout + plan.stderr
        refused = [d for d in plan.json()["diagnostics"] if d["severity"] == "error"]
        assert [(d["rule"], d["topic"]) for d in refused] == [("reassignment_in_progress", name)]

        drifted = repo.run("drift", "--cluster", "test", "--format", "json")
        assert drifted.code == 2, drifted.stdout + drifted.stderr
        report = drifted.json()
        jsonschema.validate(report, schema("drift.schema.json"))
        blocked = [d for d in report["drift"] if d["kind"] == "blocked"]
        assert [(d["topic"], d["field"], d["code"], d["message"]) for d in blocked] == [
            (name, "reassignment_in_progress", refused[0]["code"], refused[0]["message"])
        ]
        assert report["summary"]["blocked"] == 1 and not report["in_sync"]
        text = repo.run("drift", "--cluster", "test")
        assert text.code == 2
        assert f"{name}  error[P103]: {name}: a partition reassignment is in progress" in (
            text.stdout
        )
        assert mover.list_partition_reassignments()  # still moving: the premise held throughout
    finally:
        mover.alter_partition_reassignments({TopicPartition(name, 0): None})  # cancel
        mover.close()
        for broker in ("1", "2"):
            _alter(admin, ResourceType.BROKER, broker, dict.fromkeys(RATES))
