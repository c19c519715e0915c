"""What other applies leave on the real cluster is reported, and the next apply cleans it up.

- A throttled replication-factor change whose apply is killed (SIGKILL) mid-reassignment leaves
  the brokers' rates and the topic's throttled-replica lists behind: `drift` names them (exit 2)
  and the next apply removes them, checked with the admin client.
- `plan` while another apply holds the lock says so, and a saved plan carries the mark.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    ResourceType,
)

from reconciler.apply import Options, apply_plan
from reconciler.apply.lock import Holder
from reconciler.apply.record import journal
from reconciler.cluster import adapter
from reconciler.cluster.protocol.throttles import Throttle
from reconciler.errors import ClusterError
from reconciler.local.state import LocalCluster
from reconciler.workflow.connection import connection as connection_of
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.apply.helpers import independent_read, wait_until
from tests.kafka_helpers import clients
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo

RATE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
LIST_KEYS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


def _dynamic(admin: AdminClient, kind: ResourceType, name: str) -> dict[str, str]:
    resource = ConfigResource(kind, name)
    entries = admin.describe_configs([resource])[resource].result()
    own = {ConfigSource.DYNAMIC_TOPIC_CONFIG.value, ConfigSource.DYNAMIC_BROKER_CONFIG.value}
    return {k: e.value for k, e in entries.items() if e.source in own}


def _throttles(admin: AdminClient, topic: str) -> dict[str, dict[str, str]]:
    """Every throttle config the brokers and the topic carry, read by librdkafka directly."""
    found = {
        f"broker {b}": {k: v for k, v in _dynamic(admin, ResourceType.BROKER, b).items()
                        if k in RATE_KEYS}
        for b in ("1", "2", "3")
    }  # fmt: skip
    found[topic] = {
        k: v for k, v in _dynamic(admin, ResourceType.TOPIC, topic).items() if k in LIST_KEYS
    }
    return {where: keys for where, keys in found.items() if keys}


def _unthrottle_brokers(admin: AdminClient) -> None:
    """The shared cluster's brokers without any throttle rate, whatever a failed run left."""
    for broker in ("1", "2", "3"):
        entries = [
            ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in RATE_KEYS
        ]
        resource = ConfigResource(ResourceType.BROKER, broker, incremental_configs=entries)
        for future in admin.incremental_alter_configs([resource]).values():
            with contextlib.suppress(Exception):
                future.result()


def test_a_throttle_a_killed_apply_left_is_drift_and_the_next_apply_removes_it(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.big"
    with clients(kafka3) as made:
        made.create_topic(topic, assignment=[[1], [2], [3]])
        producer = made.producer({"linger.ms": "20"})
        payload = os.urandom(1024)  # incompressible
        for i in range(3072):  # 3 MiB over three partitions: seconds to copy at 256 KiB/s
            producer.produce(topic, payload, partition=i % 3)
        assert producer.flush(30) == 0

    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 3, "replication_factor": 3})
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka3.bootstrap, "NO_COLOR": "1"}
    command = [*RECONCILER, "--repo", str(tmp_path), "apply", "--cluster", "test",
               "--auto-approve", "--throttle", "256KiB"]  # fmt: skip
    try:
        apply = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        assert apply.stderr is not None
        said = []
        for line in apply.stderr:  # killed once the reassignments run under the throttle
            said.append(line)
            if "reassignment: " in line:
                break
        apply.kill()
        apply.wait(timeout=30)
        assert any("throttling replication" in line for line in said), "".join(said)
        left = _throttles(admin, topic)
        assert set(left[topic]) == set(LIST_KEYS), left

        found = repo.run("drift", "--cluster", "test")
        assert found.code == 2, found.stdout + found.stderr
        assert "leader.replication.throttled.replicas" in found.stdout
        assert "follower.replication.throttled.replicas" in found.stdout

        # The reassignment goes on without the apply; once it is done, only the throttle is left
        def settled() -> bool:
            seen = independent_read(kafka3.bootstrap, topic)[topic]
            return bool(seen["isr"] == [[1, 2, 3]] * 3)

        wait_until(settled, timeout=300)
        planned = repo.run("plan", "--cluster", "test", "--format", "json")
        rules = {d["rule"] for d in json.loads(planned.stdout)["diagnostics"]}
        assert "leftover_throttle" in rules, planned.stdout
        assert _throttles(admin, topic), "the throttle went away before the next apply"

        cleaned = repo.run("apply", "--cluster", "test", "--auto-approve")
        assert cleaned.code == 0, cleaned.stdout + cleaned.stderr
        assert "removed the replication throttle" in cleaned.stderr
        assert _throttles(admin, topic) == {}
        after = repo.run("drift", "--cluster", "test")
        assert after.code == 0, after.stdout + after.stderr
    finally:
        _unthrottle_brokers(admin)


class _ControllerAwayAtTheEnd(adapter.Cluster):
    """The real cluster, except that removing a throttle fails as it does while the controller
    is away (IncrementalAlterConfigs goes to the controller): everything else is Kafka's."""

    def clear_throttle(self, done: Throttle) -> None:
        raise ClusterError("the controller did not answer (injected)")


def test_a_throttle_a_finished_apply_could_not_remove_is_carried_in_its_record(
    kafka3: LocalCluster, ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The apply finishes (its reassignment done) but cannot remove its throttle: its finished
    record carries it (throttles_left), `drift` exits 2, and the next apply removes it."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.small"
    with clients(kafka3) as made:
        made.create_topic(topic, assignment=[[2]])
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 1, "replication_factor": 2})
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka3.bootstrap)
    plan = plan_of(Context(tmp_path), "test")
    said: list[str] = []
    try:
        connection = connection_of(Context(tmp_path).specs("test").cluster)
        with _ControllerAwayAtTheEnd(connection) as cluster:
            result = apply_plan(
                plan, cluster, options=Options(throttle=1 << 20), progress=said.append
            )
            tail = journal.read_tail(cluster)
        assert result.ok, said
        assert any("could not be removed" in line for line in said), said
        assert tail.end is not None and tail.end["kind"] == "finished"
        assert [t["apply_id"] for t in tail.end["throttles_left"]] == [result.audit["apply_id"]]
        assert set(_throttles(admin, topic)[topic]) == set(LIST_KEYS)

        found = repo.run("drift", "--cluster", "test")
        assert found.code == 2, found.stdout + found.stderr
        assert "follower.replication.throttled.replicas" in found.stdout
        cleaned = repo.run("apply", "--cluster", "test", "--auto-approve")
        assert cleaned.code == 0, cleaned.stdout + cleaned.stderr
        assert f"removed the replication throttle apply {result.audit['apply_id']}" in (
            cleaned.stderr
        )
        assert _throttles(admin, topic) == {}
        assert repo.run("drift", "--cluster", "test").code == 0
    finally:
        _unthrottle_brokers(admin)


def test_an_operators_throttle_is_not_reported_nor_removed(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Throttled-replica lists nobody recorded (set with kafka-configs, say) are an operator's:
    neither drift nor a leftover for apply to remove."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.ops"
    with clients(kafka3) as made:
        made.create_topic(topic)
    entry = ConfigEntry(LIST_KEYS[0], "0:1", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[entry])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    wait_until(lambda: bool(_throttles(admin, topic)))
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 1, "replication_factor": 1})
    assert repo.run("drift", "--cluster", "test").code == 0
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stdout + applied.stderr
    assert _throttles(admin, topic) == {topic: {LIST_KEYS[0]: "0:1"}}


def test_plan_while_the_lock_is_held_says_so_and_marks_the_saved_plan(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    holder = Holder.me("alice@ci-7", "sha256:" + "0" * 64)
    with adapter.Cluster(adapter.Connection("test", kafka1.bootstrap)) as cluster:
        assert cluster.try_lock(holder.encode(), holder.token)
        try:
            saved = tmp_path / "plan.json"
            shown = repo.run("plan", "--cluster", "test", "-o", str(saved))
            assert shown.code == 0, shown.stdout + shown.stderr
            assert "an apply holds the cluster's lock (alice@ci-7 on" in shown.stdout
            assert f"since {holder.since}" in shown.stdout
            marks = [d for d in json.loads(saved.read_text())["diagnostics"]
                     if d["rule"] == "apply_lock_held"]  # fmt: skip
            assert len(marks) == 1 and "alice@ci-7" in marks[0]["message"]
        finally:
            cluster.release_lock(holder.token)
    wait_until(
        lambda: "holds the cluster's lock" not in repo.run("plan", "--cluster", "test").stdout
    )
