"""The audit record is a write-ahead log (Finding 7): nothing is changed when the started
record cannot be written (the broker refuses it); an apply that never finished is closed by
the next one with what the cluster shows; large applies keep their whole record. Real
three-broker cluster. (The journal's started, progress and final records of one apply:
apply's own, on the fake in test_apply_fake.py.)"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ResourceType,
)

from reconciler.apply import Status, apply_plan
from reconciler.apply.record import journal
from reconciler.cluster import adapter
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC
from reconciler.errors import ClusterError
from reconciler.local.state import LocalCluster
from reconciler.workflow.connection import connection as connection_of
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.apply.helpers import chain, wait_until
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo


def _journal(bootstrap: str) -> dict[str, dict[str, Any]]:
    with adapter.Cluster(adapter.Connection("test", bootstrap)) as cluster:
        return journal.applies(cluster.read_audit())


def _audit_json(stdout: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(stdout[stdout.index("{") :])
    return record


def _topics(admin: AdminClient, ns: str) -> set[str]:
    return {t for t in admin.list_topics(timeout=10).topics if t.startswith(ns)}


def test_no_change_is_made_when_the_started_record_cannot_be_written(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 7: the record comes before the first change; an apply that cannot write it
    changes nothing. (The audit topic is made to refuse every record: max.message.bytes 64.)"""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1})
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    with adapter.Cluster(adapter.Connection("test", kafka3.bootstrap)) as cluster:
        cluster.ensure_audit()

    def max_bytes(value: str) -> None:
        resource = ConfigResource(
            ResourceType.TOPIC,
            AUDIT_TOPIC,
            incremental_configs=[
                ConfigEntry("max.message.bytes", value,
                            incremental_operation=AlterConfigOpType.SET)
            ],
        )  # fmt: skip
        for future in admin.incremental_alter_configs([resource]).values():
            future.result()

    max_bytes("64")
    try:
        refused = repo.run("apply", "--cluster", "test", "--auto-approve")
    finally:
        max_bytes(str(16 * 1024 * 1024))
    assert refused.code == 1
    assert "the audit record could not be started, so nothing was changed" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert _topics(admin, ns) == set()
    assert LOCK_TOPIC not in admin.list_topics(timeout=10).topics


def test_killed_apply_is_closed_by_the_next_apply_with_what_the_cluster_shows(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 7: an apply SIGKILLed mid-way leaves a started record with no end; the next
    apply (another plan: the rest) closes it, stating for each planned change what the cluster
    shows, then journals itself."""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    topics = chain(ns, 8)
    repo.topics(*topics)
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka3.bootstrap, "NO_COLOR": "1"}
    run = subprocess.Popen(
        [*RECONCILER, "--repo", str(repo.root), "apply", "--cluster", "test", "--auto-approve"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    wait_until(lambda: f"{ns}.t01" in _topics(admin, ns))
    run.kill()
    run.wait(timeout=30)
    killed = [a for a, e in _journal(kafka3.bootstrap).items() if e["end"] is None]
    assert len(killed) == 1  # started, never finished
    assert len(_topics(admin, ns)) < len(topics)

    again = repo.run("apply", "--cluster", "test", "--auto-approve", "--audit-json", "-")
    assert again.code == 0, again.stderr
    assert "closed the audit record of an earlier apply that did not finish" in again.stderr
    redone = {c["topic"] for c in _audit_json(again.stdout)["changes"] if c["result"] == "applied"}
    entry = _journal(kafka3.bootstrap)[killed[0]]
    assert entry["end"] == "closed"
    shows = {c["topic"]: c["cluster_shows"] for c in entry["changes"]}
    assert set(shows) == {t["name"] for t in topics}  # every planned change, not fewer
    done = {t for t, s in shows.items() if s == "done"}
    assert {f"{ns}.t00", f"{ns}.t01"} <= done
    assert done.isdisjoint(redone)  # the re-run made exactly what the closing found missing
    assert done | redone == set(shows)
    assert all(s in ("done", "not started") for s in shows.values())
    assert entry["record"]["closed_by"] == _audit_json(again.stdout)["apply_id"]
    assert not [a for a, e in _journal(kafka3.bootstrap).items() if e["end"] is None]


def test_a_thousand_creates_keep_their_whole_record_on_a_fresh_audit_topic(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 7: 1,000 creates on a cluster without an audit topic yet: the record is written
    (no MSG_TIMED_OUT) and complete: every change in the progress and final records."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.delete_topics([AUDIT_TOPIC]).values():
        with contextlib.suppress(KafkaException):  # absent already is fine
            future.result()
    wait_until(lambda: AUDIT_TOPIC not in admin.list_topics(timeout=10).topics)
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    names = [f"{ns}.bulk{i:04d}" for i in range(1000)]
    repo.topics(*({"name": n, "partitions": 1, "replication_factor": 1} for n in names))
    done = repo.run(
        "apply", "--cluster", "test", "--auto-approve", "--audit-json", "-", timeout=600
    )
    assert done.code == 0, done.stderr[-2000:]
    assert "audit record was not written" not in done.stderr
    assert "warning: the audit journal" not in done.stderr
    entry = _journal(kafka3.bootstrap)[_audit_json(done.stdout)["apply_id"]]
    assert entry["end"] == "finished"
    assert len(entry["plan_changes"]) == 1000
    assert sorted(c["topic"] for p in entry["progress"] for c in p["changes"]) == names
    assert sorted(c["topic"] for c in entry["changes"]) == names
    assert entry["record"]["counts"]["applied"] == 1000


class _AnswerLost(adapter.Cluster):
    """The second level's CreateTopics reaches the controller, which creates the topic; then
    the connection is lost before the answer: an error mid-level."""

    def __init__(self, connection: adapter.Connection) -> None:
        super().__init__(connection)
        self.calls = 0

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        answer = super().create_topics(topics, validate_only=validate_only)
        if not validate_only and topics[0].name != AUDIT_TOPIC:
            self.calls += 1
            if self.calls == 2:
                raise ClusterError("the connection to the controller was lost")
        return answer


def test_interrupted_apply_reports_every_change_as_the_cluster_shows_it(
    kafka3: LocalCluster, ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 7: an apply that stops with an error mid-level (the request was carried out,
    its answer lost) still reports and journals every planned change, the lost one as done,
    the rest as not done: not fewer changes than it made."""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics(*chain(ns, 4))
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka3.bootstrap)
    plan = plan_of(Context(repo.root), "test")
    connection = connection_of(Context(repo.root).specs("test").cluster)
    said: list[str] = []
    with _AnswerLost(connection) as cluster:
        result = apply_plan(plan, cluster, progress=said.append)
    assert any("apply interrupted: the connection to the controller was lost" in s for s in said)
    by = {r.operation.topic: r for r in result.results}
    assert set(by) == {f"{ns}.t{i:02d}" for i in range(4)}
    assert by[f"{ns}.t00"].status is Status.APPLIED
    assert by[f"{ns}.t01"].status is Status.APPLIED  # made, though its answer was lost
    assert "done before the interruption" in by[f"{ns}.t01"].message
    for later in (f"{ns}.t02", f"{ns}.t03"):
        assert by[later].status is Status.FAILED
        assert "not done: the apply was interrupted" in by[later].message
    assert result.audit["outcome"] == "interrupted"
    entry = _journal(kafka3.bootstrap)[result.audit["apply_id"]]
    assert entry["end"] == "finished"
    assert {c["topic"]: c["result"] for c in entry["changes"]} == {
        t: r.status.value for t, r in by.items()
    }
    with adapter.Cluster(connection) as fresh:
        assert fresh.lock_token() is None  # released
