"""KIP-578 partition limits, simulated over the whole plan because Kafka never merged the KIP.

Brokers fall over from too many partition replicas long before their disks fill, so a cluster
may cap the replicas one broker hosts (`limits.max_broker_partitions`) and the partitions in the
cluster (`limits.max_partitions`). Like the KIP, the check takes the whole plan at once:

1. Count the replicas each broker hosts now: every topic on the cluster, internal and ignored
   ones included, because brokers host them too.
2. Apply what the plan fixes: manual assignments (creates, partition increases), the computed
   targets of reassignments (replicas added where they say, removed ones freed), deletes
   (freed). A broker these push above the limit is an error naming the broker, the topics and
   the numbers: the plan says where those replicas go, so no other placement can help.
3. Place every remaining new partition (creates and partition increases that leave the placement
   to Kafka) replica by replica on the least-loaded distinct brokers, in plan order; ties go to
   a rack the partition does not use yet, then the lowest id. With one limit for all brokers,
   least loaded is most room, and this greedy placement finds a fit whenever one exists
   (Gale-Ryser: each broker hosts at most one replica of a partition), so a topic it cannot
   fit is one no placement of the plan fits: an error naming the topic, the brokers and the
   numbers.
4. `max_partitions` counts partitions, not replicas: now, plus creates and increases, minus
   deletes.

Deletes count as freeing room although apply runs them last: the limits judge the cluster the
plan leaves, as KIP-578 judges the cluster a request leaves. The per-broker counts before and
after are returned as `BrokerLoad` rows for the plan's load table.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import assert_never

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location
from reconciler.planning import p_codes, placement
from reconciler.planning.changes import (
    AlterTopicConfig,
    Assignments,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.spec.model import DesiredState, Limits, Policy

NEAR_LIMIT_PERCENT = 80  # the plan shows the load table from here on

# Kafka's built-in num.partitions and default.replication.factor, for a create whose broker
# defaults the state did not record.
_KAFKA_DEFAULT_COUNT = 1


@dataclass(frozen=True, slots=True)
class BrokerLoad:
    """Partition replicas one broker hosts now and after the plan, against the limit."""

    broker: int
    rack: str | None
    current: int
    desired: int  # new partitions counted on the least-loaded brokers (see the module doc)
    limit: int  # limits.max_broker_partitions

    @property
    def percent(self) -> int:
        """`desired` as a percentage of the limit, rounded down."""
        return self.desired * 100 // self.limit

    @property
    def near_limit(self) -> bool:
        return self.desired * 100 >= self.limit * NEAR_LIMIT_PERCENT


@dataclass(frozen=True, slots=True)
class _NewPartitions:
    """New partitions whose placement the plan leaves to the broker."""

    topic: str
    count: int
    rf: int


@dataclass
class _Tally:
    """What the plan's changes do to the counts, before any flexible placement."""

    added: Counter[int] = field(default_factory=Counter)  # fixed replicas per broker
    freed: Counter[int] = field(default_factory=Counter)
    # broker -> topic -> (replicas added there, how) for messages
    added_by: dict[int, dict[str, tuple[int, str]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    flexible: list[_NewPartitions] = field(default_factory=list)
    partitions_added: Counter[str] = field(default_factory=Counter)
    partitions_freed: int = 0

    def add(self, topic: str, assignments: Iterable[Iterable[int]], how: str) -> None:
        for replicas in assignments:
            for broker in replicas:
                self.added[broker] += 1
                count, _ = self.added_by[broker].get(topic, (0, how))
                self.added_by[broker][topic] = (count + 1, how)


def check_limits(
    changes: Iterable[TopicChange],
    state: ClusterState,
    desired: DesiredState,
    limits: Limits,
    policy: Policy,
) -> tuple[tuple[BrokerLoad, ...], tuple[Diagnostic, ...]]:
    """(per-broker load rows, diagnostics) of the ordered `changes` against `limits`.

    No rows when `max_broker_partitions` is unset or its severity is off; no diagnostics for a
    limit that is unset or off.
    """
    tally = _tally(changes, state)
    diagnostics: list[Diagnostic] = []

    def location(topic: str | None) -> Location | None:
        spec = desired.topics.get(topic) if topic is not None else None
        return spec.location if spec is not None else None

    rows: tuple[BrokerLoad, ...] = ()
    broker_severity = p_codes.severity(policy, p_codes.MAX_BROKER_PARTITIONS.name)
    if limits.max_broker_partitions is not None and broker_severity is not None:
        check = _BrokerCheck(state, tally, limits.max_broker_partitions)
        rows = check.rows()
        diagnostics += [
            p_codes.MAX_BROKER_PARTITIONS(
                message,
                topic=topic,
                location=location(topic),
                broker=broker,
                severity=broker_severity,
            )
            for topic, broker, message in check.problems
        ]
    partitions_severity = p_codes.severity(policy, p_codes.MAX_PARTITIONS.name)
    if limits.max_partitions is not None and partitions_severity is not None:
        found = _max_partitions(state, tally, limits.max_partitions)
        if found is not None:
            topic, message = found
            diagnostics.append(
                p_codes.MAX_PARTITIONS(
                    message, topic=topic, location=location(topic), severity=partitions_severity
                )
            )
    return rows, tuple(diagnostics)


def _tally(changes: Iterable[TopicChange], state: ClusterState) -> _Tally:
    tally = _Tally()
    for topic_change in changes:
        for change in topic_change.changes:
            match change:
                case CreateTopic():
                    count = change.effective_partitions
                    if change.assignments:
                        tally.add(change.topic, change.assignments, "manual assignments")
                    else:
                        count = count or _KAFKA_DEFAULT_COUNT
                        rf = change.effective_replication_factor or _KAFKA_DEFAULT_COUNT
                        tally.flexible.append(_NewPartitions(change.topic, count, rf))
                    tally.partitions_added[change.topic] += count or _KAFKA_DEFAULT_COUNT
                case IncreasePartitions():
                    new = change.desired - change.current
                    tally.partitions_added[change.topic] += new
                    if change.assignments:
                        tally.add(change.topic, change.assignments, "its new partitions")
                    else:
                        current = state.topics.get(change.topic)
                        rf = current.replication_factor if current is not None else 1
                        tally.flexible.append(_NewPartitions(change.topic, new, rf))
                case ReassignReplicas():
                    added, freed = _moves(change.current, change.target)
                    tally.add(change.topic, added, "its reassignment")
                    for replicas in freed:
                        tally.freed.update(replicas)
                case DeleteTopic():
                    tally.partitions_freed += change.partitions
                    gone = state.topics.get(change.topic)
                    for partition in gone.partitions if gone is not None else ():
                        tally.freed.update(partition.replicas)
                case AlterTopicConfig():
                    pass
                case _:
                    assert_never(change)
    return tally


def _moves(
    current: Assignments, target: Assignments
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """(replicas added, replicas removed) per partition of a reassignment."""
    added, removed = [], []
    for index, replicas in enumerate(target):
        before = current[index] if index < len(current) else ()
        added.append(tuple(b for b in replicas if b not in before))
        removed.append(tuple(b for b in before if b not in replicas))
    return added, removed


class _BrokerCheck:
    """Steps 2 and 3 of the module docstring for one `max_broker_partitions`."""

    def __init__(self, state: ClusterState, tally: _Tally, limit: int) -> None:
        self.limit = limit
        self.tally = tally
        self.racks = {b.id: b.rack for b in state.brokers}
        self.current: dict[int, int] = placement.replica_load(state)
        self.fixed = {
            b: self.current.get(b, 0) + tally.added[b] - tally.freed[b]
            for b in {*self.current, *tally.added, *tally.freed}
        }
        self.running = dict(self.fixed)
        # (topic, broker, message)
        self.problems: list[tuple[str | None, int | None, str]] = []
        self._check_fixed()
        self._place_flexible([b.id for b in state.brokers])

    def rows(self) -> tuple[BrokerLoad, ...]:
        return tuple(
            BrokerLoad(b, self.racks.get(b), self.current.get(b, 0), self.running[b], self.limit)
            for b in sorted(self.running)
        )

    def _check_fixed(self) -> None:
        for broker in sorted(self.tally.added):
            after = self.fixed[broker]
            if after <= self.limit:
                continue
            by_topic = self.tally.added_by[broker]
            contributions = ", ".join(
                f"{topic} +{count} by {how}" for topic, (count, how) in sorted(by_topic.items())
            )
            freed = self.tally.freed[broker]
            freed_text = f", and frees {freed}" if freed else ""
            room = _rooms(
                {b: load for b, load in self.fixed.items() if b in self.racks}, self.limit
            )
            self.problems.append(
                (
                    next(iter(by_topic)) if len(by_topic) == 1 else None,
                    broker,
                    f"broker {broker}{self._rack(broker)} would host {after} partition "
                    f"replicas after the plan, above limits.max_broker_partitions "
                    f"{self.limit}: it hosts {self.current.get(broker, 0)} now and the plan "
                    f"puts {self.tally.added[broker]} there ({contributions}){freed_text}; "
                    f"place those replicas on brokers with room ({room}), free room on "
                    f"broker {broker}, or raise limits.max_broker_partitions",
                )
            )

    def _place_flexible(self, brokers: list[int]) -> None:
        for new in self.tally.flexible:
            if not brokers or new.rf > len(brokers) or new.count < 1:
                continue  # diff reports an unreachable replication factor (P102)
            before = dict(self.running)
            over: Counter[int] = Counter()
            for _ in range(new.count):
                chosen: list[int] = []
                while len(chosen) < new.rf:
                    racks = Counter(self.racks.get(b) for b in chosen)
                    best = min(
                        (b for b in brokers if b not in chosen),
                        key=lambda b: (self.running[b], racks[self.racks.get(b)], b),
                    )
                    if self.running[best] >= self.limit:
                        over[best] += 1
                    self.running[best] += 1
                    chosen.append(best)
            if over:
                self.problems.append(self._overflow(new, brokers, before, over))

    def _overflow(
        self,
        new: _NewPartitions,
        brokers: list[int],
        before: Mapping[int, int],
        over: Counter[int],
    ) -> tuple[str | None, int | None, str]:
        loads = ", ".join(
            f"broker {b}{self._rack(b)} {before[b]} -> {self.running[b]}" for b in brokers
        )
        full = sorted(over)
        earlier = (
            "now"
            if all(before[b] == self.current.get(b, 0) for b in brokers)
            else "after the plan's other changes"
        )
        return (
            new.topic,
            full[0],
            f"{new.topic}: {new.count} new partition(s) at replication factor {new.rf} need "
            f"{new.count * new.rf} replicas on distinct brokers, and no placement keeps every "
            f"broker at or below limits.max_broker_partitions {self.limit}: "
            f"{_rooms({b: before[b] for b in brokers}, self.limit)} ({earlier}); "
            f"on the least-loaded brokers: {loads}, so broker(s) "
            f"{', '.join(map(str, full))} go over by {', '.join(str(over[b]) for b in full)}. "
            "Lower partitions or replication_factor, free room (delete topics, move replicas), "
            "raise limits.max_broker_partitions, or add brokers",
        )

    def _rack(self, broker: int) -> str:
        rack = self.racks.get(broker)
        return f" ({rack})" if rack else ""


def _rooms(loads: Mapping[int, int], limit: int) -> str:
    """ "brokers 1, 2, 3 have room for 0, 2, 5 more replica(s)"."""
    ids = sorted(loads)
    rooms = ", ".join(str(max(0, limit - loads[b])) for b in ids)
    return f"brokers {', '.join(map(str, ids))} have room for {rooms} more replica(s)"


def _max_partitions(
    state: ClusterState, tally: _Tally, limit: int
) -> tuple[str | None, str] | None:
    """(topic or None, message) when the plan takes the cluster above `limit` partitions."""
    current = sum(len(t.partitions) for t in state.topics.values())
    added = sum(tally.partitions_added.values())
    desired = current + added - tally.partitions_freed
    if added == 0 or desired <= limit:
        return None
    adders = sorted(t for t, n in tally.partitions_added.items() if n > 0)
    listed = ", ".join(f"{t} +{tally.partitions_added[t]}" for t in adders)
    freed = f" and deletes free {tally.partitions_freed}" if tally.partitions_freed else ""
    return (
        adders[0] if len(adders) == 1 else None,
        f"the plan takes the cluster from {current} to {desired} partitions (partitions, not "
        f"replicas), above limits.max_partitions {limit}: it adds {added} ({listed}){freed}; "
        "create fewer partitions, delete unused topics, or raise limits.max_partitions",
    )
