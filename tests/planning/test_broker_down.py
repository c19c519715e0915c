"""A broker that existing replicas name but the cluster does not list is down, not gone.

The plan names it and waits for it; it never advises fewer replicas or other assignments
because of it. (The same on a real cluster with a node stopped: tests/plan/test_advice_real.py.)
"""

from __future__ import annotations

import dataclasses

import pytest

from reconciler.planning.plan import make_plan
from reconciler.spec.model import ClusterConfig, TopicSpec
from tests.planning.factories import brokers, cluster, desired, spec, topic

# Brokers 1 and 2 listed; broker 3 still holds replicas of `old.topic`
DOWN = cluster(
    topic("old.topic", [[1, 2, 3], [2, 3, 1]]),
    topic("grown.topic", [[1, 3], [2, 3]]),
    broker_list=brokers("rack-a", "rack-b"),
)

CASES: dict[str, TopicSpec] = {
    "a create at the replication factor the cluster has": spec(
        "new.topic", partitions=1, replication_factor=3
    ),
    "a create at the broker default": spec("new.topic", partitions=1),
    "a create with assignments naming the down broker": spec(
        "new.topic", assignments=[[1, 3], [3, 2]]
    ),
    "a partition increase with assignments naming it": spec(
        "grown.topic", assignments=[[1, 3], [2, 3], [3, 1]]
    ),
    "a replication-factor increase": spec("grown.topic", partitions=2, replication_factor=3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_change_needing_a_down_broker_names_it_and_asks_for_no_other_spec(name: str) -> None:
    wanted = desired(CASES[name], spec("old.topic", partitions=2, replication_factor=3))
    state = DOWN
    if name == "a create at the broker default":
        state = cluster(
            *DOWN.topics.values(),
            broker_list=DOWN.brokers,
            defaults={"default.replication.factor": "3", "num.partitions": "1"},
        )
    plan = make_plan(wanted, state, ClusterConfig("test", "x:9092"), based_on="")
    errors = [d for d in plan.diagnostics if d.is_error]
    assert [(d.code, d.rule) for d in errors] == [("P118", "broker_down")], errors
    message = errors[0].message
    assert "broker(s) 3" in message and "down" in message
    for advice in ("at most", "fix the assignments", "does not have", "set replication_factor"):
        assert advice not in message
    assert not plan.changes


def test_more_replicas_than_the_cluster_has_counts_the_down_broker_too() -> None:
    wanted = desired(spec("new.topic", partitions=1, replication_factor=4))
    plan = make_plan(wanted, DOWN, ClusterConfig("test", "x:9092"), based_on="")
    (error,) = plan.errors
    assert error.rule == "replication_factor_unreachable"
    assert "the cluster has 3 broker(s), 1 of them down (3)" in error.message
    assert "at most 3" in error.message


def test_a_broker_no_replica_names_is_unknown_not_down() -> None:
    wanted = desired(spec("new.topic", assignments=[[1, 7]]))
    plan = make_plan(wanted, DOWN, ClusterConfig("test", "x:9092"), based_on="")
    (error,) = plan.errors
    assert error.rule == "unknown_broker"
    assert "broker(s) 7" in error.message and "(brokers: 1, 2, 3)" in error.message


def test_a_broker_kafka_reports_fenced_is_down_even_when_no_replica_names_it() -> None:
    """A fresh cluster with a broker stopped: DescribeCluster (IncludeFencedBrokers) is what
    says broker 3 exists."""
    state = dataclasses.replace(cluster(broker_list=brokers("rack-a", "rack-b")), fenced=(3,))
    wanted = desired(spec("new.topic", partitions=1, replication_factor=3))
    plan = make_plan(wanted, state, ClusterConfig("test", "x:9092"), based_on="")
    (error,) = plan.errors
    assert error.rule == "broker_down" and "broker(s) 3" in error.message
    assert (
        make_plan(wanted, cluster(broker_list=state.brokers), ClusterConfig("t", "x:9092"), "")
        .errors[0]
        .rule
        == "replication_factor_unreachable"
    )  # without Kafka's word, nothing names broker 3


# A cluster that cannot show fenced brokers (ZooKeeper mode, KRaft before 4.0): fenced=None
UNSEEN = dataclasses.replace(cluster(broker_list=brokers("rack-a", "rack-b")), fenced=None)


def test_where_kafka_cannot_show_down_brokers_the_advice_says_so() -> None:
    """Two brokers listed, a third maybe stopped: the count is not called all the cluster
    has, and bringing a broker back comes before lowering the factor."""
    wanted = desired(spec("new.topic", partitions=1, replication_factor=3))
    plan = make_plan(wanted, UNSEEN, ClusterConfig("test", "x:9092"), based_on="")
    (error,) = plan.errors
    assert error.rule == "replication_factor_unreachable"
    assert "the cluster lists 2 broker(s)" in error.message
    assert "cannot show whether a broker is down" in error.message
    assert error.message.index("bring it back") < error.message.index("at most 2")
    shown = make_plan(
        wanted, dataclasses.replace(UNSEEN, fenced=()), ClusterConfig("t", "x:9092"), ""
    )
    assert "cannot show" not in shown.errors[0].message  # Kafka 4.0+ said none is fenced


def test_where_kafka_cannot_show_down_brokers_an_unlisted_broker_may_be_down() -> None:
    wanted = desired(spec("new.topic", assignments=[[1, 3]]))
    (error,) = make_plan(wanted, UNSEEN, ClusterConfig("test", "x:9092"), based_on="").errors
    assert error.rule == "unknown_broker"
    assert "does not list (brokers: 1, 2)" in error.message
    assert "cannot show whether a broker is down" in error.message


def test_where_kafka_cannot_show_down_brokers_min_insync_advice_says_so() -> None:
    state = dataclasses.replace(
        cluster(broker_list=brokers("rack-a", "rack-b"),
                defaults={"default.replication.factor": "2", "num.partitions": "1"}),
        fenced=None,
    )  # fmt: skip
    wanted = desired(spec("new.topic", config={"min.insync.replicas": "3"}))
    plan = make_plan(wanted, state, ClusterConfig("test", "x:9092"), based_on="")
    [error] = [d for d in plan.diagnostics if d.code == "R103"]
    assert "cannot show whether a broker is down" in error.message
    assert "the 2 broker(s) the cluster lists" in error.message
