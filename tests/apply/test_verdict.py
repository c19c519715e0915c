"""verdict.judge: is a planned change on the cluster? One table per change kind, no broker.

Each row is (change, the topic as the cluster shows it, what judge must answer). The same
judgement serves pre-flight, execution and the wait for metadata, so these rows are the
convergence rules of apply, written once.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from reconciler.apply.execute.verdict import (
    Diverged,
    Done,
    NotStarted,
    Partly,
    Verdict,
    judge,
    pending_entries,
    serving,
)
from reconciler.cluster.state import Reassignment, TopicState
from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
)
from tests.planning.factories import topic

T = "a.b"
CONFIGS = (("cleanup.policy", "compact,delete"), ("retention.ms", "604800000"))
CREATE = CreateTopic(T, 2, 2, CONFIGS)
PLACED = CreateTopic(T, 2, None, (), assignments=((1, 2), (2, 3)))
DEFAULTS = CreateTopic(T, None, None)

Row = tuple[Change, TopicState | None, Verdict]


def verdicts(rows: dict[str, Row]) -> list[object]:
    return [pytest.param(*row, id=name) for name, row in rows.items()]


CREATES: dict[str, Row] = {
    "absent: not started": (CREATE, None, NotStarted()),
    "as planned: done": (
        CREATE,
        topic(T, [[1, 2], [2, 3]], overrides=dict(CONFIGS)),
        Done("the topic already exists as planned"),
    ),
    "a value Kafka spells otherwise is still as planned": (
        CREATE,
        topic(
            T,
            [[1, 2], [2, 3]],
            overrides={"cleanup.policy": "delete,compact", "retention.ms": "604800000"},
        ),
        Done("the topic already exists as planned"),
    ),
    "same counts, none of the planned configs: diverged, never done": (
        CREATE,
        topic(T, [[1, 2], [2, 3]]),
        Diverged(
            "a.b was created with other settings (cleanup.policy is None, the plan has "
            "'compact,delete'; retention.ms is None, the plan has '604800000')"
        ),
    ),
    "an override the plan does not set: diverged": (
        CREATE,
        topic(T, [[1, 2], [2, 3]], overrides={**dict(CONFIGS), "segment.ms": "1000"}),
        Diverged("a.b was created with other settings (segment.ms is '1000', the plan has None)"),
    ),
    "other counts: diverged": (
        CREATE,
        topic(T, [[1], [2], [3]], overrides=dict(CONFIGS)),
        Diverged(
            "a.b was created with other settings (3 partitions, the plan has 2; "
            "replication factor 1, the plan has 2)"
        ),
    ),
    "a throttle an operator set is not a setting of the topic": (
        CREATE,
        topic(
            T,
            [[1, 2], [2, 3]],
            overrides={**dict(CONFIGS), "leader.replication.throttled.replicas": "0:1"},
        ),
        Done("the topic already exists as planned"),
    ),
    "manual placement as planned: done": (
        PLACED,
        topic(T, [[1, 2], [2, 3]]),
        Done("the topic already exists as planned"),
    ),
    "manual placement, replicas elsewhere: diverged": (
        PLACED,
        topic(T, [[1, 2], [3, 1]]),
        Diverged("a.b was created with other settings (its replicas are placed otherwise)"),
    ),
    "broker-default counts: any count is as planned": (
        DEFAULTS,
        topic(T, [[1, 2]] * 5),
        Done("the topic already exists as planned"),
    ),
}


def retention(current: str | None, desired: str | None) -> ConfigChange:
    return ConfigChange("retention.ms", current, desired)


ALTER = AlterTopicConfig(
    T, (ConfigChange("cleanup.policy", None, "compact,delete"), retention("1000", None))
)

CONFIG_ROWS: dict[str, Row] = {
    "as the plan saw it: not started": (
        ALTER,
        topic(T, overrides={"retention.ms": "1000"}),
        NotStarted(),
    ),
    "every key set or removed: done": (
        ALTER,
        topic(T, overrides={"cleanup.policy": "delete,compact"}),
        Done("the configs are already set"),
    ),
    "one key of two: partly": (
        ALTER,
        topic(T, overrides={"cleanup.policy": "compact,delete", "retention.ms": "1000"}),
        Partly("cleanup.policy already set"),
    ),
    "a value neither the plan saw nor sets: diverged": (
        ALTER,
        topic(T, overrides={"retention.ms": "1"}),
        Diverged("a.b: retention.ms is now '1' (the plan saw '1000')"),
    ),
    "a key set behind the plan's back: diverged": (
        AlterTopicConfig(T, (retention(None, "1000"),)),
        topic(T, overrides={"retention.ms": "5"}),
        Diverged("a.b: retention.ms is now '5' (the plan saw None)"),
    ),
    "the topic is gone: diverged": (ALTER, None, Diverged("a.b was deleted")),
}

GROW = IncreasePartitions(T, 2, 4)
PARTITION_ROWS: dict[str, Row] = {
    "at the count the plan saw: not started": (GROW, topic(T, [[1]] * 2), NotStarted()),
    "at the planned count: done": (
        GROW,
        topic(T, [[1]] * 4),
        Done("the topic already has 4 partitions"),
    ),
    "another count: diverged": (
        GROW,
        topic(T, [[1]] * 3),
        Diverged("a.b now has 3 partitions (the plan saw 2)"),
    ),
    "beyond the planned count: diverged": (
        GROW,
        topic(T, [[1]] * 5),
        Diverged("a.b now has 5 partitions (the plan saw 2)"),
    ),
    "the topic is gone: diverged": (GROW, None, Diverged("a.b was deleted")),
}

RF = ReassignReplicas(T, 1, 2, ((1,), (2,)), ((1, 2), (2, 3)))
REPLICA_ROWS: dict[str, Row] = {
    "as the plan saw it: not started": (RF, topic(T, [[1], [2]]), NotStarted()),
    "every partition at its target: done": (
        RF,
        topic(T, [[2, 1], [2, 3]]),
        Done("the replicas are already where planned"),
    ),
    "one partition moved: partly": (
        RF,
        topic(T, [[1, 2], [2]]),
        Partly("1 of 2 partition(s) moved or moving"),
    ),
    "replicas moved elsewhere: diverged": (
        RF,
        topic(T, [[3], [2]]),
        Diverged("a.b: the replicas of partition 0 moved"),
    ),
    "partitions an increase adds first are not there yet: not started": (
        ReassignReplicas(T, 1, 2, ((1,), (2,), (3,)), ((1, 2), (2, 3), (3, 1))),
        topic(T, [[1], [2]]),
        NotStarted(),
    ),
    "the topic is gone: diverged": (RF, None, Diverged("a.b was deleted")),
}

DROP = DeleteTopic(T, 2, "tombstone")
DELETE_ROWS: dict[str, Row] = {
    "gone: done": (DROP, None, Done("the topic is already gone")),
    "there, as the plan saw it: not started": (DROP, topic(T, [[1]] * 2), NotStarted()),
    "there, grown since: diverged": (
        DROP,
        topic(T, [[1]] * 3),
        Diverged("a.b: partition count changed"),
    ),
}


@pytest.mark.parametrize(
    ("change", "shown", "expected"),
    verdicts(CREATES | {f"config: {k}": v for k, v in CONFIG_ROWS.items()})
    + verdicts({f"partitions: {k}": v for k, v in PARTITION_ROWS.items()})
    + verdicts({f"replicas: {k}": v for k, v in REPLICA_ROWS.items()})
    + verdicts({f"delete: {k}": v for k, v in DELETE_ROWS.items()}),
)
def test_judge(change: Change, shown: TopicState | None, expected: Verdict) -> None:
    assert judge(change, shown) == expected


def moving(partition: int, replicas: Sequence[int], removing: Sequence[int] = ()) -> Reassignment:
    added = tuple(b for b in replicas if b not in removing)
    return Reassignment(T, partition, tuple(replicas), added, tuple(removing))


@pytest.mark.parametrize(
    ("reassignments", "expected"),
    [
        pytest.param([moving(0, (1, 2))], Partly("1 of 2 partition(s) moved or moving"), id="ours"),
        pytest.param(
            [moving(0, (3, 1), removing=(1,))],
            Diverged("a.b: partition 0 is being moved to other replicas"),
            id="someone else's",
        ),
        pytest.param(
            [Reassignment("other", 0, (3, 1), (3,), (1,))],
            Partly("1 of 2 partition(s) moved or moving"),
            id="another topic's does not count",
        ),
    ],
)
def test_a_reassignment_in_progress(reassignments: list[Reassignment], expected: Verdict) -> None:
    # Mid-move, metadata lists every replica of partition 0: the reassignment tells its target
    shown = topic(T, [[1, 2], [2]])
    assert judge(RF, shown, reassignments) == expected


def test_a_create_read_without_its_configs_is_judged_on_its_counts() -> None:
    bare = topic(T, [[1, 2], [2, 3]])  # as the wait for metadata reads it: no configs
    assert isinstance(judge(CREATE, bare), Diverged)
    assert judge(CREATE, bare, configs_read=False) == Done("the topic already exists as planned")
    assert judge(CREATE, topic(T, [[1]]), configs_read=False) != Done(
        "the topic already exists as planned"
    )


@pytest.mark.parametrize(
    ("change", "shown", "expected"),
    [
        pytest.param(CREATE, topic(T, [[1, 2], [2, 3]], leaders=[1, None]), False, id="leaderless"),
        pytest.param(CREATE, topic(T, [[1, 2], [2, 3]]), True, id="led"),
        pytest.param(RF, topic(T, [[1, 2], [2, 3]], isr=[[1], [2, 3]]), False, id="catching up"),
        pytest.param(RF, topic(T, [[1, 2], [2, 3]]), True, id="in sync"),
        pytest.param(DROP, None, True, id="gone"),
    ],
)
def test_serving(change: Change, shown: TopicState | None, expected: bool) -> None:
    assert serving(change, shown) is expected


def test_only_the_keys_still_different_are_pending() -> None:
    shown = topic(T, overrides={"cleanup.policy": "delete,compact", "retention.ms": "1000"})
    assert pending_entries(ALTER, shown) == (retention("1000", None),)
    assert pending_entries(ALTER, None) == ALTER.entries


def test_a_create_left_to_the_broker_defaults_is_judged_on_what_they_resolved_to() -> None:
    """Finding 3: a create planned with the broker's default counts (KIP-464) that someone else
    made with other counts is Diverged, not "already exists as planned"."""
    planned = CreateTopic(T, None, None, default_partitions=2, default_replication_factor=2)
    assert judge(planned, topic(T, [[1, 2], [2, 3]])) == Done("the topic already exists as planned")
    wider = judge(planned, topic(T, [[1, 2], [2, 3], [3, 1]]))
    assert isinstance(wider, Diverged) and "3 partitions, the plan has 2" in wider.reason
    thinner = judge(planned, topic(T, [[1], [2]]))
    assert (
        isinstance(thinner, Diverged) and "replication factor 1, the plan has 2" in thinner.reason
    )
    unknown = CreateTopic(T, None, None)  # the defaults were not known when planned
    assert judge(unknown, topic(T, [[1]])) == Done("the topic already exists as planned")
