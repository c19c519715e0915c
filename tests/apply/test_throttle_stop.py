"""Ctrl-C while apply follows a throttled replication-factor change, on the real three brokers.

The usual reason to press it there is that the moves hurt the cluster: the throttle must stay
while Kafka goes on moving (removing it would let the moves run at full speed), the change is
reported in progress, never applied, plan and drift say so, and then either the next apply
follows the moves and removes the throttle once Kafka reports them done, or
`apply --cancel-reassignments` cancels them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_END, TopicPartition
from confluent_kafka.admin import AdminClient, ResourceType

from reconciler.apply.record.audit_record import decode
from reconciler.cluster import adapter
from reconciler.local.state import LocalCluster
from tests.apply.helpers import THROTTLE_KEYS, dynamic_configs, independent_read
from tests.kafka_helpers import clients
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo


def _broker_rates(admin: AdminClient) -> set[str]:
    return {
        v
        for b in ("1", "2", "3")
        for k, v in dynamic_configs(admin, ResourceType.BROKER, b).items()
        if k.endswith("replication.throttled.rate")
    }


def _topic_with_data(cluster: LocalCluster, topic: str, mib: int) -> None:
    """Three partitions, one replica each on brokers 1, 2, 3, holding `mib` MiB of records."""
    with clients(cluster) as made:
        made.create_topic(topic, assignment=[[1], [2], [3]])
        producer = made.producer({"linger.ms": "20"})
        payload = os.urandom(1024)  # incompressible
        for i in range(mib * 1024):
            producer.produce(topic, payload, partition=i % 3)
            producer.poll(0)
        assert producer.flush(60) == 0


def _interrupted_apply(repo: Path, bootstrap: str, rate: str) -> tuple[int, str, str]:
    """`apply --throttle RATE`, sent SIGINT as soon as it has started the moves."""
    env = {**os.environ, "KAFKA_BOOTSTRAP": bootstrap, "NO_COLOR": "1"}
    command = [*RECONCILER, "--repo", str(repo), "apply", "--cluster", "test",
               "--auto-approve", "--throttle", rate]  # fmt: skip
    apply = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert apply.stderr is not None and apply.stdout is not None
    err: list[str] = []
    started = threading.Event()

    def read_err() -> None:
        assert apply.stderr is not None
        for line in apply.stderr:
            err.append(line)
            if "reassignment: 0/" in line:  # the moves were sent and are being followed
                started.set()

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    assert started.wait(180), "".join(err)
    apply.send_signal(signal.SIGINT)
    out = apply.stdout.read()
    code = apply.wait(120)
    reader.join(30)
    return code, out, "".join(err)


def _stopped_mid_move(kafka3: LocalCluster, repo: SpecRepo, topic: str, rate: str) -> str:
    """The interrupted apply's stdout, after checking what it left: in progress, throttled."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    code, out, err = _interrupted_apply(repo.root, kafka3.bootstrap, rate)
    assert code == 130, out + err
    assert "throttling replication to" in err
    assert "the replication throttle stays while the moves go on" in err, err
    rows = [line.strip() for line in out.splitlines()]
    assert any(r.startswith("in progress") and "replication" in r for r in rows), out
    assert not any(r.startswith("applied") and "replication" in r for r in rows), out
    assert "1 in progress" in out, out
    # The throttle is still on the brokers and the topic, and Kafka is still moving
    assert _broker_rates(admin), "the brokers' throttle rate was removed"
    assert set(dynamic_configs(admin, ResourceType.TOPIC, topic)) >= THROTTLE_KEYS
    plan = repo.run("plan", "--cluster", "test")
    assert "a partition reassignment apply" in plan.stdout and "is in progress" in plan.stdout, (
        plan.stdout
    )
    assert "--cancel-reassignments" in plan.stdout
    drift = repo.run("drift", "--cluster", "test")
    assert "is in progress" in drift.stdout, drift.stdout
    return out


def _apply_following_then_emptied(repo: Path, bootstrap: str, topic: str) -> tuple[int, str, str]:
    """The next `apply`, once it says it follows the moves, with the copies' remaining work
    taken away: the topic's records deleted, so the new replicas catch up on their next fetch.
    Left to the throttle, the copies take a minute of waiting that the claim does not need:
    apply follows moves Kafka reports in progress, and removes the throttle once they are done."""
    env = {**os.environ, "KAFKA_BOOTSTRAP": bootstrap, "NO_COLOR": "1"}
    command = [*RECONCILER, "--repo", str(repo), "apply", "--cluster", "test", "--auto-approve"]
    apply = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert apply.stderr is not None and apply.stdout is not None
    err: list[str] = []
    following = threading.Event()

    def read_err() -> None:
        assert apply.stderr is not None
        for line in apply.stderr:
            err.append(line)
            if "following the partition moves apply" in line:
                following.set()

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    try:
        assert following.wait(180), "".join(err)
        admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
        emptied = admin.delete_records([TopicPartition(topic, p, OFFSET_END) for p in range(3)])
        for future in emptied.values():
            future.result(60)
        out = apply.stdout.read()
        code = apply.wait(300)
    finally:
        if apply.poll() is None:
            apply.kill()
    reader.join(30)
    return code, out, "".join(err)


def test_a_stopped_throttled_move_keeps_its_throttle_and_the_next_apply_finishes_it(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.follow"
    _topic_with_data(kafka3, topic, 18)  # 6 MiB a partition
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 3, "replication_factor": 2})
    # Each broker copies one partition at 64 KiB/s after a first unthrottled fetch of 1 MiB
    # (the brokers' quota is measured over the last 11 seconds): a minute of moves, which the
    # checks of the stopped apply need in progress; the next apply then empties the topic
    _stopped_mid_move(kafka3, repo, topic, "64KiB")

    code, out, err = _apply_following_then_emptied(repo.root, kafka3.bootstrap, topic)
    assert code == 0, out + err
    assert "removed the replication throttle apply" in err, err
    assert not _broker_rates(admin)
    assert not THROTTLE_KEYS & set(dynamic_configs(admin, ResourceType.TOPIC, topic))
    seen = independent_read(kafka3.bootstrap, topic)[topic]
    assert [len(r) for r in seen["replicas"]] == [2, 2, 2]
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0


def _audit(bootstrap: str) -> list[dict[str, Any]]:
    """Every record of the audit topic, decoded."""
    with adapter.Cluster(adapter.Connection("test", bootstrap)) as cluster:
        return [r for r in map(decode, cluster.read_audit()) if r is not None]


def test_cancel_reassignments_puts_a_stopped_move_back_and_apply_then_removes_the_throttle(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.cancel"
    _topic_with_data(kafka3, topic, 12)
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 3, "replication_factor": 2})
    _stopped_mid_move(kafka3, repo, topic, "8KiB")  # minutes of copying: only a cancel ends it

    refused = repo.run("apply", "--cluster", "test", "--cancel-reassignments", "--prune")
    assert refused.code == 1 and "takes no --prune" in refused.stderr, refused.stderr
    cancelled = repo.run("apply", "--cluster", "test", "--cancel-reassignments", "--auto-approve")
    assert cancelled.code == 0, cancelled.stdout + cancelled.stderr
    back = [
        int(line.rsplit("-", 1)[1])
        for line in cancelled.stdout.splitlines()
        if line.strip().startswith("cancelled ")
    ]
    assert len(back) == 3 and "3 of 3 move(s) cancelled" in cancelled.stdout, cancelled.stdout
    # The audit topic holds the cancel: who and the moves before the request, the outcome after
    records = _audit(kafka3.bootstrap)
    asked = [r for r in records if r.get("kind") == "cancel" and r["moves"][0][0] == topic]
    assert len(asked) == 1 and asked[0]["who"], records
    assert sorted(m[1] for m in asked[0]["moves"]) == sorted(back)
    outcome = [r for r in records if r.get("cancel_id") == asked[0]["cancel_id"]]
    assert [r["kind"] for r in outcome] == ["cancel", "cancelled"], outcome
    assert outcome[1]["refused"] == [] and outcome[1]["left"] == []
    deadline = time.monotonic() + 60
    while any(
        len(independent_read(kafka3.bootstrap, topic)[topic]["replicas"][p]) != 1 for p in back
    ):
        assert time.monotonic() < deadline, "the cancelled moves did not go back"
        time.sleep(0.5)
    plan = repo.run("plan", "--cluster", "test")
    assert "replication_factor" in plan.stdout and "is in progress" not in plan.stdout, plan.stdout
    assert "a replication throttle left by apply" in plan.stdout, plan.stdout

    # The plan's change again, unthrottled: the leftover throttle goes first
    done = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert done.code == 0, done.stdout + done.stderr
    assert "removed the replication throttle apply" in done.stderr, done.stderr
    assert not _broker_rates(admin)
    assert not THROTTLE_KEYS & set(dynamic_configs(admin, ResourceType.TOPIC, topic))
    seen = independent_read(kafka3.bootstrap, topic)[topic]
    assert [len(r) for r in seen["replicas"]] == [2, 2, 2]
