"""A whole apply (lock, pre-flight, levels, audit journal, release) on the in-memory fake.

The same steps run end to end on real brokers in test_apply_kafka.py and test_audit.py; here
they run in milliseconds, so a change to apply's flow is seen without a broker. What apply's
logic relies on of the cluster here (per-topic answers of one request, audit records read back
in order, the lock) tests/contract/test_ports.py holds the fake to on real brokers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.apply import apply_plan
from reconciler.apply.check import preflight
from reconciler.apply.record import journal
from reconciler.apply.record.outcome import Status
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import ConfigUpdate
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC
from reconciler.errors import ClusterError
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    ConfigChange,
    IncreasePartitions,
    TopicChange,
)
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


def test_apply_journals_started_progress_and_finished() -> None:
    """Finding 7: one apply id, a started record with the planned changes, one progress record
    per level with that level's results, and a final record with every change. (Moved from
    test_audit.py, where it ran the CLI on three brokers: the journal is apply's own.)"""
    kafka = FakeKafka()
    chain = [spec("t00", partitions=1, replication_factor=1)] + [
        spec(f"t0{i}", partitions=1, replication_factor=1, depends_on=[f"t0{i - 1}"])
        for i in (1, 2)
    ]
    specs = desired(*chain, spec("solo", partitions=2, replication_factor=1))
    result = apply_plan(make_plan(specs, kafka.client().read_state(), CONFIG), kafka.client())
    assert result.ok
    record = result.audit  # what --audit-json writes
    entry = journal.applies(kafka.client().read_audit())[record["apply_id"]]
    assert entry["started"]["plan_hash"] == record["plan_hash"]
    assert {c["topic"] for c in entry["plan_changes"]} == {"t00", "t01", "t02", "solo"}
    assert [p["level"] for p in entry["progress"]] == [1, 2, 3]
    assert [sorted(c["topic"] for c in p["changes"]) for p in entry["progress"]] == [
        ["solo", "t00"], ["t01"], ["t02"],
    ]  # fmt: skip
    assert entry["end"] == "finished"
    assert entry["record"]["outcome"] == "succeeded"
    assert entry["changes"] == record["changes"]
    assert len(entry["changes"]) == 4


def test_a_failure_skips_its_dependents_but_not_independent_topics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A change Kafka refuses fails; the later steps of its topic and the changes of topics
    that depend on it are skipped, naming it; an independent topic's change is applied.
    (Moved from test_apply_safety.py: the skipping is apply's own; the per-topic answer of
    a refused value is held to Kafka's by the contract tests.)"""
    kafka = FakeKafka().add(topic("a"), topic("b"), topic("c"))
    state = kafka.client().read_state()

    def retention(name: str, value: str) -> AlterTopicConfig:
        return AlterTopicConfig(name, (ConfigChange("retention.ms", None, value),))

    # A value Kafka refuses (the spec validator would never let it through): a runtime failure.
    # Pre-flight's validate_only would refuse the whole plan first; skipped here, it stands for
    # a refusal that only comes at execution (the cluster changed between check and change).
    monkeypatch.setattr(preflight, "validate", lambda *_: None)
    plan = Plan(
        cluster="fake",
        based_on=fingerprint(state, ["a", "b", "c"]),
        cluster_id=state.cluster_id,
        changes=(
            TopicChange("a", Action.UPDATE,
                        (retention("a", "soon"), IncreasePartitions("a", 1, 2))),
            TopicChange("c", Action.UPDATE, (retention("c", "3600000"),)),
            TopicChange("b", Action.UPDATE, (retention("b", "3600000"),), depends_on=("a",)),
        ),
    )  # fmt: skip
    result = apply_plan(plan, kafka.client())
    by = {(r.operation.topic, r.operation.step.name): r for r in result.results}
    assert by[("a", "CONFIG")].status is Status.FAILED
    assert "rejected a topic config of" in by[("a", "CONFIG")].message
    assert by[("a", "PARTITIONS")].status is Status.SKIPPED
    assert by[("b", "CONFIG")].status is Status.SKIPPED
    assert "configure a" in by[("b", "CONFIG")].message
    assert by[("c", "CONFIG")].status is Status.APPLIED
    assert result.audit["outcome"] == "failed"
    assert kafka.topics["c"].overrides == {"retention.ms": "3600000"}
    assert kafka.topics["b"].overrides == {}
    assert len(kafka.topics["a"].replicas) == 1
    assert kafka.sent.count("create_partitions") == 0  # a's partitions: never asked for


def test_a_refused_write_is_answered_per_topic_as_kafka_answers_it() -> None:
    """The fake's own refusal, which the test above meets, is Kafka's INVALID_CONFIG."""
    kafka = FakeKafka().add(topic("a"))
    answers = kafka.client().alter_topic_configs([ConfigUpdate("a", (("retention.ms", "soon"),))])
    assert answers == {
        "a": Failure(
            "INVALID_CONFIG",
            "Invalid value soon for configuration retention.ms: Not a number of type LONG",
        )
    }


def test_a_level_sent_in_several_requests_says_each_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long level (100,000 creates are 30 requests) shows its progress request by request,
    each request once metadata shows it."""
    from reconciler.apply.execute import batching

    monkeypatch.setattr(batching, "MAX_RECORDS_PER_REQUEST", 4)  # two one-partition creates
    kafka = FakeKafka()
    specs = desired(*(spec(f"c.t{i}", partitions=1, replication_factor=1) for i in range(3)))
    plan = make_plan(specs, kafka.client().read_state(), CONFIG)
    said: list[str] = []
    assert apply_plan(plan, kafka.client(), progress=said.append).ok
    assert [line for line in said if "CreateTopics:" in line] == [
        "  CreateTopics: request 1/2 answered and shown (2 of 3 topic(s) shown)",
        "  CreateTopics: request 2/2 answered and shown (3 of 3 topic(s) shown)",
    ]
