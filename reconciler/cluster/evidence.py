"""Evidence that a topic is still in use: what the cluster shows of its readers and writers.

Read only for the topics a plan deletes (cluster/adapter/evidence.py, a fixed number of
requests whatever the number of topics and groups) and judged by the planner
(planning/hazards.py `in_use`), as the cluster state is: these are frozen values, and planning
stays pure. `read_at` is the clock `policy.idle_before_delete` counts back from, so the
judgement never reads the time itself.

Evidence that cannot be read is kept as its reason (`unreadable`): the gate fails closed, and
the reason names the permission or broker that was missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class GroupUse:
    """One consumer group's use of one topic."""

    group: str
    state: str  # Kafka's group state (Stable, Empty, ...), "unknown" when not described
    members: int | None  # live members; None when the group could not be described
    committed: bool  # it has committed offsets on a partition of the topic
    assigned: bool  # a live member is assigned a partition of the topic
    lag: int | None = None  # records behind the latest offsets, summed; None: nothing committed


@dataclass(frozen=True, slots=True)
class TopicEvidence:
    topic: str
    read_at: int  # ms since the epoch: when it was read
    groups: tuple[GroupUse, ...] = ()  # sorted by group name
    # The newest record's timestamp (ms since the epoch); None: the topic holds no record
    newest_record: int | None = None
    unreadable: tuple[str, ...] = ()  # why part of the evidence could not be read

    @property
    def group_names(self) -> frozenset[str]:
        return frozenset(g.group for g in self.groups)


@dataclass(frozen=True, slots=True)
class Evidence:
    """The evidence for some topics, read at one moment."""

    read_at: int  # ms since the epoch
    topics: Mapping[str, TopicEvidence] = field(default_factory=dict, hash=False, compare=True)

    def of(self, topic: str) -> TopicEvidence:
        """A topic's evidence; one that was not asked for has none to show (and is not read:
        say so, rather than call it idle)."""
        found = self.topics.get(topic)
        if found is not None:
            return found
        return TopicEvidence(topic, self.read_at, unreadable=("its evidence was not read",))
