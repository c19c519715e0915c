"""The requests a level sends, built from planned changes and cut only where Kafka demands it.

Kafka refuses one request of more than 10,000 partitions (MAX_PARTITIONS_PER_BATCH) and the
KRaft controller one operation writing more than 10,000 metadata records
(QuorumController.MAX_RECORDS_PER_USER_OP, POLICY_VIOLATION "Unable to perform excessively large
batch operation"; measured with bench/bench_apply.py). Pure: nothing here talks to Kafka.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from reconciler.apply.execute.verdict import pending_entries
from reconciler.cluster.protocol.requests import ConfigUpdate, NewTopicRequest, PartitionsRequest
from reconciler.cluster.state import ClusterState, TopicState
from reconciler.planning.changes import AlterTopicConfig, CreateTopic, IncreasePartitions

MAX_PARTITIONS_PER_REQUEST = 10_000
# A create writes a topic record, one per partition and one per config override.
MAX_RECORDS_PER_REQUEST = 10_000

T = TypeVar("T")


def batches(items: Sequence[T], weight: Callable[[T], int], limit: int) -> Iterator[list[T]]:
    """Consecutive runs of items whose weights sum to at most `limit` (an item alone may not)."""
    batch: list[T] = []
    total = 0
    for item in items:
        w = weight(item)
        if batch and total + w > limit:
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += w
    if batch:
        yield batch


def create_weight(change: CreateTopic, state: ClusterState) -> int:
    """Metadata records a create writes (a topic record, one per partition, one per config
    override), which also bounds its partitions; KIP-464 default partitions if unset."""
    if change.assignments:
        partitions = len(change.assignments)
    elif change.partitions is not None:
        partitions = change.partitions
    else:
        default = state.broker_defaults.get("num.partitions", "1")
        partitions = int(default) if default.isdigit() else 1
    return 1 + partitions + len(change.config)


def increase_weight(change: IncreasePartitions) -> int:
    """Partitions an increase adds."""
    return change.desired - change.current


def update_weight(update: ConfigUpdate) -> int:
    """Config records an update writes: one per key set or removed."""
    return len(update.set) + len(update.delete)


def new_topic(change: CreateTopic) -> NewTopicRequest:
    return NewTopicRequest(
        change.topic,
        change.partitions,
        change.replication_factor,
        change.config,
        change.assignments,
    )


def partitions_request(change: IncreasePartitions) -> PartitionsRequest:
    return PartitionsRequest(change.topic, change.desired, change.assignments)


def config_update(change: AlterTopicConfig, topic: TopicState | None) -> ConfigUpdate:
    """The keys the cluster does not show yet: only those are sent (status.pending_entries)."""
    entries = pending_entries(change, topic)
    return ConfigUpdate(
        change.topic,
        tuple((e.key, e.desired) for e in entries if e.desired is not None),
        tuple(e.key for e in entries if e.desired is None),
    )
