"""`reconciler import` against the real three-broker cluster: import, then plan, is empty."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka

# Overrides of every value type and unit, an override equal to Kafka's default (still an
# override: the spec must keep it), sentinels, lists and enums.
CONFIGS: tuple[dict[str, str], ...] = (
    {},
    {"retention.ms": "604800000"},
    {"retention.ms": "5400000", "cleanup.policy": "compact,delete"},
    {"segment.bytes": "536870912", "min.insync.replicas": "1"},
    {"unclean.leader.election.enable": "true"},
    {"min.cleanable.dirty.ratio": "0.3", "cleanup.policy": "compact"},
    {"max.message.bytes": "1048589", "compression.type": "zstd"},
    {"retention.bytes": "-1", "retention.ms": "-1"},
    {"message.timestamp.type": "LogAppendTime", "retention.bytes": "1000000000"},
    {"delete.retention.ms": "86400000", "segment.ms": "3600000"},
)


def shapes(ns: str, count: int) -> list[NewTopic]:
    """`count` topics of varied names, counts, factors, configs and placements."""
    teams = ("payments", "inventory", "search", "Audit", "x")
    topics = []
    for i in range(count):
        name = f"{ns}.{teams[i % len(teams)]}.{i:04}" if i % 7 else f"{ns}_flat-{i:04}"
        partitions, rf = 1 + i % 6, 1 + (i // 6) % 3
        config = CONFIGS[i % len(CONFIGS)]
        if i % 25 == 3:  # by hand: every leader on broker 1, which Kafka's placer never does
            partitions = 4 + i % 3
            assignment = [[1, 2 + p % 2] for p in range(partitions)]
            topics.append(NewTopic(name, partitions, replica_assignment=assignment, config=config))
        else:
            topics.append(NewTopic(name, partitions, rf, config=config))
    return topics


def create(admin: AdminClient, topics: list[NewTopic]) -> None:
    for future in admin.create_topics(topics, operation_timeout=60).values():
        future.result()
    wait_for_topics(admin, {t.topic: t.num_partitions for t in topics})


def specs(root: Path) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((root / "topics").rglob("*.yaml")):
        for entry in yaml.safe_load(path.read_text()).get("topics", []):
            assert entry["name"] not in found, f"{entry['name']} declared twice"
            found[entry["name"]] = entry
    return found


def test_import_of_500_varied_topics_then_plan_is_empty(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topics = shapes(ns, 500)
    create(admin, topics)
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)

    imported = repo.run("import", "--cluster", "test", timeout=300)
    assert imported.code == 0, imported.stdout + imported.stderr
    assert "Imported 500 topic(s) of cluster 'test'" in imported.stdout

    written = specs(tmp_path)
    assert set(written) == {t.topic for t in topics}
    for t in topics:
        spec = written[t.topic]
        assert set(spec.get("config", {})) == set(t.config or {}), t.topic  # overrides, no defaults
        if t.replica_assignment:
            assert spec["assignments"] == t.replica_assignment
    assert written[f"{ns}.inventory.0001"]["config"] == {"retention.ms": "7d"}
    assert written[f"{ns}.search.0002"]["config"] == {
        "retention.ms": "90m",
        "cleanup.policy": "compact,delete",
    }

    assert repo.run("validate").code == 0
    plan = repo.run("plan", "--cluster", "test", "--format", "json", "--detailed-exitcode")
    assert plan.code == 0, plan.stdout[:3000] + plan.stderr
    document = plan.json()
    assert (document["changes"], document["unmanaged"]) == ([], [])
    drift = repo.run("drift", "--cluster", "test")
    assert drift.code == 0, drift.stdout[:3000] + drift.stderr

    again = repo.run("import", "--cluster", "test")
    assert again.code == 0, again.stdout + again.stderr
    assert "Nothing to import" in again.stdout
    assert "skipped 500 topic(s) a spec already names" in again.stdout
    assert specs(tmp_path) == written


def test_import_never_overwrites_and_respects_include_exclude(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    create(
        admin,
        [
            NewTopic(f"{ns}.a", 2, 2, config={"retention.ms": "3600000"}),
            NewTopic(f"{ns}.b", 1, 1),
            NewTopic(f"{ns}.c", 1, 1),
        ],
    )
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    # The user's own file under the name import would pick, declaring one of the topics.
    mine = f"topics:\n  - name: {ns}.b\n    partitions: 1\n"
    repo.write("topics/t.yaml", mine)

    bad = repo.run("import", "--cluster", "test", "--include", "(")
    assert bad.code == 1 and "--include '(' is not a regular expression" in bad.stderr

    first = repo.run("import", "--cluster", "test", "--exclude", r"\.c$")
    assert first.code == 0, first.stdout + first.stderr
    assert (tmp_path / "topics" / "t.yaml").read_text() == mine
    assert "skipped 1 topic(s) a spec already names" in first.stdout
    assert set(yaml.safe_load((tmp_path / "topics/t-2.yaml").read_text())["topics"][0]) >= {
        "name",
        "partitions",
    }
    assert set(specs(tmp_path)) == {f"{ns}.a", f"{ns}.b"}

    second = repo.run("import", "--cluster", "test", "--include", r"\.c$")
    assert second.code == 0, second.stdout + second.stderr
    assert (tmp_path / "topics" / "t-3.yaml").exists()
    assert set(specs(tmp_path)) == {f"{ns}.a", f"{ns}.b", f"{ns}.c"}
    plan = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert plan.code == 0, plan.stdout + plan.stderr


def test_a_cluster_setting_validate_refuses_is_reported_not_hidden(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    """Kafka accepts min.insync.replicas above the replication factor (writes with acks=all
    then fail); the spec language refuses it, so import says so and exits 1."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    create(admin, [NewTopic(f"{ns}.strict", 1, 1, config={"min.insync.replicas": "2"})])
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    result = repo.run("import", "--cluster", "test")
    assert result.code == 1, result.stdout + result.stderr
    assert "topics/t.yaml:" in result.stderr and "R103" in result.stderr
    assert "do not describe the cluster exactly" in result.stderr
