"""What the fake does beyond Kafka's contract (tests/contract/): the failures tests inject."""

from __future__ import annotations

import pytest

from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.errors import ClusterError
from tests.fakes.cluster import FakeKafka
from tests.planning.factories import topic


def test_an_injected_error_is_raised_by_the_next_call_of_its_operation_only() -> None:
    kafka = FakeKafka()
    kafka.fail("create_topics", ClusterError("the controller did not answer (injected)"))
    cluster = kafka.client()
    with pytest.raises(ClusterError, match="injected"):
        cluster.create_topics([NewTopicRequest("a", 1, 1)])
    assert cluster.topics(["a"]) == {}
    assert cluster.create_topics([NewTopicRequest("a", 1, 1)]) == {"a": None}
    assert kafka.sent == ["create_topics", "topics", "create_topics"]
    kafka.fail("delete_topics", ClusterError("lost (injected)"), after=1)
    assert cluster.delete_topics(["missing"])["missing"] is not None
    with pytest.raises(ClusterError, match="lost"):
        cluster.delete_topics(["a"])
    assert list(cluster.topics(["a"])) == ["a"]


def test_a_refused_topic_is_answered_with_its_failure_and_left_as_it_was() -> None:
    denied = Failure("TOPIC_AUTHORIZATION_FAILED", "Topic authorization failed.")
    kafka = FakeKafka().add(topic("a"))
    kafka.refuse("a", denied)
    kafka.refuse("b", denied)
    cluster = kafka.client()
    assert cluster.create_topics([NewTopicRequest("b", 1, 1)]) == {"b": denied}
    assert cluster.delete_topics(["a"]) == {"a": denied}
    assert sorted(cluster.topics(["a", "b"])) == ["a"]
    assert kafka.created == []


def test_a_second_client_and_a_reconnected_one_see_the_same_cluster() -> None:
    kafka = FakeKafka()
    first, second = kafka.client(), kafka.client()
    first.create_topics([NewTopicRequest("a", 2, 1)])
    assert len(second.topics(["a"])["a"].partitions) == 2
    assert list(first.reconnected().topics(["a"])) == ["a"]


def test_a_lost_answer_is_raised_after_the_write_was_carried_out() -> None:
    kafka = FakeKafka()
    kafka.fail("create_topics", ClusterError("answer lost (injected)"), lost=True)
    cluster = kafka.client()
    with pytest.raises(ClusterError, match="answer lost"):
        cluster.create_topics([NewTopicRequest("a", 1, 1)])
    assert kafka.created == ["a"]
    assert cluster.create_topics([NewTopicRequest("b", 1, 1)]) == {"b": None}


def test_a_reassignment_stays_in_progress_while_moving_and_lands_on_its_target() -> None:
    kafka = FakeKafka(brokers=((1, "rack-a"), (2, "rack-b"))).add(topic("a", [[1]]))
    kafka.moving = True
    cluster = kafka.client()
    assert cluster.alter_reassignments({("a", 0): (2,)}) == {("a", 0): None}
    [moving] = cluster.reassignments(["a"])
    assert (moving.replicas, moving.adding, moving.removing, moving.target) == (
        (2, 1), (2,), (1,), (2,),
    )  # fmt: skip
    kafka.finish_moves()
    assert cluster.reassignments() == ()
    assert cluster.topics(["a"])["a"].partitions[0].replicas == (2,)
