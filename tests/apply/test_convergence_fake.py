"""A property test of apply's convergence on the in-memory fake (tests/apply/convergence.py):
any sequence of spec edits, planned, approved and applied through the plan and apply commands'
own code, leaves an empty plan and the cluster as specified. The Kafka side (each kind of edit
on real brokers) is test_apply_scale.py's `test_fixed_sequences_of_edits_converge`, and
tests/contract/ holds the fake's answers to Kafka's."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings

from tests.apply.convergence import HAZARDS, RESHAPES, Edit, Seen, converges, edits
from tests.fakes.cluster import FakeKafka, connect_commands_to

# Three brokers in three racks, as the shared kafka3
BROKERS = ((1, "rack-a"), (2, "rack-b"), (3, "rack-c"))


def _seen(kafka: FakeKafka, prefix: str) -> Seen:
    return {
        name: {
            "partitions": len(t.replicas),
            "replicas": [list(r) for r in t.replicas],
            "overrides": dict(t.overrides),
        }
        for name, t in kafka.topics.items()
        if name.startswith(prefix)
    }


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=edits)
@example(sequence=HAZARDS)
@example(sequence=RESHAPES)
def test_any_sequence_of_edits_converges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sequence: list[Edit]
) -> None:
    kafka = FakeKafka(brokers=BROKERS)  # each example its own cluster
    connect_commands_to(kafka, monkeypatch.setattr)
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "fake-kafka:9092")  # reconciler.yaml's bootstrap
    prefix = f"fuzz.{uuid.uuid4().hex[:6]}"
    converges(tmp_path / prefix, "fake-kafka:9092", prefix, sequence, lambda: _seen(kafka, prefix))
