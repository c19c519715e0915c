"""order: phase, then the dependency DAG, then the name, on hand-built TopicChanges."""

from __future__ import annotations

import itertools

import pytest

from reconciler.planning.changes import (
    Action,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    TopicChange,
)
from reconciler.planning.order import order


def create(name: str, *depends_on: str) -> TopicChange:
    return TopicChange(
        name, Action.CREATE, (CreateTopic(name, 1, 1, depends_on=depends_on),), (), depends_on
    )


def update(name: str, *depends_on: str) -> TopicChange:
    return TopicChange(name, Action.UPDATE, (IncreasePartitions(name, 1, 2),), (), depends_on)


def delete(name: str, *depends_on: str) -> TopicChange:
    return TopicChange(name, Action.DELETE, (DeleteTopic(name, 1, "tombstone"),), (), depends_on)


CASES = {
    "phases: creates, updates, deletes": (
        [delete("a"), update("b"), create("c")],
        ["c", "b", "a"],
    ),
    "name tie-break within a phase": ([create("c"), create("a"), create("b")], ["a", "b", "c"]),
    "creates after what they depend on": (
        [create("a", "z"), create("z", "m"), create("m")],
        ["m", "z", "a"],
    ),
    "deletes dependents first": (
        [delete("m"), delete("z", "m"), delete("a", "z")],
        ["a", "z", "m"],
    ),
    "updates after what they depend on": ([update("a", "b"), update("b")], ["b", "a"]),
    "dependencies outside the phase do not reorder it": (
        [create("b"), create("a", "x"), update("x")],
        ["a", "b", "x"],
    ),
    "a diamond keeps name order where free": (
        [create("d", "b", "c"), create("b", "a"), create("c", "a"), create("a")],
        ["a", "b", "c", "d"],
    ),
    "unrelated names interleave by name once ready": (
        [create("b", "y"), create("y"), create("a"), create("x")],
        ["a", "x", "y", "b"],
    ),
    "a cycle keeps every topic, in name order after the rest": (
        [create("b", "c"), create("c", "b"), create("a")],
        ["a", "b", "c"],
    ),
}


@pytest.mark.parametrize(("changes", "expected"), CASES.values(), ids=CASES.keys())
def test_order(changes: list[TopicChange], expected: list[str]) -> None:
    assert [c.topic for c in order(changes)] == expected


def test_order_does_not_depend_on_input_order() -> None:
    changes = [create("a", "c"), create("c"), update("b"), delete("d", "e"), delete("e")]
    results = {tuple(c.topic for c in order(p)) for p in itertools.permutations(changes)}
    assert results == {("c", "a", "b", "d", "e")}
