"""Execution against a stand-in cluster: what is skipped, what is sent, what answers mean.

The in-memory fake (tests/fakes/cluster.py, held to Kafka's answers by tests/contract/) records
what apply sends and shows the topics it holds, so the level loop's decisions are checked
without a broker (the real-cluster tests in this directory check the same paths end to end).
"""

from __future__ import annotations

from reconciler.apply.execute.dispatch import AlreadyDone, Reassigning, Refused, send
from reconciler.apply.execute.levels import Executor, Options
from reconciler.apply.execute.operations import Step, levels, operations
from reconciler.apply.record.outcome import Status
from reconciler.cluster.protocol.failures import Failure
from reconciler.planning.changes import Action, CreateTopic, TopicChange
from tests.fakes.cluster import FakeKafka
from tests.planning.factories import cluster, topic

EXISTS = Failure("TOPIC_ALREADY_EXISTS", "Topic 'a' already exists.")


def create(name: str, **config: str) -> TopicChange:
    change = CreateTopic(name, 1, 1, tuple(sorted(config.items())))
    return TopicChange(name, Action.CREATE, (change,))


def test_a_topic_someone_created_as_planned_is_already_done_but_otherwise_refused() -> None:
    planned = (create("a", **{"retention.ms": "1000"}), create("b", **{"retention.ms": "1000"}))
    kafka = FakeKafka().add(topic("a", overrides={"retention.ms": "1000"}), topic("b"))
    kafka.refuse("a", EXISTS)
    kafka.refuse("b", EXISTS)
    fake = kafka.client()
    ops = operations(planned)
    sent = send(fake, cluster(), Step.CREATE, ops, Reassigning(None, 1.0, 0.0), print)
    assert sent == {
        0: AlreadyDone("the topic already existed as planned"),
        1: Refused(EXISTS),  # same counts, without the planned config: not "already done"
    }


def test_the_level_loop_skips_done_work_refuses_diverged_topics_and_applies_the_rest() -> None:
    state = cluster(
        topic("done", overrides={"retention.ms": "1000"}),
        topic("other"),  # made by someone else, without the planned config
    )
    planned = tuple(create(n, **{"retention.ms": "1000"}) for n in ("done", "new", "other"))
    kafka = FakeKafka().add(*state.topics.values())
    fake = kafka.client()
    ops = operations(planned)
    executor = Executor(fake, state, Options(wait_timeout=1.0, poll_interval=0.0), print)
    results = {r.operation.topic: r for r in executor.run(levels(ops))}
    assert kafka.created == ["new"]
    assert results["done"].status is Status.UNCHANGED
    assert results["new"].status is Status.APPLIED
    assert results["other"].status is Status.FAILED
    assert "other was created with other settings" in results["other"].message
