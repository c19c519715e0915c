"""Apply's safety nets against the real three-broker cluster: stale plans, the lock, and an
apply killed mid-run converging on re-run. (Failures that skip their dependents: apply's own
logic, on the fake in test_apply_fake.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewPartitions

from reconciler.cluster import adapter
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.local.state import LocalCluster
from tests.apply.helpers import chain, independent_read, wait_until
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo


def _spawn(repo: SpecRepo, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1"}
    return subprocess.Popen(
        [*RECONCILER, "--repo", str(repo.root), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def test_stale_plan_is_refused_with_what_changed(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 2})
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    repo.topics({"name": f"{ns}.a", "partitions": 4})
    saved = tmp_path / "plan.json"
    assert repo.run("plan", "--cluster", "test", "-o", str(saved)).code == 0
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_partitions([NewPartitions(f"{ns}.a", 3)]).values():
        future.result()  # someone else grows the topic behind the plan's back
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1
    assert "the plan is stale" in refused.stderr
    assert f"{ns}.a now has 3 partitions (the plan saw 2)" in refused.stderr
    assert independent_read(kafka3.bootstrap, ns)[f"{ns}.a"]["partitions"] == 3


def test_lock_held_by_someone_else_refuses_naming_the_holder(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1})
    holder = (
        b'{"host": "ci-runner-7", "pid": 4242, "plan": "sha256:abc", '
        b'"since": "2026-01-02T03:04:05+00:00", "user": "deploy"}'
    )
    cluster = adapter.Cluster(adapter.Connection("test", kafka3.bootstrap))
    assert cluster.try_lock(holder)
    try:
        refused = repo.run("apply", "--cluster", "test", "--auto-approve")
        assert refused.code == 1
        assert "another apply is running" in refused.stderr
        assert "deploy on ci-runner-7 (pid 4242) since 2026-01-02T03:04:05+00:00" in refused.stderr
        assert "--force-unlock" in refused.stderr
        forced = repo.run("apply", "--cluster", "test", "--auto-approve", "--force-unlock")
        assert forced.code == 0, forced.stderr
        assert "breaking the lock of deploy on ci-runner-7" in forced.stderr
    finally:
        cluster.release_lock()
        cluster.close()


def test_two_applies_started_together_one_is_refused(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics(*chain(ns, 12))
    cluster = adapter.Cluster(adapter.Connection("test", kafka3.bootstrap))
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    first = _spawn(repo, "apply", "--cluster", "test", "--auto-approve")
    try:
        # Freeze the first apply once it holds the lock and has recorded itself, then start
        # the second one.
        wait_until(lambda: LOCK_TOPIC in admin.list_topics(timeout=10).topics)
        os.kill(first.pid, signal.SIGSTOP)
        while cluster.lock_holder(wait=2.0) is None:
            os.kill(first.pid, signal.SIGCONT)
            time.sleep(0.1)
            os.kill(first.pid, signal.SIGSTOP)
        second = repo.run("apply", "--cluster", "test", "--auto-approve")
    finally:
        os.kill(first.pid, signal.SIGCONT)
        cluster.close()
    _out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert second.code == 1
    assert "another apply is running on cluster 'test'" in second.stderr
    assert f"(pid {first.pid}) since " in second.stderr
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0


def test_interrupted_apply_converges_on_rerun(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    topics = chain(ns, 8)
    repo.topics(*topics)
    saved = tmp_path / "plan.json"
    assert repo.run("plan", "--cluster", "test", "-o", str(saved)).code == 0
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)

    def made() -> set[str]:
        return {t for t in admin.list_topics(timeout=10).topics if t.startswith(ns)}

    run = _spawn(repo, "apply", "--cluster", "test", str(saved))
    wait_until(lambda: f"{ns}.t01" in made())
    run.kill()  # SIGKILL mid-run: no cleanup, the lock stays behind
    run.wait(timeout=30)
    done_before = made()
    assert len(done_before) < len(topics)
    assert LOCK_TOPIC in admin.list_topics(timeout=10).topics

    again = repo.run("apply", "--cluster", "test", str(saved), "--audit-json", "-")
    assert again.code == 0, again.stderr
    assert "its process is gone" in again.stderr  # the dead holder's lock was broken
    assert "resuming" in again.stderr
    audit = again.stdout[again.stdout.index("{") :]
    record = json.loads(audit)
    redone = {c["topic"] for c in record["changes"] if c["result"] == "applied"}
    assert redone.isdisjoint(done_before)  # finished work is not repeated
    assert made() == {t["name"] for t in topics}
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0
