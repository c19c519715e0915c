"""min.insync.replicas against the effective replication factor: the same R103 whether the
spec gives the factor (validate) or leaves it to the cluster (plan), and advice the cluster can
follow."""

from __future__ import annotations

import pytest

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Severity
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.kafka_rules import min_insync_replicas
from reconciler.spec.model import ClusterConfig, Policy, TopicSpec
from tests.planning.factories import cluster, desired, spec, spread, topic


def _plan(*specs: TopicSpec, state: ClusterState | None = None) -> Plan:
    return make_plan(desired(*specs), state or cluster(), ClusterConfig("c", "b:9092"), "x")


@pytest.mark.parametrize(
    ("case", "specs", "state", "source"),
    [
        (
            "a create at the broker default",
            (spec("t.new", partitions=1, config={"min.insync.replicas": "3"}),),
            cluster(),
            "(the broker's default.replication.factor)",
        ),
        (
            "an existing topic",
            (spec("t.old", partitions=1, config={"min.insync.replicas": "3"}),),
            cluster(topic("t.old", spread(1, 2))),
            "(the topic's, on the cluster)",
        ),
    ],
)
def test_min_insync_above_a_factor_the_cluster_decides_is_r103_as_when_written(
    case: str, specs: tuple[TopicSpec, ...], state: ClusterState, source: str
) -> None:
    plan = _plan(*specs, state=state)
    (error,) = [d for d in plan.diagnostics if d.rule == "min_insync_replicas"]
    written = min_insync_replicas(3, 2, specs[0].location, specs[0].name)[0]
    assert (error.code, error.rule, error.severity) == (written.code, written.rule, Severity.ERROR)
    assert f"the replication factor is 2 {source}" in error.message
    assert not [d for d in plan.diagnostics if d.rule == "min_insync_replicas_headroom"]
    assert not plan.applyable


def test_advice_never_asks_for_more_replicas_than_the_cluster_has_brokers() -> None:
    # 3 brokers, default RF 2: a replication factor of 4 is out of reach
    (error,) = _plan(spec("t.new", partitions=1, config={"min.insync.replicas": "4"})).errors
    assert "set min.insync.replicas to at most 2" in error.message
    assert "raise replication_factor" not in error.message
    # equal to a factor of 3 on 3 brokers: lower it, never "raise replication_factor to 4"
    (warning,) = _plan(
        spec("t.full", partitions=1, replication_factor=3, config={"min.insync.replicas": "3"})
    ).diagnostics
    assert warning.rule == "min_insync_replicas_headroom"
    assert warning.message.endswith("set min.insync.replicas to 2")
    # where the brokers exist, raising stays an option
    (warning,) = _plan(
        spec("t.two", partitions=1, replication_factor=2, config={"min.insync.replicas": "2"})
    ).diagnostics
    assert warning.message.endswith("set min.insync.replicas to 1 or raise replication_factor to 3")


def test_spec_that_gives_its_factor_is_left_to_validate() -> None:
    plan = _plan(
        spec("t.x", partitions=1, replication_factor=3, config={"min.insync.replicas": "2"})
    )
    assert not plan.diagnostics


def test_min_replication_factor_advice_stays_within_the_brokers() -> None:
    policy = Policy(min_replication_factor=4)  # above the 3 brokers of the state
    plan = make_plan(
        desired(spec("t.x", partitions=1, replication_factor=2)),
        cluster(),
        ClusterConfig("c", "b:9092", policy=policy),
        "x",
    )
    (error,) = plan.errors
    assert error.rule == "min_replication_factor"
    assert "set replication_factor: 4" not in error.message
    assert "cannot hold 4 replicas: add brokers, or lower policy.min_replication_factor" in (
        error.message
    )
