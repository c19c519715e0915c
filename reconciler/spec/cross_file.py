"""The rules over every topic one cluster gets, across files: duplicates, `.`/`_` collisions,
and `depends_on` (declared, not itself, not a tombstone, no cycle).

`cross_file` runs them all over the topics of one cluster in declaration order; each rule
reports the later place and names the earlier one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Location, did_you_mean
from reconciler.spec.kafka_rules import collision_key
from reconciler.spec.r_codes import (
    DEPENDENCY_CYCLE,
    DEPENDENCY_ON_TOMBSTONE,
    DUPLICATE_TOPIC,
    SELF_DEPENDENCY,
    TOPIC_NAME_COLLISION,
    UNKNOWN_DEPENDENCY,
)


@dataclass(frozen=True, slots=True)
class Declared:
    """One declaration of a topic, as the cross-file rules see it."""

    name: str
    location: Location
    depends_on: tuple[tuple[str, Location], ...] = ()
    absent: bool = False


def name_collisions(topics: Iterable[Declared]) -> list[Diagnostic]:
    """Names that differ but are equal once '.' and '_' are unified (Kafka refuses the second).

    `topics` come in declaration order; the later one is reported, naming the earlier one.
    """
    return [
        TOPIC_NAME_COLLISION(
            f"topic '{topic.name}' collides with '{other.name}' (declared at {other.location}): "
            "Kafka's metric names treat '.' and '_' alike, so it refuses the second; rename one "
            "of them",
            topic.location,
            topic.name,
        )
        for topic, other in _repeats(topics, lambda t: collision_key(t.name))
        if other.name != topic.name
    ]


def duplicates(topics: Iterable[Declared]) -> list[Diagnostic]:
    """One topic declared twice (in one file or two): the later place is reported."""
    return [
        DUPLICATE_TOPIC(
            f"topic '{topic.name}' is declared twice: here and at {other.location}; keep one "
            "declaration (use `clusters:` to vary it per cluster)",
            topic.location,
            topic.name,
        )
        for topic, other in _repeats(topics, lambda t: t.name)
    ]


def _repeats(
    topics: Iterable[Declared], key: Callable[[Declared], str]
) -> Iterator[tuple[Declared, Declared]]:
    """Each declaration whose key an earlier one already had, with that first one."""
    first: dict[str, Declared] = {}
    for topic in topics:
        other = first.setdefault(key(topic), topic)
        if other is not topic:
            yield topic, other


def cross_file(
    declared: Sequence[Declared], elsewhere: Mapping[str, Sequence[str]] | None = None
) -> list[Diagnostic]:
    """Every cross-file rule over the declarations one cluster gets, in declaration order.

    `elsewhere`: topics declared only for other clusters, with those clusters."""
    unique: dict[str, Declared] = {}
    for topic in declared:
        unique.setdefault(topic.name, topic)
    return [
        *duplicates(declared),
        *name_collisions(unique.values()),
        *dependencies(list(unique.values()), elsewhere or {}),
    ]


# ---------------------------------------------------------------------------- dependencies


def dependencies(
    topics: Sequence[Declared], elsewhere: Mapping[str, Sequence[str]] | None = None
) -> list[Diagnostic]:
    """depends_on names a declared topic, not itself, not a tombstone, and forms no cycle.

    A topic declared only for other clusters (`elsewhere`) is named as such: declared, but not
    for this cluster, so the order it would give cannot hold here."""
    elsewhere = elsewhere or {}
    declared = {t.name: t for t in topics}
    found: list[Diagnostic] = []
    for topic in topics:
        for name, where in topic.depends_on:
            if name == topic.name:
                found.append(
                    SELF_DEPENDENCY(
                        f"'{topic.name}' depends on itself: remove it from its depends_on",
                        where,
                        topic.name,
                    )
                )
            elif name not in declared and name in elsewhere:
                clusters = elsewhere[name]
                label = "cluster" if len(clusters) == 1 else "clusters"
                found.append(
                    UNKNOWN_DEPENDENCY(
                        f"'{topic.name}' depends on '{name}', which is declared only for "
                        f"{label} {', '.join(clusters)} (its `clusters:`): add this cluster to the "
                        f"`clusters:` of '{name}', or give '{topic.name}' the same `clusters:`",
                        where,
                        topic.name,
                    )
                )
            elif name not in declared:
                found.append(
                    UNKNOWN_DEPENDENCY(
                        f"'{topic.name}' depends on '{name}', which no topic file declares"
                        f"{did_you_mean(name, declared, cutoff=0.8)}: declare it or fix the name",
                        where,
                        topic.name,
                    )
                )
            elif declared[name].absent and not topic.absent:
                found.append(
                    DEPENDENCY_ON_TOMBSTONE(
                        f"'{topic.name}' depends on '{name}', which has state: absent and will "
                        "be deleted; remove the dependency or the tombstone",
                        where,
                        topic.name,
                    )
                )
    found.extend(_cycles(topics, declared))
    return found


def _cycles(topics: Sequence[Declared], declared: Mapping[str, Declared]) -> list[Diagnostic]:
    """One diagnostic per strongly connected component with a cycle, printing one cycle.

    Tarjan's algorithm, iterative (a long chain must not hit Python's recursion limit), over
    names in sorted order so the cycle printed is the same on every run.
    """
    graph: dict[str, list[str]] = {
        t.name: sorted({d for d, _ in t.depends_on if d in declared and d != t.name})
        for t in topics
    }
    found: list[Diagnostic] = []
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        cycle = _a_cycle(min(component), graph, component)
        start = declared[cycle[0]]
        shown = " -> ".join([*cycle, cycle[0]])
        where = next((w for d, w in start.depends_on if d == cycle[1]), start.location)
        found.append(
            DEPENDENCY_CYCLE(
                f"depends_on forms a cycle: {shown}; topics cannot each be created before the "
                "other, so remove one of these dependencies",
                where,
                start.name,
            )
        )
    return found


def _strongly_connected(graph: Mapping[str, Sequence[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = graph[node]
            if child < len(successors):
                work.append((node, child + 1))
                succ = successors[child]
                if succ not in index:
                    work.append((succ, 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _a_cycle(start: str, graph: Mapping[str, Sequence[str]], within: set[str]) -> list[str]:
    """A shortest cycle through `start` inside one component (breadth-first, deterministic)."""
    previous: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        following: list[str] = []
        for node in frontier:
            for succ in graph[node]:
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return path[::-1]
                if succ in within and succ not in seen:
                    seen.add(succ)
                    previous[succ] = node
                    following.append(succ)
        frontier = following
    return [start]  # unreachable for a component of two or more
