"""Replication-factor changes, request counts at scale, fixed sequences of spec edits that
converge (the property over many sequences runs on the fake: test_convergence_fake.py), and
KIP-599's mutation quota, against real brokers."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests.apply.convergence import HAZARDS, RESHAPES, Edit, converges
from tests.apply.helpers import independent_read, repo_with_client_id
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo


def test_replication_factor_1_to_3_ends_with_three_in_sync_replicas_across_racks(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    name = f"{ns}.grow-rf"
    repo.topics({"name": name, "partitions": 3, "replication_factor": 1,
                 "config": {"min.insync.replicas": 1}})  # fmt: skip
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    repo.topics({"name": name, "partitions": 3, "replication_factor": 3,
                 "config": {"min.insync.replicas": 2}})  # fmt: skip
    result = repo.run("apply", "--cluster", "test", "--auto-approve", "--audit-json", "-")
    assert result.code == 0, result.stderr
    assert "reassignment: 3/3 partition(s) done" in result.stderr
    steps = [
        line.split()[1] for line in result.stdout.splitlines() if line.strip().startswith("applied")
    ]
    # min.insync.replicas is raised only after the new replicas are in sync.
    assert steps == ["replication", "configure"]
    seen = independent_read(kafka3.bootstrap, ns)[name]
    racks = {n.id: n.rack for n in kafka3.nodes}
    for replicas, isr in zip(seen["replicas"], seen["isr"], strict=True):
        assert len(replicas) == 3 and sorted(isr) == sorted(replicas)
        assert len({racks[b] for b in replicas}) == 3
    assert seen["overrides"] == {"min.insync.replicas": "2"}
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0


def test_creating_1000_topics_takes_a_constant_number_of_create_requests(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo, client_id = repo_with_client_id(tmp_path, kafka3, ns)
    repo.topics(
        *({"name": f"{ns}.n{i:04d}", "partitions": 1, "replication_factor": 1} for i in range(1000))
    )
    result = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert result.code == 0, result.stderr
    assert "1000 applied" in result.stdout
    counts = requests_by(kafka3, client_id)
    # validate_only + the create itself, plus the lock and the audit topic: not one per topic.
    assert counts["CREATE_TOPICS"] == 4
    # Metadata: reads, polls, and 3 final confirmations by fresh clients (each with its own
    # bootstrap Metadata): constant, never per topic.
    assert counts["METADATA"] < 50
    assert len(independent_read(kafka3.bootstrap, ns)) == 1000


# --- any sequence of spec edits converges: fixed sequences here, many on the fake ----------


@pytest.mark.parametrize("sequence", [HAZARDS, RESHAPES], ids=["hazards", "reshapes"])
def test_fixed_sequences_of_edits_converge(
    kafka3: LocalCluster,
    ns: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sequence: list[Edit],
) -> None:
    """The Kafka side of test_convergence_fake.py's property (which runs many sequences on the
    fake): real creates, deletes, config changes, partition increases and reassignments, each
    plan after an apply empty, the cluster read around reconciler."""
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka3.bootstrap)
    prefix = f"{ns}.{uuid.uuid4().hex[:6]}"
    converges(
        tmp_path / prefix, kafka3.bootstrap, prefix, sequence,
        lambda: independent_read(kafka3.bootstrap, prefix),
    )  # fmt: skip


def _mutation_quota(cl: LocalCluster, dist: Distribution, client_id: str, rate: float) -> None:
    """KIP-599's controller mutation quota for a client id, set as an operator would
    (kafka-configs, from the brokers' own jars)."""
    subprocess.run(
        ["java", "-cp", dist.classpath, "kafka.admin.ConfigCommand", "--bootstrap-server",
         cl.bootstrap, "--alter", "--add-config", f"controller_mutation_rate={rate}",
         "--entity-type", "clients", "--entity-name", client_id],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def test_apply_under_a_mutation_quota_goes_at_the_rate_the_brokers_set(
    kafka1: LocalCluster, kafka_dist: Distribution, ns: str, tmp_path: Path
) -> None:
    """KIP-599: librdkafka sends CreateTopics v4 and DeleteTopics v4 (measured), which a broker
    over its controller mutation quota accepts and then mutes the connection for the throttle
    time, rather than refusing items (THROTTLING_QUOTA_EXCEEDED, v6+). Each next request waits
    for that: the brokers set the rate, and apply completes."""
    repo, client_id = repo_with_client_id(tmp_path, kafka1, ns)
    _mutation_quota(kafka1, kafka_dist, client_id, 1)  # one partition a second
    # The same client id spends the quota first (a burst of 11 allowed): every mutation the
    # apply sends next (the lock topic, the creates, the lock's release) meets it.
    admin = AdminClient(
        {"bootstrap.servers": kafka1.bootstrap, "client.id": client_id}, logger=QUIET_LIBRDKAFKA
    )
    admin.create_topics([NewTopic(f"{ns}.spent", 20, 1)])[f"{ns}.spent"].result()
    repo.topics(
        {"name": f"{ns}.spent", "partitions": 20, "replication_factor": 1},
        *({"name": f"{ns}.q{i}", "partitions": 1, "replication_factor": 1} for i in range(5)),
    )
    result = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert result.code == 0, result.stderr
    assert "5 applied" in result.stdout
    assert {f"{ns}.q{i}" for i in range(5)} <= set(independent_read(kafka1.bootstrap, ns))
    throttled, refused = 0, 0
    for node in kafka1.nodes:
        for line in (kafka1.node_dir(node) / "requests.log").open(errors="replace"):
            if f'"clientId":"{client_id}"' not in line or '"isForwarded":false' not in line:
                continue
            if '"CREATE_TOPICS"' in line or '"DELETE_TOPICS"' in line:
                throttled += '"throttleTimeMs":0,' not in line.split('"response":', 1)[1][:40]
                refused += '"errorCode":89' in line  # THROTTLING_QUOTA_EXCEEDED
    assert throttled >= 1  # the brokers did slow this client down
    assert refused == 0
