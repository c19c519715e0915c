"""Placement: worked examples, then properties that must hold for any cluster and partition."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.cluster.state import BrokerState
from reconciler.planning.placement import (
    ReplicaSet,
    change_replication_factor,
    replica_load,
    shift_load,
)
from tests.planning.factories import brokers, cluster, topic
from tests.property_examples import examples

ABC = brokers("a", "b", "c")
AABBC = brokers("a", "a", "b", "b", "c")  # 1,2 on a; 3,4 on b; 5 on c
NO_RACKS = brokers(None, None, None, None)

# (brokers, load, partitions, desired rf, expected target)
EXAMPLES = {
    "grow onto an unused rack": (ABC, {}, [ReplicaSet((1,))], 2, ((1, 2),)),
    "grow prefers the least-loaded broker of an unused rack": (
        AABBC,
        {3: 5, 4: 1, 5: 2},
        [ReplicaSet((1,))],
        2,
        ((1, 4),),
    ),
    "grow prefers a new rack over a lighter broker on a used rack": (
        AABBC,
        {2: 0, 3: 9, 4: 9, 5: 9},
        [ReplicaSet((1,))],
        2,
        ((1, 3),),
    ),
    "grow without racks is least-loaded then lowest id": (
        NO_RACKS,
        {1: 3, 2: 3, 3: 1, 4: 1},
        [ReplicaSet((1,))],
        3,
        ((1, 3, 4),),
    ),
    "grow keeps existing replicas in order": (ABC, {}, [ReplicaSet((3, 1))], 3, ((3, 1, 2),)),
    "load carries over from one partition to the next": (
        NO_RACKS,
        {},
        [ReplicaSet((1,)), ReplicaSet((1,))],
        2,
        ((1, 2), (1, 3)),
    ),
    "shrink drops from the over-represented rack first": (
        AABBC,
        {},
        [ReplicaSet((1, 2, 3))],
        2,
        ((1, 3),),
    ),
    "shrink never drops the current leader": (
        AABBC,
        {},
        [ReplicaSet((1, 2, 3), leader=2)],
        2,
        ((2, 3),),
    ),
    "shrink drops an out-of-sync replica before an in-sync one": (
        ABC,
        {},
        [ReplicaSet((1, 2, 3), leader=1, isr=(1, 3))],
        2,
        ((1, 3),),
    ),
    "shrink keeps the preferred leader first when it stays": (
        ABC,
        {},
        [ReplicaSet((3, 1, 2), leader=1)],
        1,
        ((1,),),
    ),
    "shrink spares the preferred leader when the leader is elsewhere": (
        ABC,
        {},
        [ReplicaSet((3, 1, 2), leader=1)],
        2,
        ((3, 1),),
    ),
    "shrink drops the most loaded of equal replicas": (
        ABC,
        {2: 1, 3: 7},
        [ReplicaSet((1, 2, 3), leader=1)],
        2,
        ((1, 2),),
    ),
    "unchanged factor moves nothing": (ABC, {}, [ReplicaSet((2, 1))], 2, ((2, 1),)),
    "shrink keeps replicas on a broker the cluster no longer lists when it can": (
        ABC,
        {},
        [ReplicaSet((1, 9, 2), leader=9)],
        1,
        ((9,),),
    ),
}


@pytest.mark.parametrize(
    ("broker_list", "load", "partitions", "rf", "expected"),
    EXAMPLES.values(),
    ids=EXAMPLES.keys(),
)
def test_examples(
    broker_list: tuple[BrokerState, ...],
    load: dict[int, int],
    partitions: list[ReplicaSet],
    rf: int,
    expected: tuple[tuple[int, ...], ...],
) -> None:
    assert change_replication_factor(partitions, rf, broker_list, load) == expected


def test_new_partitions_spread_leaders_and_racks() -> None:
    assert change_replication_factor([ReplicaSet(())] * 3, 2, ABC, {}) == ((1, 2), (3, 1), (2, 3))


def test_unreachable_factor_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 4 brokers"):
        change_replication_factor([ReplicaSet((1,))], 4, ABC, {})
    with pytest.raises(ValueError, match="at least 1"):
        change_replication_factor([ReplicaSet((1,))], 0, ABC, {})


def test_load_helpers() -> None:
    state = cluster(topic("a", [[1, 2], [2, 3]]), topic("b", [[2]]))
    assert replica_load(state) == {1: 1, 2: 3, 3: 1}
    assert shift_load({1: 1, 2: 3}, ((1, 2),), ((1, 3), (2,))) == {1: 1, 2: 3, 3: 1}


# --- properties -------------------------------------------------------------------------------


@st.composite
def scenarios(
    draw: st.DrawFn,
) -> tuple[tuple[BrokerState, ...], list[ReplicaSet], int, dict[int, int]]:
    racks = draw(st.lists(st.sampled_from(["a", "b", "c", "d", None]), min_size=1, max_size=8))
    broker_list = brokers(*racks)
    ids = [b.id for b in broker_list]
    rf = draw(st.integers(1, len(ids)))
    partitions = []
    for _ in range(draw(st.integers(1, 6))):
        replicas = tuple(draw(st.permutations(ids))[: draw(st.integers(1, len(ids)))])
        leader = draw(st.sampled_from([None, *replicas]))
        isr = tuple(r for r in replicas if draw(st.booleans()) or r == leader)
        partitions.append(ReplicaSet(replicas, leader, isr))
    load = {i: draw(st.integers(0, 20)) for i in ids}
    return broker_list, partitions, rf, load


def _racks(broker_list: tuple[BrokerState, ...], replicas: tuple[int, ...]) -> set[str | None]:
    rack = {b.id: b.rack for b in broker_list}
    return {rack[r] for r in replicas}


@settings(max_examples=examples(400), database=None, derandomize=True)
@given(scenarios())
def test_placement_properties(
    scenario: tuple[tuple[BrokerState, ...], list[ReplicaSet], int, dict[int, int]],
) -> None:
    broker_list, partitions, rf, load = scenario
    all_racks = {b.rack for b in broker_list}
    target = change_replication_factor(partitions, rf, broker_list, load)
    assert len(target) == len(partitions)
    for before, after in zip(partitions, target, strict=True):
        current = before.replicas
        assert len(after) == rf
        assert len(set(after)) == rf, "a broker twice in one replica list"
        assert {b.id for b in broker_list} >= set(after)
        # Moves as few replicas as possible: every replica that can stay, stays.
        assert len(set(after) & set(current)) == min(len(current), rf)
        # Rack spread is the best reachable without moving a kept replica.
        spread = len(_racks(broker_list, after))
        if rf >= len(current):
            added = rf - len(current)
            assert spread == min(len(all_racks), len(_racks(broker_list, current)) + added)
        else:
            assert spread == min(rf, len(_racks(broker_list, current)))
            if before.leader is not None:
                assert before.leader in after, "the current leader was dropped"
        # Survivors keep their order, so the preferred leader stays first when it stays.
        kept = [r for r in after if r in current]
        assert kept == [r for r in current if r in after]


@settings(max_examples=examples(200), database=None, derandomize=True)
@given(scenarios(), st.integers(1, 12))
def test_new_partitions_are_spread(
    scenario: tuple[tuple[BrokerState, ...], list[ReplicaSet], int, dict[int, int]], count: int
) -> None:
    broker_list, _, rf, load = scenario
    placed = change_replication_factor([ReplicaSet(())] * count, rf, broker_list, load)
    assert len(placed) == count
    racks = {b.rack for b in broker_list}
    for replicas in placed:
        assert len(set(replicas)) == len(replicas) == rf
        assert len(_racks(broker_list, replicas)) == min(rf, len(racks))


@settings(max_examples=examples(100), database=None, derandomize=True)
@given(scenarios())
def test_placement_is_deterministic(
    scenario: tuple[tuple[BrokerState, ...], list[ReplicaSet], int, dict[int, int]],
) -> None:
    broker_list, partitions, rf, load = scenario
    first = change_replication_factor(partitions, rf, broker_list, load)
    assert change_replication_factor(list(partitions), rf, broker_list, dict(load)) == first


def test_even_load_without_racks() -> None:
    """Growing many single-replica partitions evens out the brokers' replica counts."""
    partitions = [ReplicaSet((1,))] * 6
    target = change_replication_factor(partitions, 2, NO_RACKS, {1: 6, 2: 0, 3: 0, 4: 0})
    added = Counter(b for replicas in target for b in replicas[1:])
    assert max(added.values()) - min(added.values()) <= 1
