"""A whole apply (lock, pre-flight, levels, audit journal, release) on the in-memory fake.

The same steps run end to end on real brokers in test_apply_kafka.py and test_audit.py; here
they run in milliseconds, so a change to apply's flow is seen without a broker.
"""

from __future__ import annotations

import json
from pathlib import Path

from reconciler.apply import apply_plan
from reconciler.apply.record.outcome import Status
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC
from reconciler.errors import ClusterError
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.model import ClusterConfig, DesiredState
from tests.fakes.cluster import FakeKafka
from tests.planning.factories import desired, spec, topic

CONFIG = ClusterConfig("fake", "fake-kafka:9092")


def _specs() -> DesiredState:
    return desired(
        spec("a.base", partitions=2, replication_factor=1),
        spec("a.dep", partitions=1, replication_factor=1, depends_on=["a.base"],
             config={"cleanup.policy": "compact"}),
        spec("b.old", partitions=3, replication_factor=1, config={"retention.ms": "7200000"}),
    )  # fmt: skip


def _kafka() -> FakeKafka:
    return FakeKafka().add(topic("b.old", [[1], [1]], overrides={"retention.ms": "3600000"}))


def _plan(kafka: FakeKafka) -> Plan:
    return make_plan(_specs(), kafka.client().read_state(), CONFIG)


def _journal(kafka: FakeKafka) -> list[dict[str, object]]:
    return [json.loads(v) for v in kafka.client().read_audit()]


def test_an_apply_makes_the_plan_true_journals_it_and_releases_the_lock(tmp_path: Path) -> None:
    kafka = _kafka()
    plan = _plan(kafka)
    assert len(plan.changes) == 3
    result = apply_plan(plan, kafka.client())
    assert result.ok
    assert {r.operation.topic: r.status for r in result.results} == {
        "a.base": Status.APPLIED,
        "a.dep": Status.APPLIED,
        "b.old": Status.APPLIED,
    }
    assert kafka.created.index("a.base") < kafka.created.index("a.dep")  # depends_on
    assert LOCK_TOPIC not in kafka.topics  # released
    assert _plan(kafka).changes == ()  # converged
    kinds = [r.get("kind") for r in _journal(kafka)]
    assert kinds[0] == "started" and kinds[-1] == "finished", kinds
    assert kafka.topics[AUDIT_TOPIC].overrides["retention.ms"] == "-1"  # kept forever


def test_an_error_mid_apply_reports_every_change_and_still_finishes_the_record(
    tmp_path: Path,
) -> None:
    kafka = _kafka()
    plan = _plan(kafka)
    injected = ClusterError("the controller did not answer (injected)")
    # Carried out, its answer lost; after pre-flight's validate_only request
    kafka.fail("alter_topic_configs", injected, after=1, lost=True)
    said: list[str] = []
    result = apply_plan(plan, kafka.client(), progress=said.append)
    assert any("apply interrupted" in line and "injected" in line for line in said), said
    shown = [(r.operation.topic, r.status, r.message) for r in result.results]
    assert [(topic, status) for topic, status, _ in shown] == [
        ("a.base", Status.APPLIED),
        ("a.dep", Status.APPLIED),
        ("b.old", Status.APPLIED),  # its config: made, though its answer was lost
        ("b.old", Status.FAILED),  # its partitions: a later level, never sent
    ]
    assert "done before the interruption" in shown[2][2]
    assert "not done: the apply was interrupted" in shown[3][2]
    assert kafka.sent.count("create_partitions") == 1  # pre-flight's validate_only only
    assert not result.ok
    assert result.audit["outcome"] == "interrupted"
    assert LOCK_TOPIC not in kafka.topics
    assert [r.get("kind") for r in _journal(kafka)][-1] == "finished"
