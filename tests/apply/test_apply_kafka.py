"""`reconciler apply` end to end against the real three-broker cluster."""

from __future__ import annotations

from pathlib import Path

from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read, repo_with_client_id
from tests.request_log import requests_by


def test_apply_then_plan_is_empty_and_cluster_matches(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo, _ = repo_with_client_id(tmp_path, kafka3, ns)
    repo.topics(
        {"name": f"{ns}.orders", "partitions": 6, "replication_factor": 3,
         "config": {"retention.ms": "7d", "min.insync.replicas": 2},
         "depends_on": [f"{ns}.orders-dlq"]},
        {"name": f"{ns}.orders-dlq", "partitions": 2, "replication_factor": 2},
        {"name": f"{ns}.refunds", "assignments": [[1, 2, 3], [2, 3, 1], [3, 1, 2]],
         "depends_on": [f"{ns}.orders"]},
        {"name": f"{ns}.defaults"},
    )  # fmt: skip
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stderr + applied.stdout
    assert "Apply complete: 4 applied" in applied.stdout
    again = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert again.code == 0, again.stdout + again.stderr
    seen = independent_read(kafka3.bootstrap, ns)
    assert seen[f"{ns}.orders"]["partitions"] == 6
    assert all(len(r) == 3 for r in seen[f"{ns}.orders"]["replicas"])
    assert seen[f"{ns}.orders"]["overrides"] == {
        "retention.ms": "604800000",
        "min.insync.replicas": "2",
    }
    assert seen[f"{ns}.orders-dlq"]["partitions"] == 2
    assert seen[f"{ns}.refunds"]["replicas"] == [[1, 2, 3], [2, 3, 1], [3, 1, 2]]
    assert seen[f"{ns}.defaults"]["partitions"] == 3  # num.partitions (KIP-464)
    assert all(len(r) == 2 for r in seen[f"{ns}.defaults"]["replicas"])


def _created_at(cl: LocalCluster, topic: str) -> float:
    """When the brokers made the topic's first partition directory (the cluster's own record)."""
    times = [
        d.stat().st_mtime
        for node in cl.nodes
        for d in (cl.node_dir(node) / "data").glob(f"{topic}-*")
        if d.is_dir()
    ]
    assert times, f"no partition directory for {topic}"
    return min(times)


def test_depends_on_order_is_observed_on_the_cluster(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo, client_id = repo_with_client_id(tmp_path, kafka3, ns)
    # c depends on b depends on a; d is independent.
    repo.topics(
        {"name": f"{ns}.c", "partitions": 1, "depends_on": [f"{ns}.b"]},
        {"name": f"{ns}.b", "partitions": 1, "depends_on": [f"{ns}.a"]},
        {"name": f"{ns}.a", "partitions": 1},
        {"name": f"{ns}.d", "partitions": 1},
    )
    result = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert result.code == 0, result.stderr
    a, b, c = (_created_at(kafka3, f"{ns}.{t}") for t in "abc")
    assert a < b < c
    counts = requests_by(kafka3, client_id)
    # One validate_only request for all creates, then one per dependency level, plus the lock
    # topic and the audit topic.
    assert counts["CREATE_TOPICS"] == 1 + 3 + 2
