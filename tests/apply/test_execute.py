"""Execution against a stand-in cluster: what is skipped, what is sent, what answers mean.

`Stub` is a Cluster whose requests never reach Kafka: it records what apply sends and shows
topics from a dict, so the level loop's decisions are checked without a broker (the real-cluster
tests in this directory check the same paths end to end).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reconciler.apply.execute.dispatch import AlreadyDone, Reassigning, Refused, send
from reconciler.apply.execute.levels import Executor, Options
from reconciler.apply.execute.operations import Step, levels, operations
from reconciler.apply.record.results import Status
from reconciler.cluster.adapter import Cluster, Connection, Failure, NewTopicRequest
from reconciler.cluster.state import TopicState
from reconciler.planning.changes import Action, CreateTopic, TopicChange
from tests.planning.factories import cluster, topic

EXISTS = Failure("TOPIC_ALREADY_EXISTS", "Topic 'a' already exists.")


class Stub(Cluster):
    def __init__(self, shown: dict[str, TopicState], refuse: dict[str, Failure]) -> None:
        super().__init__(Connection("stub", "127.0.0.1:1"))
        self.shown = dict(shown)
        self.refuse = refuse
        self.created: list[str] = []

    def reconnected(self) -> Cluster:
        return self

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        return {
            n: self.shown[n] if configs else dataclasses.replace(self.shown[n], configs=())
            for n in names
            if n in self.shown
        }

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        answers: dict[str, Failure | None] = {}
        for t in topics:
            answers[t.name] = self.refuse.get(t.name)
            if answers[t.name] is None and not validate_only:
                self.created.append(t.name)
                count = t.partitions or 1
                self.shown[t.name] = topic(t.name, [[1]] * count, overrides=dict(t.config))
        return answers


def create(name: str, **config: str) -> TopicChange:
    change = CreateTopic(name, 1, 1, tuple(sorted(config.items())))
    return TopicChange(name, Action.CREATE, (change,))


def test_a_topic_someone_created_as_planned_is_already_done_but_otherwise_refused() -> None:
    planned = (create("a", **{"retention.ms": "1000"}), create("b", **{"retention.ms": "1000"}))
    stub = Stub(
        {"a": topic("a", overrides={"retention.ms": "1000"}), "b": topic("b")},
        {"a": EXISTS, "b": EXISTS},
    )
    ops = operations(planned)
    sent = send(stub, cluster(), Step.CREATE, ops, Reassigning(None, 1.0, 0.0), print)
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
    stub = Stub(dict(state.topics), {})
    ops = operations(planned)
    executor = Executor(stub, state, Options(wait_timeout=1.0, poll_interval=0.0), print)
    results = {r.operation.topic: r for r in executor.run(levels(ops))}
    assert stub.created == ["new"]
    assert results["done"].status is Status.UNCHANGED
    assert results["new"].status is Status.APPLIED
    assert results["other"].status is Status.FAILED
    assert "other was created with other settings" in results["other"].message
