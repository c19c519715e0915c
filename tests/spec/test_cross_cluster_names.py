"""A topic declared for another cluster (`clusters: [a]`) is named as such, never as
undeclared: in a `depends_on` from a topic of cluster b, and in a `--prune` delete on b."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster.snapshot import to_json
from reconciler.cluster.state import BrokerState, ClusterState, PartitionState, TopicState
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import run_cli


def _repo(root: Path, *topics: dict[str, Any], policy: dict[str, Any] | None = None) -> Path:
    clusters = {name: {"bootstrap": "127.0.0.1:1", "policy": policy or {}} for name in ("a", "b")}
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(yaml_text.safe_dump({"clusters": clusters}))
    (root / "topics" / "main.yaml").write_text(yaml_text.safe_dump({"topics": list(topics)}))
    return root


def test_depends_on_a_topic_of_another_cluster_names_that_cluster(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {"name": "orders.events", "partitions": 1, "clusters": ["a"]},
        {"name": "orders.audit", "partitions": 1, "depends_on": ["orders.events"]},
    )
    result = run_cli(repo, "127.0.0.1:1", "validate")
    assert result.code == 1
    (line,) = [x for x in result.stdout.splitlines() if "R402" in x]
    assert "'orders.audit' depends on 'orders.events', which is declared only for cluster a" in (
        line
    )
    assert "(for cluster b)" in line  # cluster a has both: no problem there
    assert "no topic file declares" not in line and "did you mean" not in line
    # a name declared nowhere is still undeclared
    (repo / "topics" / "main.yaml").write_text(
        yaml_text.safe_dump(
            {"topics": [{"name": "orders.audit", "partitions": 1, "depends_on": ["orders.event"]}]}
        )
    )
    result = run_cli(repo, "127.0.0.1:1", "validate")
    assert "which no topic file declares" in result.stdout


def test_a_prune_delete_of_a_topic_declared_for_another_cluster_says_so(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path / "repo",
        {"name": "orders.events", "partitions": 1, "clusters": ["a"]},
        {"name": "orders.audit", "partitions": 1},
        policy={"allow_delete": True},
    )
    topics = {
        name: TopicState(name, False, (PartitionState(0, 1, (1,), (1,)),), ())
        for name in ("orders.events", "orders.audit", "stray.topic")
    }
    state = ClusterState("id", 1, (BrokerState(1, "127.0.0.1", 1, None),), topics)
    snapshot = tmp_path / "b.json"
    snapshot.write_text(json.dumps(to_json("b", state)))
    result = run_cli(
        repo, "127.0.0.1:1", "plan", "--cluster", "b", "--state", str(snapshot), "--prune",
        "--format", "json",
    )  # fmt: skip
    hazards = {c["topic"]: c["hazards"][0]["message"] for c in result.json()["changes"]}
    assert "declared only for cluster a, not for this one" in hazards["orders.events"]
    assert "no spec names the topic" not in hazards["orders.events"]
    assert "no spec names the topic" in hazards["stray.topic"]


@pytest.mark.kafka
def test_import_leaves_a_topic_declared_for_another_cluster_alone(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    """Importing cluster b's topics must not write a second spec for a topic the repository
    declares for cluster a only: that spec would be a duplicate declaration on a."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    name = f"{ns}.events"
    for future in admin.create_topics([NewTopic(name, 1, 1)]).values():
        future.result()
    wait_for_topic(admin, name)
    clusters = {
        c: {"bootstrap": kafka3.bootstrap, "policy": {"ignore": [f"^(?!{ns.replace('.', '[.]')})"]}}
        for c in ("a", "b")
    }
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(yaml_text.safe_dump({"clusters": clusters}))
    declared = {"name": name, "partitions": 1, "replication_factor": 1, "clusters": ["a"]}
    (tmp_path / "topics" / "main.yaml").write_text(yaml_text.safe_dump({"topics": [declared]}))
    result = run_cli(tmp_path, kafka3.bootstrap, "import", "--cluster", "b")
    assert result.code == 0, result.stdout + result.stderr
    assert name in result.stderr + result.stdout  # listed as skipped: a spec names it
    assert sorted(p.name for p in (tmp_path / "topics").iterdir()) == ["main.yaml"]
    assert run_cli(tmp_path, kafka3.bootstrap, "validate").code == 0
