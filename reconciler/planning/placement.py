"""Rack-aware replica placement for replication-factor changes and new partitions.

Pure functions of the broker list and the current per-broker replica load. The aim is the
smallest safe move: every replica that can stay, stays.

- Growing a partition keeps its replicas in order and appends brokers one at a time, each from
  the rack the partition uses least (a new rack when there is one), then the broker holding the
  fewest replicas across the cluster, then the lowest id, so the result is deterministic.
- Shrinking drops one replica at a time from the partition's most represented rack, so rack
  spread is lost last; it never drops the current leader (no leadership move mid-flight), and
  prefers to drop an out-of-sync replica, then one that is not the preferred leader, then the
  most loaded broker, then the last in the list. Survivors keep their order, so the preferred
  leader stays first whenever it stays.
- Load is updated as partitions are placed, so one plan spreads its moves over the brokers.

Brokers without a rack form one group; a replica on a broker the cluster no longer lists counts
as its own rack (its rack is unknown, so it must not look over-represented).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reconciler.cluster.state import BrokerState, ClusterState

Assignments = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class ReplicaSet:
    """One partition's replicas as placement sees them."""

    replicas: tuple[int, ...]  # preferred leader first
    leader: int | None = None  # the current leader, never dropped; None: no leader / unknown
    isr: tuple[int, ...] | None = None  # None: unknown, every replica counts as in sync


def replica_load(state: ClusterState) -> dict[int, int]:
    """Replicas hosted per broker across the cluster (every listed broker, zero included)."""
    load = {b.id: 0 for b in state.brokers}
    for topic in state.topics.values():
        for partition in topic.partitions:
            for broker in partition.replicas:
                load[broker] = load.get(broker, 0) + 1
    return load


def shift_load(
    load: Mapping[int, int], current: Assignments, target: Assignments
) -> dict[int, int]:
    """The load after moving from `current` to `target` (partitions matched by index)."""
    shifted = dict(load)
    for index, replicas in enumerate(target):
        before = set(current[index]) if index < len(current) else set()
        for broker in set(replicas) - before:
            shifted[broker] = shifted.get(broker, 0) + 1
        for broker in before - set(replicas):
            shifted[broker] = shifted.get(broker, 0) - 1
    return shifted


def change_replication_factor(
    partitions: Sequence[ReplicaSet],
    desired_rf: int,
    brokers: Sequence[BrokerState],
    load: Mapping[int, int],
) -> Assignments:
    """The target replica list of every partition for `desired_rf` replicas.

    Raises ValueError when desired_rf is below 1 or above the number of brokers; the planner
    reports that as a diagnostic before asking.
    """
    if desired_rf < 1:
        raise ValueError(f"replication factor must be at least 1, got {desired_rf}")
    if desired_rf > len(brokers) and any(len(p.replicas) < desired_rf for p in partitions):
        raise ValueError(f"replication factor {desired_rf} needs {desired_rf} brokers")
    racks = _RackOf(brokers)
    running = {b.id: load.get(b.id, 0) for b in brokers} | dict(load)
    target: list[tuple[int, ...]] = []
    for partition in partitions:
        if len(partition.replicas) < desired_rf:
            replicas = _grow(partition.replicas, desired_rf, brokers, racks, running)
        elif len(partition.replicas) > desired_rf:
            replicas = _shrink(partition, desired_rf, racks, running)
        else:
            replicas = partition.replicas
        target.append(replicas)
    return tuple(target)


class _RackOf:
    """Rack grouping key of a broker id (see the module docstring for the two special cases)."""

    def __init__(self, brokers: Iterable[BrokerState]) -> None:
        self._racks = {b.id: b.rack for b in brokers}

    def __call__(self, broker: int) -> str | None:
        if broker in self._racks:
            return self._racks[broker]
        return f"\0unknown broker {broker}"


def _grow(
    replicas: tuple[int, ...],
    rf: int,
    brokers: Sequence[BrokerState],
    rack_of: _RackOf,
    load: dict[int, int],
) -> tuple[int, ...]:
    grown = list(replicas)
    while len(grown) < rf:
        used = Counter(rack_of(r) for r in grown)
        candidates = [b.id for b in brokers if b.id not in grown]
        best = min(candidates, key=lambda b: (used[rack_of(b)], load[b], b))
        grown.append(best)
        load[best] += 1
    return tuple(grown)


def _shrink(
    partition: ReplicaSet, rf: int, rack_of: _RackOf, load: dict[int, int]
) -> tuple[int, ...]:
    kept = list(partition.replicas)
    preferred = kept[0]
    in_sync = set(partition.isr) if partition.isr is not None else set(kept)
    while len(kept) > rf:
        per_rack = Counter(rack_of(r) for r in kept)
        # rf >= 1 and len(kept) > rf, so at least one replica besides the leader is left.
        droppable = [r for r in kept if r != partition.leader]
        victim = max(
            droppable,
            key=lambda r: (
                per_rack[rack_of(r)],
                r not in in_sync,
                r != preferred,
                load.get(r, 0),
                kept.index(r),
            ),
        )
        kept.remove(victim)
        load[victim] = load.get(victim, 0) - 1
    return tuple(kept)
