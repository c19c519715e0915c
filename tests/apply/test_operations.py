"""The apply DAG, batching and error sentences: pure, no broker."""

from __future__ import annotations

import pytest

from reconciler.apply.execute.batching import MAX_PARTITIONS_PER_REQUEST, batches
from reconciler.apply.execute.operations import Step, levels, operations
from reconciler.apply.execute.sentences import sentence
from reconciler.cluster.protocol.failures import Failure
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)


def create(name: str, *deps: str) -> TopicChange:
    return TopicChange(
        name, Action.CREATE, (CreateTopic(name, 1, 1, depends_on=deps),), depends_on=deps
    )


def delete(name: str, *deps: str) -> TopicChange:
    return TopicChange(name, Action.DELETE, (DeleteTopic(name, 1, "tombstone"),), depends_on=deps)


def shape(changes: tuple[TopicChange, ...]) -> list[tuple[str, list[str]]]:
    return [(lv.name, [o.topic for o in lv.operations]) for lv in levels(operations(changes))]


def test_creates_run_in_depends_on_order_one_level_per_depth() -> None:
    changes = (create("a"), create("d"), create("b", "a"), create("c", "b"))
    assert shape(changes) == [
        ("create topics", ["a", "d"]),
        ("create topics (depth 2)", ["b"]),
        ("create topics (depth 3)", ["c"]),
    ]


def test_deletes_run_last_dependents_first() -> None:
    changes = (create("x"), delete("a"), delete("b", "a"))
    assert shape(changes) == [
        ("create topics", ["x"]),
        ("delete topics", ["b"]),
        ("delete topics (depth 2)", ["a"]),
    ]
    ops = operations(changes)
    delete_a = next(o for o in ops if o.topic == "a")
    assert [ops[i].topic for i in delete_a.after] == ["b"]


def _rf_change(current: int, desired: int, isr_current: str, isr_desired: str) -> TopicChange:
    return TopicChange(
        "t",
        Action.UPDATE,
        (
            AlterTopicConfig(
                "t",
                (
                    ConfigChange("min.insync.replicas", isr_current, isr_desired),
                    ConfigChange("retention.ms", None, "1000"),
                ),
            ),
            IncreasePartitions("t", 1, 2),
            ReassignReplicas("t", current, desired, ((1,),) * 2, ((1, 2, 3),) * 2),
        ),
    )


def test_min_isr_is_raised_after_a_replication_factor_increase() -> None:
    ops = operations((_rf_change(1, 3, "1", "2"),))
    assert [(o.step, o.summary) for o in ops] == [
        (Step.CONFIG, "configure t: retention.ms=1000"),
        (Step.PARTITIONS, "partitions of t: 1 -> 2"),
        (Step.REASSIGN, "replication factor of t: 1 -> 3"),
        (Step.RAISE_ISR, "configure t: min.insync.replicas=2"),
    ]
    assert ops[3].after == (0, 1, 2)


def test_min_isr_is_lowered_before_a_replication_factor_decrease() -> None:
    ops = operations((_rf_change(3, 1, "2", "1"),))
    assert ops[0].step is Step.CONFIG
    assert "min.insync.replicas=1" in ops[0].summary
    assert ops[-1].step is Step.REASSIGN


def test_updates_of_a_dependent_wait_for_the_topic_they_depend_on() -> None:
    def update(name: str, *deps: str) -> TopicChange:
        entry = ConfigChange("retention.ms", None, "1")
        return TopicChange(
            name, Action.UPDATE, (AlterTopicConfig(name, (entry,)),), depends_on=deps
        )

    assert shape((update("a"), update("b", "a"), update("c"))) == [
        ("change configs", ["a", "c"]),
        ("change configs (depth 2)", ["b"]),
    ]


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([1] * 5, [[1] * 5]),
        ([6000, 4000, 1], [[6000, 4000], [1]]),
        ([12000, 1], [[12000], [1]]),  # one item above the limit still goes, alone
        ([], []),
    ],
)
def test_batches_respect_the_partitions_per_request_limit(
    weights: list[int], expected: list[list[int]]
) -> None:
    assert list(batches(weights, lambda w: w, MAX_PARTITIONS_PER_REQUEST)) == expected


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("TOPIC_AUTHORIZATION_FAILED", "not authorized to create a.b"),
        ("INVALID_PARTITIONS", "rejected the partition count for a.b"),
        ("INVALID_REPLICA_ASSIGNMENT", "rejected the replica assignment for a.b"),
        ("INVALID_REQUEST", "rejected the request for a.b as malformed"),
        ("REASSIGNMENT_IN_PROGRESS", "reassignment is already running on a.b"),
        ("TOPIC_ALREADY_EXISTS", "a.b already exists on the cluster but differs"),
        ("POLICY_VIOLATION", "policy refused the change to a.b"),
        ("TIMED_OUT", "did not answer in time for a.b"),
        ("SOMETHING_NEW", "Kafka refused to create a.b: SOMETHING_NEW: why"),
    ],
)
def test_each_kafka_error_code_becomes_a_sentence(code: str, words: str) -> None:
    text = sentence(Failure(code, "why"), "a.b", CreateTopic)
    assert words in text
    assert code in text  # Kafka's own code stays searchable


def test_levels_take_planning_orders_depths_and_keep_a_cycle() -> None:
    diamond = (create("d", "b", "c"), create("b", "a"), create("c", "a"), create("a"))
    assert shape(diamond) == [
        ("create topics", ["a"]),
        ("create topics (depth 2)", ["b", "c"]),
        ("create topics (depth 3)", ["d"]),
    ]
    # A cycle cannot come from validated specs; if one shows up, nothing is dropped
    assert shape((create("a"), create("b", "c"), create("c", "b"))) == [
        ("create topics", ["a", "b"]),
        ("create topics (depth 2)", ["c"]),
    ]
