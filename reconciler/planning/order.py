"""The execution order of a plan: phase, then the dependency DAG, then the topic name.

Phases: creates, then updates, then deletes (destructive steps last). Within a phase,
`depends_on` orders topics: a topic is created or updated after the topics it depends on, and
deleted before them (dependents first, so nothing is left pointing at a deleted topic).
Dependencies on topics outside the phase are already satisfied by the phase order. Ties break
by name, so the same plan always comes out in the same order.

This module is the one place the dependency DAG is walked: `order` for the plan's sequence, and
`depths` for apply's levels (reconciler.apply.execute.operations), which group what can go in one
request.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping

from reconciler.planning.changes import Action, TopicChange

PHASES = (Action.CREATE, Action.UPDATE, Action.DELETE)


def order(changes: Iterable[TopicChange]) -> tuple[TopicChange, ...]:
    pending = list(changes)
    ordered: list[TopicChange] = []
    for phase in PHASES:
        group = {c.topic: c for c in pending if c.action is phase}
        needs = waits_for({name: c.depends_on for name, c in group.items()}, phase)
        ordered.extend(group[name] for name in topological(needs))
    return tuple(ordered)


def waits_for(depends_on: Mapping[str, Iterable[str]], phase: Action) -> dict[str, set[str]]:
    """Which topics of one phase each waits for: those it depends on, or for deletes its
    dependents. Dependencies outside the group, and on itself, are left out."""
    needs: dict[str, set[str]] = {name: set() for name in depends_on}
    for name, dependencies in depends_on.items():
        for dependency in set(dependencies):
            if dependency not in needs or dependency == name:
                continue
            if phase is Action.DELETE:
                needs[dependency].add(name)
            else:
                needs[name].add(dependency)
    return needs


def topological(needs: Mapping[str, set[str]]) -> list[str]:
    """Kahn's algorithm with a name-ordered ready queue: each name after what it needs.

    A cycle cannot come from validated specs; if one shows up anyway, its names follow the rest
    in name order rather than being dropped.
    """
    then: dict[str, set[str]] = {name: set() for name in needs}  # edges: first -> then
    blockers = dict.fromkeys(needs, 0)
    for name, first in needs.items():
        for needed in first:
            if needed in then:
                then[needed].add(name)
                blockers[name] += 1
    ready = [name for name, count in blockers.items() if count == 0]
    heapq.heapify(ready)
    result: list[str] = []
    while ready:
        name = heapq.heappop(ready)
        result.append(name)
        for after in then[name]:
            blockers[after] -= 1
            if blockers[after] == 0:
                heapq.heappush(ready, after)
    placed = set(result)
    result.extend(name for name in sorted(needs) if name not in placed)
    return result


def depths(needs: Mapping[str, set[str]]) -> dict[str, int]:
    """Each name's dependency depth: 0 when it needs none of the others, else one more than
    the deepest it needs. Names of one depth can go together once the shallower ones are done.

    Taken along `topological`, so what a name needs has its depth first; in a cycle (see there)
    a need not yet placed does not count, so every name still gets a depth.
    """
    depth: dict[str, int] = {}
    for name in topological(needs):
        depth[name] = 1 + max((depth[n] for n in needs[name] if n in depth), default=-1)
    return depth
