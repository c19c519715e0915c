"""A cluster with a broker down or frozen: reads go to the brokers that answer, and a failure
names the brokers that do not (Finding 9).

A three-broker cluster of this module's own, since its brokers are killed and stopped; the
shared kafka1/kafka3 are never touched. A broker frozen with SIGSTOP is continued in teardown.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster.adapter import Connection, describe_cluster
from reconciler.cluster.adapter.probe import Address, silent
from reconciler.errors import ClusterError
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster, Node
from tests.kafka_fixtures import own_cluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import Result, SpecRepo

TOPIC = "degraded.orders"
RAW_LIBRDKAFKA_LINE = re.compile(r"^%\d+\|", re.MULTILINE)  # librdkafka's own stderr format


@pytest.fixture(scope="module")
def cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[LocalCluster]:
    # own_cluster continues a node still frozen before it stops the cluster
    with own_cluster(
        request, tmp_path_factory, kafka_dist, "degraded", 3, overrides=default_overrides(3)
    ) as cl:
        admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
        for future in admin.create_topics([NewTopic(TOPIC, 3, 3)]).values():
            future.result()
        wait_for_topic(admin, TOPIC)
        yield cl


def _signal(node: Node, sig: signal.Signals) -> None:
    assert node.pid is not None
    with contextlib.suppress(ProcessLookupError):
        os.kill(node.pid, sig)


def _repo(root: Path, bootstrap: str, timeout_ms: int = 6000) -> SpecRepo:
    repo = SpecRepo(root, bootstrap, "degraded.")
    repo.write(
        "reconciler.yaml",
        {
            "topics": "topics/",
            "clusters": {
                "test": {
                    "bootstrap": "${KAFKA_BOOTSTRAP}",
                    "client": {"request.timeout.ms": str(timeout_ms)},
                    "policy": {"ignore": ["^(?!degraded\\.)"]},
                }
            },
        },
    )
    repo.topics({"name": TOPIC, "partitions": 3, "replication_factor": 3})
    return repo


def _quiet_success(result: Result) -> None:
    assert result.code == 0, result.stderr
    assert "No changes" in result.stdout
    assert not RAW_LIBRDKAFKA_LINE.search(result.stderr), result.stderr
    # nothing but the advice to pin the cluster's id (this repository pins none) and, on a
    # machine busy enough that the command takes over 5 s, the heartbeat saying it still runs
    said = [
        line
        for line in result.stderr.splitlines()
        if "has no cluster_id" not in line and not line.startswith("... still ")
    ]
    assert said == [], result.stderr


def test_a_frozen_broker_is_named_and_the_others_answer(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Finding 9: with one broker stopped (SIGSTOP), an error names it (address, and id once
    known) within the client timeout instead of 'waiting for controller'; once the cluster has
    fenced it, plan reads from the other two, quietly."""
    frozen = cluster.nodes[1]
    _signal(frozen, signal.SIGSTOP)
    try:
        only_frozen = _repo(tmp_path / "frozen", frozen.address, timeout_ms=3000)
        result = only_frozen.run("plan", "-c", "test", timeout=60)
        assert result.code == 1
        assert f"Not answering: broker at {frozen.address} (no answer within 0.75 s)" in (
            result.stderr
        ), result.stderr
        assert not RAW_LIBRDKAFKA_LINE.search(result.stderr), result.stderr

        connection = Connection("test", cluster.bootstrap, (("request.timeout.ms", "3000"),))
        known = [Address(n.id, "127.0.0.1", n.port) for n in cluster.nodes]
        assert silent(connection, known) == [
            f"broker {frozen.id} at {frozen.address} (no answer within 0.75 s)"
        ]

        _until_fenced(cluster, frozen)
        full = _repo(tmp_path / "full", cluster.bootstrap)
        for _ in range(3):
            _quiet_success(full.run("plan", "-c", "test"))
    finally:
        _signal(frozen, signal.SIGCONT)


def _until_fenced(cluster: LocalCluster, node: Node) -> None:
    """Until DescribeCluster no longer shows the node (its broker session timed out)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if node.id not in {
                b.id for b in describe_cluster(cluster.bootstrap, timeout=3).brokers
            }:
                return
        except ClusterError:
            pass  # the frozen broker was asked: try again
        assert time.monotonic() < deadline, f"broker {node.id} is still registered"
        time.sleep(0.5)


def test_a_killed_broker_leaves_plan_and_snapshot_working_first_try(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Finding 9: right after one broker is killed (SIGKILL), while the cluster still lists it,
    plan and snapshot succeed on the first try with nothing on stderr; the probe names the
    dead broker with its id and address."""
    dead = cluster.nodes[2]
    _signal(dead, signal.SIGKILL)
    repo = _repo(tmp_path / "repo", cluster.bootstrap)
    for attempt in range(3):
        _quiet_success(repo.run("plan", "-c", "test"))
        snapshot = tmp_path / f"snap{attempt}.json"
        result = repo.run("snapshot", "-c", "test", "-o", str(snapshot))
        assert result.code == 0, result.stderr
        assert not RAW_LIBRDKAFKA_LINE.search(result.stderr), result.stderr
        assert snapshot.exists()

    connection = Connection("test", cluster.bootstrap)
    known = [Address(n.id, "127.0.0.1", n.port) for n in cluster.nodes]
    deadline = time.monotonic() + 30
    while (found := silent(connection, known)) != [
        f"broker {dead.id} at {dead.address} (connection refused)"
    ]:  # the port is closed once the kernel has reaped the JVM
        assert time.monotonic() < deadline, found
        time.sleep(0.2)
