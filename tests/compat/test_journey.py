"""The core journey on the ends of the supported range, or on every line between.

Kafka 2.4.x in ZooKeeper mode (the oldest supported) and the newest release (KRaft); the pinned
default runs the same steps across the rest of the suite (tests/apply, tests/drift,
tests/adopt) on the session's clusters. `make compat` runs it on the newest patch of every
minor line (`--kafka-versions matrix`); `--kafka-brokers 3` runs it on three racked brokers.
Create with and without counts, a saved plan applied, a partition increase, a config set and a
removal, a replication-factor change, a delete (prune), drift of an out-of-band change, and an
import round trip, each checked on the cluster itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)

from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read
from tests.compat.conftest import journey_versions, start_version
from tests.kafka_helpers import KEEPS_OLD_RECORDS, wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

pytestmark = [pytest.mark.kafka, pytest.mark.journey]  # `make compat` selects it by `journey`


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test once per version `--kafka-versions` chooses (the ends by default)."""
    if "versioned" in metafunc.fixturenames:
        versions = journey_versions(metafunc.config)
        metafunc.parametrize("versioned", versions, indirect=True, scope="module")


@pytest.fixture(scope="module")
def versioned(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    brokers = int(request.config.getoption("kafka_brokers"))
    yield from start_version(request, tmp_path_factory, request.param, brokers=brokers)


@pytest.fixture
def repo(tmp_path: Path, versioned: LocalCluster, ns: str) -> SpecRepo:
    return SpecRepo(tmp_path, versioned.bootstrap, ns, {"allow_delete": True})


def _ok(result: object) -> None:
    code, out, err = (getattr(result, k) for k in ("code", "stdout", "stderr"))
    assert code == 0, f"exit {code}\n{out}\n{err}"


def test_create_change_and_delete(repo: SpecRepo, versioned: LocalCluster, ns: str) -> None:
    counted, default, gone = f"{ns}.counted", f"{ns}.defaults", f"{ns}.gone"
    repo.topics(
        {"name": counted, "partitions": 2, "replication_factor": 1,
         "config": {"retention.ms": "1d", "segment.ms": "1h"}},
        {"name": default},
        {"name": gone, "partitions": 1, "replication_factor": 1},
    )  # fmt: skip
    plan_file = repo.root / "plan.json"
    _ok(repo.run("plan", "-c", "test", "-o", str(plan_file)))
    _ok(repo.run("apply", "-c", "test", str(plan_file), timeout=300))
    seen = independent_read(versioned.bootstrap, ns)
    assert seen[counted]["partitions"] == 2
    assert seen[counted]["overrides"] == {"retention.ms": "86400000", "segment.ms": "3600000"}
    assert seen[default]["partitions"] == 3  # num.partitions (KIP-464)
    assert all(len(r) == 2 for r in seen[default]["replicas"])  # default.replication.factor

    # more partitions, one config set and one removed, replication factor 1 -> 2, prune `gone`
    repo.topics(
        {"name": counted, "partitions": 4, "replication_factor": 2,
         "config": {"retention.ms": "2d"}},
        {"name": default, "config": {"max.message.bytes": "2097152"}},
    )  # fmt: skip
    _ok(repo.run("apply", "-c", "test", "--prune", "--auto-approve", timeout=300))
    seen = independent_read(versioned.bootstrap, ns)
    assert sorted(seen) == [counted, default]
    assert seen[counted]["partitions"] == 4
    assert all(len(set(r)) == 2 for r in seen[counted]["replicas"])
    assert seen[counted]["overrides"] == {"retention.ms": "172800000"}
    assert seen[default]["overrides"] == {"max.message.bytes": "2097152"}
    again = repo.run("plan", "-c", "test", "--detailed-exitcode")
    assert again.code == 0, again.stdout + again.stderr


def test_drift_of_an_out_of_band_change(repo: SpecRepo, versioned: LocalCluster, ns: str) -> None:
    topic = f"{ns}.watched"
    repo.topics({"name": topic, "partitions": 1, "replication_factor": 1,
                 "config": {"retention.ms": "1d"}})  # fmt: skip
    _ok(repo.run("apply", "-c", "test", "--auto-approve", timeout=300))
    _ok(repo.run("drift", "-c", "test"))
    admin = AdminClient({"bootstrap.servers": versioned.bootstrap}, logger=QUIET_LIBRDKAFKA)
    entry = ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[entry])
    admin.incremental_alter_configs([resource])[resource].result(30)
    drift = repo.run("drift", "-c", "test")
    assert drift.code == 2, drift.stdout + drift.stderr
    assert topic in drift.stdout and "retention.ms" in drift.stdout


def test_import_round_trip(repo: SpecRepo, versioned: LocalCluster, ns: str) -> None:
    admin = AdminClient({"bootstrap.servers": versioned.bootstrap}, logger=QUIET_LIBRDKAFKA)
    made = {
        f"{ns}.imported-a": NewTopic(f"{ns}.imported-a", 3, 2, config={"retention.ms": "3600000"}),
        f"{ns}.imported-b": NewTopic(f"{ns}.imported-b", 1, 1,
                                     config={"cleanup.policy": "compact"}),
    }  # fmt: skip
    for future in admin.create_topics(list(made.values()), operation_timeout=60).values():
        future.result()
    wait_for_topics(admin, {name: t.num_partitions for name, t in made.items()})
    _ok(repo.run("import", "-c", "test", "--include", f"^{ns}", timeout=300))
    written = [
        t["name"]
        for path in sorted((repo.root / "topics").rglob("*.yaml"))
        for t in (yaml.safe_load(path.read_text()) or {}).get("topics", [])
    ]
    assert sorted(written) == sorted(made)
    again = repo.run("plan", "-c", "test", "--detailed-exitcode")
    assert again.code == 0, again.stdout + again.stderr


def test_the_in_use_gate(repo: SpecRepo, versioned: LocalCluster, ns: str) -> None:
    """Evidence on both ends: before Kafka 3.0 there is no max-timestamp lookup (the last
    records are read) and OffsetFetch takes one group per request."""
    boot = versioned.bootstrap
    old, fresh, grouped, never = (f"{ns}.{n}" for n in ("old", "fresh", "grouped", "never"))
    admin = AdminClient({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    made = [NewTopic(n, 2, 1, config=KEEPS_OLD_RECORDS) for n in (old, fresh, grouped, never)]
    for future in admin.create_topics(made, operation_timeout=60).values():
        future.result()
    wait_for_topics(admin, dict.fromkeys((old, fresh, grouped, never), 2))
    month_ago = int(time.time() * 1000) - 30 * 24 * 3600 * 1000
    producer = Producer({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    for partition in (0, 1):
        for _ in range(3):
            producer.produce(old, b"x", partition=partition, timestamp=month_ago)
        producer.produce(grouped, b"x", partition=partition, timestamp=month_ago)
    producer.produce(fresh, b"now", partition=1)
    assert producer.flush(30) == 0
    reader = Consumer(
        {"bootstrap.servers": boot, "group.id": f"{ns}-g", "enable.auto.commit": False},
        logger=QUIET_LIBRDKAFKA,
    )
    try:
        reader.commit(offsets=[TopicPartition(grouped, 1, 1)], asynchronous=False)
    finally:
        reader.close()
    repo.topics(*({"name": n, "state": "absent"} for n in (old, fresh, grouped, never)))
    planned = repo.run("plan", "-c", "test", "--format", "json")
    changes = {c["topic"]: c for c in planned.json()["changes"]}
    in_use = {t for t, c in changes.items() if "in_use" in {h["code"] for h in c["hazards"]}}
    assert in_use == {fresh, grouped}, changes
    assert abs(changes[old]["evidence"]["newest_record"] - month_ago) < 1000
    assert changes[never]["evidence"]["newest_record"] is None
    [group] = changes[grouped]["evidence"]["groups"]
    assert group["group"] == f"{ns}-g" and group["committed"] and group["lag"] == 0


def test_fenced_brokers_as_the_version_can_show_them(
    repo: SpecRepo, versioned: LocalCluster
) -> None:
    """DescribeCluster lists fenced brokers from Kafka 4.0 (KIP-1073): a snapshot of an older
    cluster says it cannot show them (null), never that none is down; every read works."""
    taken = repo.run("snapshot", "-c", "test")
    _ok(taken)
    fenced = json.loads(taken.stdout)["fenced_brokers"]
    if tuple(int(p) for p in versioned.kafka_version.split(".")[:2]) >= (4, 0):
        assert fenced == []
    else:
        assert fenced is None
