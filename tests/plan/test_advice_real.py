"""Advice that is true, on real brokers: the effective replication factor in the
min.insync.replicas rule, and a stopped broker named as down, never as gone.

The broker-down case runs on a three-broker cluster of its own (module scope): it stops a node,
which must never disturb the shared kafka1/kafka3. Plans with a broker down whose replicas exist
are tested in tests/planning/test_broker_down.py (the same rule, from the replicas).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.local import cluster as local_cluster
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests.kafka_fixtures import own_cluster
from tests.spec_repo import SpecRepo, run_cli

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.kafka


def test_min_insync_above_the_broker_default_rf_is_the_same_error_as_written(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """kafka3's default.replication.factor is 2: `min.insync.replicas: 3` with the factor left
    to it is R103, an error, exactly as with `replication_factor: 2` written out."""
    assert kafka3.describe().brokers  # the cluster is up; its default RF is read by the plan
    left = SpecRepo(tmp_path / "left", kafka3.bootstrap, ns)
    left.topics({"name": f"{ns}.strict", "partitions": 1, "config": {"min.insync.replicas": 3}})
    plan = left.run("plan", "--cluster", "test", "--format", "json")
    assert plan.code == 1, plan.stdout + plan.stderr
    (found,) = [d for d in plan.json()["diagnostics"] if d["topic"] == f"{ns}.strict"]
    assert "(the broker's default.replication.factor)" in found["message"]
    assert "raise replication_factor to 4" not in found["message"]

    written = SpecRepo(tmp_path / "written", kafka3.bootstrap, ns)
    written.topics(
        {"name": f"{ns}.strict", "partitions": 1, "replication_factor": 2,
         "config": {"min.insync.replicas": 3}},
    )  # fmt: skip
    validate = written.run("validate", "--format", "json")
    assert validate.code == 1
    (same,) = [d for d in validate.json()["diagnostics"] if d.get("topic") == f"{ns}.strict"]
    assert (found["code"], found["rule"], found["severity"]) == (
        same["code"], same["rule"], same["severity"],
    ) == ("R103", "min_insync_replicas", "error")  # fmt: skip


@pytest.fixture(scope="module")
def three(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[LocalCluster]:
    with own_cluster(request, tmp_path_factory, kafka_dist, "advice", 3) as cl:
        yield cl


def test_a_stopped_broker_is_named_down_and_no_spec_change_is_advised(
    three: LocalCluster, tmp_path: Path
) -> None:
    """The example repository planned on a fresh three-broker cluster with broker 3 stopped:
    no replica names broker 3 yet, so only Kafka can say it is down (registered, fenced).
    Every refusal names it; none advises a lower replication factor or other assignments."""
    local_cluster.stop_node(three, 3)
    deadline = time.monotonic() + 60
    while 3 in {b.id for b in three.describe().brokers}:  # until the cluster stops listing it
        assert time.monotonic() < deadline, "broker 3 is still listed after it stopped"
        time.sleep(0.2)
    repo = tmp_path / "example"
    shutil.copytree(ROOT / "topics", repo / "topics")
    shutil.copy(ROOT / "reconciler.yaml", repo / "reconciler.yaml")

    snapshot = run_cli(repo, three.bootstrap, "snapshot", "--cluster", "local")
    assert snapshot.code == 0, snapshot.stderr
    assert snapshot.json()["fenced_brokers"] == [3]

    plan = run_cli(repo, three.bootstrap, "plan", "--cluster", "local", "--format", "json")
    assert plan.code == 1, plan.stdout + plan.stderr
    errors = [d for d in plan.json()["diagnostics"] if d["severity"] == "error"]
    assert errors and {d["rule"] for d in errors} == {"broker_down"}, errors
    assert "payments.refunds.v1" in {d["topic"] for d in errors}  # its assignments name 3
    for d in errors:
        assert "broker(s) 3" in d["message"] and "down" in d["message"], d
        for wrong in ("at most", "does not have", "fix the assignments"):
            assert wrong not in d["message"], d

    # the same refusals are what drift reports (exit 2), each with the plan's sentence
    drifted = run_cli(repo, three.bootstrap, "drift", "--cluster", "local", "--format", "json")
    assert drifted.code == 2, drifted.stdout + drifted.stderr
    blocked = {(d["topic"], d["field"]) for d in drifted.json()["drift"] if d["kind"] == "blocked"}
    assert blocked == {(d["topic"], "broker_down") for d in errors}
