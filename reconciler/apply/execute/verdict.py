"""Is a planned change on the cluster? The one judgement apply makes of it, everywhere.

Given one planned change and what the cluster shows (reconciler.cluster.state values), `judge`
answers a closed `Verdict`:

    Done(note)        the cluster shows the change as planned (note: how, for the summary)
    Partly(note)      some of it is there and the rest is as the plan saw it (an interrupted
                      apply, a reassignment under way)
    NotStarted()      the cluster is as the plan saw it
    Diverged(reason)  the cluster shows something the plan neither saw nor makes: someone else
                      changed the topic (reason: what, naming the topic)

Pre-flight uses it to tell a stale plan from one an interrupted apply left half done, execution
to skip what is done, and the wait for metadata to know when a change shows, so a new change
kind or convergence rule is made here once. `serving` is what the wait needs beyond Done (leaders
for new partitions, new replicas in sync). Pure: nothing here talks to Kafka.

A topic that exists with other settings than planned (for example created by someone else with
the planned counts but without the planned configs) is Diverged, never Done. Config values are
compared in canonical form, as the planner compares them, so a value Kafka spells differently
from the spec still counts as set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

from reconciler.cluster.overrides import comparable_overrides
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


@dataclass(frozen=True, slots=True)
class Done:
    note: str  # what the cluster shows, e.g. "the topic already exists as planned"


@dataclass(frozen=True, slots=True)
class Partly:
    note: str  # what is there already


@dataclass(frozen=True, slots=True)
class NotStarted:
    pass


@dataclass(frozen=True, slots=True)
class Diverged:
    reason: str  # what the cluster shows instead, e.g. "a.b now has 9 partitions (the plan saw 8)"


Verdict = Done | Partly | NotStarted | Diverged


def judge(
    change: Change,
    topic: TopicState | None,
    reassignments: Sequence[Reassignment] = (),
    *,
    configs_read: bool = True,
) -> Verdict:
    """`change` against `topic`, the cluster's state of `change.topic` (None: absent).

    `reassignments` are those in progress (any topic's; only `change.topic`'s count). Pass
    `configs_read=False` when `topic` was read without its configs: a create is then judged
    on its partitions and replicas alone.
    """
    match change:
        case CreateTopic():
            return _create(change, topic, configs_read)
        case AlterTopicConfig():
            return _configs(change, topic)
        case IncreasePartitions():
            return _partitions(change, topic)
        case ReassignReplicas():
            moving = [r for r in reassignments if r.topic == change.topic]
            return _replicas(change, topic, moving)
        case DeleteTopic():
            if topic is None:
                return Done("the topic is already gone")
            if len(topic.partitions) != change.partitions:
                return Diverged(f"{change.topic}: partition count changed")
            return NotStarted()
        case _:
            assert_never(change)


def serving(change: Change, topic: TopicState | None) -> bool:
    """What the wait for metadata asks beyond Done: every partition of a created or grown topic
    has a leader (clients can use it at once), every replica of a reassignment is in sync
    (raising min.insync.replicas next is then safe)."""
    match change:
        case CreateTopic() | IncreasePartitions():
            return topic is not None and topic.led
        case ReassignReplicas():
            return topic is not None and all(
                set(p.isr) == set(p.replicas) for p in topic.partitions
            )
        case AlterTopicConfig() | DeleteTopic():
            return True
        case _:
            assert_never(change)


def pending_entries(change: AlterTopicConfig, topic: TopicState | None) -> tuple[ConfigChange, ...]:
    """The entries the cluster does not show yet (all of them when the topic is absent)."""
    if topic is None:
        return change.entries
    overrides = comparable_overrides(topic, named={e.key for e in change.entries})
    return tuple(e for e in change.entries if overrides.get(e.key) != e.desired)


def _create(change: CreateTopic, topic: TopicState | None, configs_read: bool) -> Verdict:
    if topic is None:
        return NotStarted()
    differences: list[str] = []
    count, rf = len(topic.partitions), topic.replication_factor
    if change.assignments:
        replicas = tuple(p.replicas for p in topic.partitions)
        if replicas != change.assignments:
            differences.append("its replicas are placed otherwise")
    # A count left to the broker (KIP-464) is what its default resolved to when planned: a topic
    # someone else made with another count is not the planned one either
    wanted = change.effective_partitions
    if wanted is not None and count != wanted:
        differences.append(f"{count} partitions, the plan has {wanted}")
    wanted_rf = change.effective_replication_factor
    if wanted_rf is not None and rf != wanted_rf:
        differences.append(f"replication factor {rf}, the plan has {wanted_rf}")
    if configs_read:
        planned = dict(change.config)
        # Throttled-replica lists are operational state: compared only when the plan sets them
        shown = comparable_overrides(topic, named=planned)
        for key in sorted(shown.keys() | planned.keys()):
            if shown.get(key) != planned.get(key):
                differences.append(
                    f"{key} is {shown.get(key)!r}, the plan has {planned.get(key)!r}"
                )
    if differences:
        return Diverged(
            f"{change.topic} was created with other settings ({'; '.join(differences)})"
        )
    return Done("the topic already exists as planned")


def _configs(change: AlterTopicConfig, topic: TopicState | None) -> Verdict:
    if topic is None:
        return Diverged(f"{change.topic} was deleted")
    overrides = comparable_overrides(topic, named={e.key for e in change.entries})
    raw = topic.overrides
    done: list[str] = []
    reasons: list[str] = []
    for entry in change.entries:
        now = overrides.get(entry.key)
        if now == entry.desired:
            done.append(entry.key)
        elif now != entry.current:
            reasons.append(
                f"{change.topic}: {entry.key} is now {raw.get(entry.key)!r} "
                f"(the plan saw {entry.current!r})"
            )
    if reasons:
        return Diverged("; ".join(reasons))
    if len(done) == len(change.entries):
        return Done("the configs are already set")
    if done:
        return Partly(f"{', '.join(done)} already set")
    return NotStarted()


def _partitions(change: IncreasePartitions, topic: TopicState | None) -> Verdict:
    if topic is None:
        return Diverged(f"{change.topic} was deleted")
    count = len(topic.partitions)
    if count == change.current:
        return NotStarted()
    if count != change.desired:
        return Diverged(
            f"{change.topic} now has {count} partitions (the plan saw {change.current})"
        )
    # The new partitions' replicas are not compared: a reassignment of the same plan moves them
    return Done(f"the topic already has {count} partitions")


def _replicas(
    change: ReassignReplicas, topic: TopicState | None, moving: Sequence[Reassignment]
) -> Verdict:
    """Per partition, replica sets (a reassignment keeps the target's order, but the order is
    not what a replication-factor change is about). Partitions an increase of the same plan
    adds first count as not started while they are missing."""
    if topic is None:
        return Diverged(f"{change.topic} was deleted")
    in_flight = {r.partition: r for r in moving}
    progressed = 0
    settled = 0
    for p in topic.partitions:
        index = p.partition
        if index >= len(change.target):
            continue
        target = set(change.target[index])
        before = set(change.current[index]) if index < len(change.current) else None
        flight = in_flight.get(index)
        if flight is not None:
            if set(flight.target) != target:
                return Diverged(
                    f"{change.topic}: partition {index} is being moved to other replicas"
                )
            progressed += 1
        elif set(p.replicas) == target:
            settled += 1
            progressed += target != before
        elif before is not None and set(p.replicas) != before:
            return Diverged(f"{change.topic}: the replicas of partition {index} moved")
    if settled == len(change.target) == len(topic.partitions):
        return Done("the replicas are already where planned")
    if progressed:
        return Partly(f"{progressed} of {len(change.target)} partition(s) moved or moving")
    return NotStarted()
