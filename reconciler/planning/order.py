"""The execution order of a plan: phase, then the dependency DAG, then the topic name.

Phases: creates, then updates, then deletes (destructive steps last). Within a phase,
`depends_on` orders topics: a topic is created or updated after the topics it depends on, and
deleted before them (dependents first, so nothing is left pointing at a deleted topic).
Dependencies on topics outside the phase are already satisfied by the phase order. Ties break
by name, so the same plan always comes out in the same order.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from reconciler.planning.changes import Action, TopicChange

PHASES = (Action.CREATE, Action.UPDATE, Action.DELETE)


def order(changes: Iterable[TopicChange]) -> tuple[TopicChange, ...]:
    pending = list(changes)
    ordered: list[TopicChange] = []
    for phase in PHASES:
        group = [c for c in pending if c.action is phase]
        ordered.extend(_topological(group, dependents_first=phase is Action.DELETE))
    return tuple(ordered)


def _topological(group: list[TopicChange], dependents_first: bool) -> list[TopicChange]:
    """Kahn's algorithm with a name-ordered ready queue.

    A cycle cannot come from validated specs; if one shows up anyway, its topics follow the
    rest in name order rather than being dropped.
    """
    by_name = {c.topic: c for c in group}
    after: dict[str, set[str]] = {name: set() for name in by_name}  # edges: first -> then
    blockers = dict.fromkeys(by_name, 0)
    for change in group:
        for dependency in set(change.depends_on):
            if dependency not in by_name or dependency == change.topic:
                continue
            first, then = (
                (change.topic, dependency) if dependents_first else (dependency, change.topic)
            )
            after[first].add(then)
            blockers[then] += 1
    ready = [name for name, count in blockers.items() if count == 0]
    heapq.heapify(ready)
    result: list[TopicChange] = []
    while ready:
        name = heapq.heappop(ready)
        result.append(by_name[name])
        for then in after[name]:
            blockers[then] -= 1
            if blockers[then] == 0:
                heapq.heappush(ready, then)
    placed = {c.topic for c in result}
    result.extend(by_name[name] for name in sorted(by_name) if name not in placed)
    return result
