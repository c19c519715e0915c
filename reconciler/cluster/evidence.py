"""Evidence that a topic is still in use: what the cluster shows of its readers and writers.

Read only for the topics a plan deletes (cluster/adapter/evidence.py, a fixed number of
requests whatever the number of topics and groups) and judged by the planner
(planning/hazards.py `in_use`), as the cluster state is: these are frozen values, and planning
stays pure. `read_at` is the clock `policy.idle_before_delete` counts back from, so the
judgement never reads the time itself.

Writes are judged by what the brokers themselves show, never by producers' timestamps alone:
each partition's log end offset (`end_offsets`), and how many records were appended over a
window (`written`, `window_ms`): at plan time two reads some seconds apart (SAMPLE_MS), at
apply the offsets the saved plan recorded against those read right before the delete
(`since`). The newest record's timestamp is kept but producer stamped under CreateTime
(`producer_stamped`), so an old one proves nothing. Readers are the groups Kafka tracks;
readers without a group (assign()) are invisible to Kafka and the evidence says so.

Evidence that cannot be read is kept as its reason (`unreadable`): the gate fails closed, and
the reason names the permission or broker that was missing.
"""

from __future__ import annotations

import dataclasses
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
    # Each partition's log end offset, in partition order (-1: not read); (): not read at all
    # (a plan saved before offsets were recorded)
    end_offsets: tuple[int, ...] = ()
    # Records appended over `window_ms` before `read_at`: the plan's sample, or at apply the
    # time since the saved plan read its offsets (0, 0: not watched)
    written: int = 0
    window_ms: int = 0
    # message.timestamp.type is CreateTime: `newest_record` is what a producer stamped (a
    # replay, MirrorMaker, a Streams changelog carry old stamps), not when Kafka wrote it;
    # None: the type is unknown
    producer_stamped: bool | None = None

    @property
    def group_names(self) -> frozenset[str]:
        return frozenset(g.group for g in self.groups)


# How long plan watches the log end offsets of the topics it deletes: two reads this far apart.
# Long enough to see a producer writing every second or few (a backfill, a replay, a
# changelog), short enough for a plan in a pull request; a rarer writer is caught at apply,
# which compares the offsets the plan recorded with those read right before the delete.
SAMPLE_MS = 5000


def since(now: TopicEvidence, before: TopicEvidence) -> TopicEvidence:
    """`now` with the records appended since `before` (the saved plan's) as its writes: the
    window apply watches. Unchanged when either read no offsets or the partitions differ
    (the topic was re-created: its id already tells)."""
    if not now.end_offsets or len(now.end_offsets) != len(before.end_offsets):
        return now
    pairs = list(zip(before.end_offsets, now.end_offsets, strict=True))
    if any(b < 0 or n < 0 for b, n in pairs):
        return now
    moved = sum(abs(n - b) for b, n in pairs)
    return dataclasses.replace(now, written=moved, window_ms=max(0, now.read_at - before.read_at))


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
