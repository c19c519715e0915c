"""What apply asks a cluster to do: the requests' values, one per item of a request.

What a cluster *shows* is reconciler.cluster.state's model; Kafka's answer per item is
failures.py's `Failure` (None: done); the throttle's vocabulary is throttles.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

Replicas = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NewTopicRequest:
    name: str
    partitions: int | None  # None: the controller's num.partitions (KIP-464)
    replication_factor: int | None  # None: default.replication.factor (KIP-464)
    config: tuple[tuple[str, str], ...] = ()
    assignments: tuple[Replicas, ...] | None = None


@dataclass(frozen=True, slots=True)
class ConfigUpdate:
    topic: str
    set: tuple[tuple[str, str], ...] = ()
    delete: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PartitionsRequest:
    topic: str
    total: int  # absolute count (KIP-195)
    assignments: tuple[Replicas, ...] | None = None  # for the new partitions only
