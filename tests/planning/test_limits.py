"""KIP-578 limits over constructed states: the feasibility check, the numbers, the load table.

The real-cluster counterpart is tests/limits/test_limits_real.py.
"""

from __future__ import annotations

import itertools
import random

import pytest

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Severity
from reconciler.planning.changes import Action, CreateTopic, IncreasePartitions, TopicChange
from reconciler.planning.limits import BrokerLoad, check_limits
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.model import ClusterConfig, Limits, Policy, TopicSpec
from reconciler.spec.model import Presence as SpecState
from tests.planning.factories import (
    approving_gates,
    brokers,
    checked_json,
    cluster,
    desired,
    spec,
    topic,
)

ALLOW = Policy(allow_delete=True)


def loaded(*loads: int) -> ClusterState:
    """Brokers 1..n in racks a, b, c... hosting `loads[i]` single-replica partitions each."""
    racks = [f"rack-{chr(ord('a') + i)}" for i in range(len(loads))]
    replicas = [[b] for b, n in enumerate(loads, 1) for _ in range(n)]
    return cluster(topic("base", replicas), broker_list=brokers(*racks))


def plan_for(
    state: ClusterState,
    *specs: TopicSpec,
    limit: int | None = None,
    max_partitions: int | None = None,
    policy: Policy = ALLOW,
) -> Plan:
    base = spec("base", partitions=len(state.topics["base"].partitions))
    limits = Limits(max_broker_partitions=limit, max_partitions=max_partitions)
    config = ClusterConfig("test", "b:9092", limits=limits, policy=policy)
    return make_plan(desired(base, *specs), state, config, "sha256:0")


def errors(plan: Plan, rule: str = "max_broker_partitions") -> list[tuple[str | None, int | None]]:
    return [(d.topic, d.broker) for d in plan.diagnostics if d.rule == rule]


def load(plan: Plan) -> dict[int, tuple[int, int]]:
    return {r.broker: (r.current, r.desired) for r in plan.broker_load}


@pytest.mark.parametrize(
    ("partitions", "rf", "fits"),
    [
        (2, 3, True),  # room 2 / 5 / 8: two RF-3 partitions fill broker 1
        (3, 3, False),  # a third needs broker 1 again
        (7, 2, True),  # 14 replicas in 15 slots: only 2 / 5 / 7 fits
        (8, 2, False),  # 16 replicas in 15 slots
        (15, 1, True),
        (16, 1, False),
        (3, 2, True),  # one factor fits ...
    ],
)
def test_a_create_fits_exactly_when_some_placement_does(
    partitions: int, rf: int, fits: bool
) -> None:
    plan = plan_for(
        loaded(8, 5, 2), spec("t.new", partitions=partitions, replication_factor=rf), limit=10
    )
    assert errors(plan) == ([] if fits else [("t.new", 1)])
    assert plan.applyable is fits
    if fits:
        assert all(r.desired <= r.limit for r in plan.broker_load)
    checked_json(plan)


def test_the_error_names_the_rule_topic_broker_and_numbers() -> None:
    plan = plan_for(
        loaded(8, 5, 2), spec("t.new", line=7, partitions=3, replication_factor=3), limit=10
    )
    [d] = plan.diagnostics
    assert (d.code, d.rule, d.severity, d.topic, d.broker) == (
        "P111",
        "max_broker_partitions",
        Severity.ERROR,
        "t.new",
        1,
    )
    assert str(d.location) == "topics/test.yaml:7:5"
    assert "3 new partition(s) at replication factor 3 need 9 replicas" in d.message
    assert "limits.max_broker_partitions 10" in d.message
    assert "brokers 1, 2, 3 have room for 2, 5, 8 more replica(s) (now)" in d.message
    assert "broker 1 (rack-a) 8 -> 11" in d.message
    assert "go over by 1" in d.message
    assert load(plan) == {1: (8, 11), 2: (5, 8), 3: (2, 5)}


def test_the_whole_plan_is_checked_not_each_topic_alone() -> None:
    state = loaded(8, 5, 2)
    a = spec("t.a", partitions=2, replication_factor=3)
    b = spec("t.b", partitions=1, replication_factor=3)
    assert plan_for(state, a, limit=10).applyable
    assert plan_for(state, b, limit=10).applyable
    assert errors(plan_for(state, a, b, limit=10)) == [("t.b", 1)]


def test_partition_increases_count_at_the_topics_replication_factor() -> None:
    state = cluster(
        topic("base", [[1]] * 8 + [[2]] * 5 + [[3]] * 2),
        topic("t.grow", [[2, 3]]),
    )
    fits = plan_for(state, spec("t.grow", partitions=3), limit=12)  # room 4 / 6 / 9
    assert fits.applyable
    plan = plan_for(state, spec("t.grow", partitions=11), limit=12)  # 20 replicas, 19 slots
    assert errors(plan) == [("t.grow", 1)]


def test_manual_assignments_count_where_they_say() -> None:
    state = loaded(8, 5, 2)
    placed = spec("t.placed", line=4, assignments=[[1, 2], [1, 3], [1, 2]])
    plan = plan_for(state, placed, limit=10)
    [d] = plan.diagnostics
    assert (d.topic, d.broker, d.location is not None) == ("t.placed", 1, True)
    assert "broker 1 (rack-a) would host 11 partition replicas" in d.message
    assert "it hosts 8 now and the plan puts 3 there (t.placed +3 by manual assignments)" in (
        d.message
    )
    assert plan_for(state, spec("t.placed", assignments=[[2, 3], [3, 2]]), limit=10).applyable


def test_two_topics_over_one_broker_name_both() -> None:
    state = loaded(9, 0, 0)
    plan = plan_for(
        state, spec("t.a", assignments=[[1, 2]]), spec("t.b", assignments=[[1, 3]]), limit=10
    )
    [d] = plan.diagnostics
    assert (d.topic, d.broker) == (None, 1)
    assert "t.a +1 by manual assignments, t.b +1 by manual assignments" in d.message


def test_a_reassignment_adds_where_its_target_says_and_frees_what_it_drops() -> None:
    state = cluster(topic("base", [[1]] * 9 + [[2]] * 3), topic("t.rf", [[2], [3]]))
    # RF 1 -> 3: both partitions need broker 1, which has room for one.
    plan = plan_for(state, spec("t.rf", replication_factor=3), limit=10)
    assert errors(plan) == [("t.rf", 1)]
    assert "t.rf +2 by its reassignment" in plan.diagnostics[0].message
    # RF 3 -> 1 frees: a full broker 1 gets room for a new topic in the same plan.
    # (Shrinking never drops the leader, listed first here.)
    full = cluster(topic("base", [[1]] * 8), topic("t.rf", [[2, 1, 3], [3, 1, 2]]))
    shrink = plan_for(
        full,
        spec(
            "t.rf",
            replication_factor=1,
            acknowledge=[{"replication_factor_decrease": {"from": 3, "to": 1}}],
        ),
        spec("t.new", partitions=2, replication_factor=3),
        limit=10,
    )
    assert shrink.applyable, shrink.diagnostics
    assert load(shrink)[1] == (10, 10)  # 2 freed, 2 placed


def test_deletes_free_their_replicas() -> None:
    state = cluster(topic("base", [[1]] * 9), topic("t.old", [[1, 2], [1, 3]]))
    new = spec("t.new", partitions=2, replication_factor=3)
    assert errors(plan_for(state, new, limit=11)) == [("t.new", 1)]
    tombstone = spec("t.old", state=SpecState.ABSENT, acknowledge=[{"delete": "t.old"}])
    plan = plan_for(state, new, tombstone, limit=11)
    assert plan.applyable, plan.diagnostics
    assert load(plan)[1] == (11, 11)


def test_internal_and_ignored_topics_count_in_the_load() -> None:
    state = cluster(
        topic("base", [[2]]),
        topic("__consumer_offsets", [[1, 2, 3]] * 5, internal=True),
        topic("_schemas", [[1]] * 4),
    )
    plan = plan_for(state, spec("t.new", partitions=2, replication_factor=3), limit=10)
    assert load(plan)[1] == (9, 11)
    assert errors(plan) == [("t.new", 1)]


def test_omitted_counts_are_the_broker_defaults() -> None:
    state = loaded(8, 8, 8)  # defaults: num.partitions 3, default.replication.factor 2
    # 3 partitions x RF 2 = 6 replicas in 2 + 2 + 2 slots: fits; at RF 3 it would not.
    assert plan_for(state, spec("t.defaults"), limit=10).applyable
    assert load(plan_for(state, spec("t.defaults"), limit=10)) == dict.fromkeys((1, 2, 3), (8, 10))
    assert errors(plan_for(state, spec("t.defaults", replication_factor=3), limit=10)) == [
        ("t.defaults", 1)
    ]


def test_a_broker_already_over_the_limit_blocks_only_what_lands_on_it() -> None:
    state = loaded(12, 0, 0)
    plan = plan_for(state, spec("t.new", partitions=3, replication_factor=2), limit=10)
    assert plan.applyable
    assert load(plan) == {1: (12, 12), 2: (0, 3), 3: (0, 3)}
    assert plan.load_near_limit  # broker 1 is over: the table shows it
    assert errors(plan_for(state, spec("t.new", partitions=1, replication_factor=3), limit=10))


def test_max_partitions_counts_partitions_and_deletes_free_them() -> None:
    state = loaded(3, 3, 3)  # 9 single-replica partitions
    over = plan_for(state, spec("t.new", partitions=2, replication_factor=3), max_partitions=10)
    [d] = over.diagnostics
    assert (d.code, d.rule, d.topic, d.broker) == ("P112", "max_partitions", "t.new", None)
    assert "from 9 to 11 partitions (partitions, not replicas)" in d.message
    assert over.broker_load == ()  # no max_broker_partitions: no table
    assert plan_for(
        state, spec("t.new", partitions=1, replication_factor=3), max_partitions=10
    ).applyable


def test_no_limits_no_check() -> None:
    plan = plan_for(loaded(100, 100, 100), spec("t.new", partitions=100, replication_factor=3))
    assert plan.applyable and plan.broker_load == () and not plan.diagnostics


@pytest.mark.parametrize("level", ["error", "warning", "off"])
def test_limit_severity_is_configurable(level: str) -> None:
    policy = approving_gates(
        Policy(
            allow_delete=True,
            severity=(("max_broker_partitions", level), ("max_partitions", level)),
        )
    )
    plan = plan_for(
        loaded(8, 5, 2),
        spec("t.new", partitions=3, replication_factor=3),
        limit=10,
        max_partitions=16,
        policy=policy,
    )
    found = {(d.rule, d.severity.value) for d in plan.diagnostics}
    if level == "off":
        assert found == set() and plan.broker_load == ()
    else:
        assert found == {("max_broker_partitions", level), ("max_partitions", level)}
    assert plan.applyable is (level != "error")
    checked_json(plan)


@pytest.mark.parametrize(("desired_load", "near"), [(7, False), (8, True), (10, True), (11, True)])
def test_the_load_table_shows_from_80_percent(desired_load: int, near: bool) -> None:
    row = BrokerLoad(1, "rack-a", 0, desired_load, 10)
    assert row.near_limit is near
    plan = Plan("c", "sha256:0", (), broker_load=(row,))
    assert plan.load_near_limit is near


def _gale_ryser(rooms: list[int], demands: list[int]) -> bool:
    """Whether partitions needing `demands` distinct brokers fit brokers with `rooms` slots."""
    ordered = sorted(demands, reverse=True)
    return all(
        sum(ordered[:k]) <= sum(min(max(r, 0), k) for r in rooms)
        for k in range(1, len(ordered) + 1)
    )


def test_least_loaded_placement_fits_whenever_any_placement_does() -> None:
    """The greedy placement against the Gale-Ryser condition on random plans."""
    rng = random.Random(578)
    for _ in range(400):
        count = rng.randint(2, 5)
        loads = [rng.randint(0, 12) for _ in range(count)]
        state = cluster(
            topic("base", [[b] for b, n in enumerate(loads, 1) for _ in range(n)] or [[1]]),
            broker_list=brokers(*[None] * count),
        )
        limit = rng.randint(5, 14)
        new_topics = [
            CreateTopic(f"t.{i}", rng.randint(1, 4), rng.randint(1, count))
            for i in range(rng.randint(1, 3))
        ]
        creates = [TopicChange(c.topic, Action.CREATE, (c,)) for c in new_topics]
        _, found = check_limits(
            creates, state, desired(), Limits(max_broker_partitions=limit), Policy()
        )
        current = [
            sum(1 for p in state.topics["base"].partitions if p.replicas == (b,))
            for b in range(1, count + 1)
        ]
        demands = list(
            itertools.chain.from_iterable(
                [c.replication_factor or 0] * (c.partitions or 0) for c in new_topics
            )
        )
        feasible = _gale_ryser([limit - n for n in current], demands)
        assert (not found) is feasible, (loads, limit, creates, found)


def test_increase_without_assignments_is_flexible() -> None:
    state = cluster(topic("base", [[1]] * 9), topic("t.grow", [[2]]))
    change = TopicChange("t.grow", Action.UPDATE, (IncreasePartitions("t.grow", 1, 3),))
    rows, found = check_limits(
        (change,), state, desired(), Limits(max_broker_partitions=10), Policy()
    )
    assert not found
    # Two RF-1 partitions on the least-loaded brokers: broker 3, then broker 2 (a tie at 1).
    assert {r.broker: r.desired for r in rows} == {1: 9, 2: 2, 3: 1}
