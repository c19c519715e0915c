"""`init` writes policy.min_replication_factor from what the cluster's topics have now, never
a silent 1 below it (a replication factor lowered from 3 to 1 would then pass the policy)."""

from __future__ import annotations

from pathlib import Path

import yaml

from reconciler.init_repo import scaffold, write_new
from reconciler.spec.repo_config import load_repo_config
from reconciler.workflow.connection import current_replication_factor
from tests.planning.factories import cluster, spread, topic


def test_the_floor_is_the_smallest_factor_of_the_clusters_topics() -> None:
    state = cluster(
        topic("a", spread(3, 3)),
        topic("b", spread(1, 2)),
        topic("__consumer_offsets", spread(1, 1), internal=True),  # Kafka's own: left out
    )
    assert current_replication_factor(state) == 2


def test_with_no_topic_the_floor_is_the_brokers_default() -> None:
    assert current_replication_factor(cluster(defaults={"default.replication.factor": "3"})) == 3
    assert current_replication_factor(cluster(defaults={})) is None


def _policy(tmp_path: Path, factor: int | None) -> tuple[str, dict[str, object]]:
    write_new(tmp_path, scaffold("prod", "kafka-1.example.com:9092", replication_factor=factor))
    text = (tmp_path / "reconciler.yaml").read_text()
    config, found = load_repo_config(tmp_path, {})
    assert config is not None and not [d for d in found if d.is_error], found
    policy = yaml.safe_load(text)["clusters"]["prod"]["policy"]
    return text, policy


def test_init_writes_the_factor_the_cluster_has(tmp_path: Path) -> None:
    text, policy = _policy(tmp_path, 3)
    assert policy["min_replication_factor"] == 3
    assert "the smallest replication factor of the cluster's topics when init ran" in text


def test_an_unanswered_init_writes_1_and_says_so(tmp_path: Path) -> None:
    text, policy = _policy(tmp_path, None)
    assert policy["min_replication_factor"] == 1
    assert "the cluster did not answer init" in text and "1 refuses nothing" in text
