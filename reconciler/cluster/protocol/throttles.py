"""Replication throttles as values, and the merge rules of a throttled-replicas list.

A throttle (apply --throttle) is a rate on each broker involved and, on each topic, the
replicas it applies to: leader side the replicas data is copied from, follower side the new
ones, as "partition:broker" pairs in a comma-separated list where `*` means every replica.
Setting one adds its pairs to what the topic lists (an operator's pairs stay); removing it takes
away exactly the pairs it added. The adapter (cluster/adapter/replication_throttle.py) sends
those requests; the in-memory fake applies the same rules, so both merge alike.
"""

from __future__ import annotations

from dataclasses import dataclass

RATE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"


@dataclass(frozen=True, slots=True)
class Moves:
    """One topic's partition moves: which replicas copy from, which receive."""

    sources: tuple[str, ...]  # "partition:broker" of replicas that already hold the data
    destinations: tuple[str, ...]  # "partition:broker" of replicas being added


@dataclass(frozen=True, slots=True)
class Throttle:
    """What set_throttle changed, with the values it replaced (None: there was none)."""

    rate: int
    brokers: tuple[int, ...]  # brokers whose rates were set (those without a rate of their own)
    kept: tuple[tuple[int, str], ...]  # brokers that had a rate already: (id, its value)
    topics: tuple[tuple[str, str | None, str | None], ...]  # (topic, leader, follower) before
    # (topic, leader pairs, follower pairs) this throttle added: what removing it takes away
    added: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()


def new_pairs(previous: str | None, pairs: tuple[str, ...]) -> tuple[str, ...]:
    """The pairs a merge adds to `previous` (none to a `*`, which already throttles all)."""
    if previous == "*":
        return ()
    have = set((previous or "").split(","))
    return tuple(p for p in dict.fromkeys(pairs) if p not in have)


def without(current: str | None, pairs: set[str]) -> str | None:
    """`current` less `pairs`; None (no override) when nothing is left."""
    if current is None or current == "*":
        return current
    left = [p for p in current.split(",") if p and p not in pairs]
    return ",".join(left) or None


def merged(previous: str | None, pairs: tuple[str, ...]) -> str:
    """`previous` with `pairs` added, in order, once each (a `*` stays: it throttles all)."""
    if previous == "*":
        return "*"
    have = [p for p in (previous or "").split(",") if p]
    return ",".join(dict.fromkeys([*have, *pairs]))
