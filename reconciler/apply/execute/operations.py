"""The plan as a DAG of operations, cut into levels that each run as one request per kind.

Steps, in the order they run:

    CREATE       new topics, in `depends_on` order (one level per dependency depth)
    CONFIG       config changes; a min.insync.replicas lowered for a replication-factor
                 decrease is here, so it drops before replicas go
    PARTITIONS   partition increases (absolute counts, KIP-195)
    REASSIGN     replication-factor changes (KIP-455 reassignments)
    RAISE_ISR    min.insync.replicas raised for a replication-factor increase, once the new
                 replicas are in sync (raising it first could make producers with acks=all fail)
    DELETE       deletes, dependents first (one level per dependency depth)

An operation runs only if every operation in `after` succeeded: the earlier steps of its own
topic and the operations on the topics it depends on (for deletes: its dependents' deletes).
Within a step, levels follow the dependency depth planning/order.py computes. Levels are pure
values; nothing here talks to Kafka.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import assert_never

from reconciler.planning.changes import (
    AlterTopicConfig,
    Change,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.order import depths

MIN_ISR = "min.insync.replicas"


class Step(IntEnum):
    CREATE = 0
    CONFIG = 1
    PARTITIONS = 2
    REASSIGN = 3
    RAISE_ISR = 4
    DELETE = 5

    @property
    def word(self) -> str:
        return _STEP_WORDS[self]


_STEP_WORDS = {
    Step.CREATE: "create topics",
    Step.CONFIG: "change configs",
    Step.PARTITIONS: "add partitions",
    Step.REASSIGN: "reassign replicas",
    Step.RAISE_ISR: "raise min.insync.replicas",
    Step.DELETE: "delete topics",
}


@dataclass(frozen=True, slots=True)
class KindRow:
    """What apply does with one kind of change: a row of KINDS."""

    step: Step  # the step it runs in (a min.insync.replicas raise moves to RAISE_ISR)
    acl: str  # the operation Kafka authorizes (KIP-430), checked before any change
    acl_on_cluster: bool  # the ACL is on the cluster resource, not on the topic
    needed_to: str  # what the ACL is needed for, `{topic}` filled in
    verb: str  # what Kafka refused to do to a topic, in a sentence (apply/execute/sentences.py)


# One row per change kind (the closed planning.changes.Change union; a test proves every kind
# has its row): its step, the ACL pre-flight checks for it (apply/check/access.py) and the verb
# of its refusal's sentence.
KINDS: Mapping[type[Change], KindRow] = {
    CreateTopic: KindRow(
        Step.CREATE, "Describe", False, "tell whether {topic} exists before creating it", "create"
    ),
    AlterTopicConfig: KindRow(
        Step.CONFIG, "AlterConfigs", False, "change the configs of {topic}", "alter the configs of"
    ),
    IncreasePartitions: KindRow(
        Step.PARTITIONS, "Alter", False, "add partitions to {topic}", "add partitions to"
    ),
    ReassignReplicas: KindRow(
        Step.REASSIGN, "Alter", True, "reassign the replicas of {topic}", "reassign the replicas of"
    ),
    DeleteTopic: KindRow(Step.DELETE, "Delete", False, "delete {topic}", "delete"),
}


@dataclass(frozen=True, slots=True)
class Operation:
    id: int
    topic: str
    step: Step
    change: Change
    after: tuple[int, ...] = ()  # operations that must succeed first

    @property
    def summary(self) -> str:
        """What the operation does, in a few words: `create a.b (6 partitions, RF 3)`."""
        return describe(self.change)


@dataclass(frozen=True, slots=True)
class Level:
    step: Step
    depth: int  # dependency depth within the step (creates and deletes)
    operations: tuple[Operation, ...]  # sorted by topic

    @property
    def name(self) -> str:
        return self.step.word + (f" (depth {self.depth + 1})" if self.depth else "")


def describe(change: Change) -> str:
    match change:
        case CreateTopic():
            parts = []
            if change.assignments:
                parts.append(f"{len(change.assignments)} partitions, manual assignment")
            else:
                parts.append(
                    f"{change.partitions} partitions"
                    if change.partitions is not None
                    else "default partitions"
                )
                if change.replication_factor is not None:
                    parts.append(f"RF {change.replication_factor}")
            if change.config:
                parts.append(f"{len(change.config)} config override(s)")
            return f"create {change.topic} ({', '.join(parts)})"
        case AlterTopicConfig():
            keys = ", ".join(
                f"{e.key}={e.desired}" if e.desired is not None else f"-{e.key}"
                for e in change.entries
            )
            return f"configure {change.topic}: {keys}"
        case IncreasePartitions():
            return f"partitions of {change.topic}: {change.current} -> {change.desired}"
        case ReassignReplicas():
            return (
                f"replication factor of {change.topic}: {change.current_rf} -> {change.desired_rf}"
            )
        case DeleteTopic():
            return f"delete {change.topic}"
        case _:
            assert_never(change)


def step_of(change: Change) -> Step:
    return KINDS[type(change)].step


def _split_min_isr(changes: tuple[Change, ...]) -> list[tuple[Step, Change]]:
    """The topic's changes with their steps; min.insync.replicas moves after an RF increase."""
    increase = any(isinstance(c, ReassignReplicas) and c.desired_rf > c.current_rf for c in changes)
    steps: list[tuple[Step, Change]] = []
    for change in changes:
        if increase and isinstance(change, AlterTopicConfig):
            later = tuple(e for e in change.entries if e.key == MIN_ISR)
            now = tuple(e for e in change.entries if e.key != MIN_ISR)
            if now:
                steps.append((Step.CONFIG, dataclasses.replace(change, entries=now)))
            if later:
                steps.append((Step.RAISE_ISR, dataclasses.replace(change, entries=later)))
            continue
        steps.append((step_of(change), change))
    return sorted(steps, key=lambda s: s[0])


def operations(plan_changes: tuple[TopicChange, ...]) -> tuple[Operation, ...]:
    """Every change of the plan as an operation with the operations it waits for."""
    drafted: list[tuple[str, Step, Change]] = []
    for topic_change in plan_changes:
        for step, change in _split_min_isr(topic_change.changes):
            drafted.append((topic_change.topic, step, change))
    depends = {c.topic: set(c.depends_on) - {c.topic} for c in plan_changes}
    by_topic: dict[str, list[int]] = {}
    for index, (topic, _, _) in enumerate(drafted):
        by_topic.setdefault(topic, []).append(index)

    after: dict[int, set[int]] = {i: set() for i in range(len(drafted))}
    for index, (topic, step, _) in enumerate(drafted):
        # Earlier steps of the same topic.
        after[index] |= {i for i in by_topic[topic] if drafted[i][1] < step}
        if step is Step.DELETE:
            # Dependents go first: the delete of each topic that depends on this one.
            for other, needs in depends.items():
                if topic in needs:
                    after[index] |= {i for i in by_topic.get(other, []) if drafted[i][1] is step}
        else:
            # What this topic depends on must have been made first (same or earlier step).
            for needed in depends[topic]:
                after[index] |= {
                    i for i in by_topic.get(needed, []) if drafted[i][1] <= step and i != index
                }
    return tuple(
        Operation(i, topic, step, change, tuple(sorted(after[i])))
        for i, (topic, step, change) in enumerate(drafted)
    )


def levels(ops: tuple[Operation, ...]) -> tuple[Level, ...]:
    """Operations grouped by (step, dependency depth within the step), in execution order.

    The depth is planning.order's, taken over what each operation waits for within its own step
    (`after`): the plan's order and apply's levels walk the one dependency DAG.
    """
    by_id = {op.id: op for op in ops}
    grouped: dict[tuple[Step, int], list[Operation]] = {}
    for step in sorted({op.step for op in ops}):
        mine = [op for op in ops if op.step is step]  # one operation per topic and step
        needs = {
            op.topic: {by_id[i].topic for i in op.after if i in by_id and by_id[i].step is step}
            for op in mine
        }
        depth = depths(needs)
        for op in mine:
            grouped.setdefault((step, depth[op.topic]), []).append(op)
    return tuple(
        Level(step, d, tuple(sorted(grouped[(step, d)], key=lambda o: o.topic)))
        for step, d in sorted(grouped)
    )


def blocked_by(op: Operation, failed: set[int]) -> tuple[int, ...]:
    """The operations `op` waits for that did not succeed."""
    return tuple(i for i in op.after if i in failed)
