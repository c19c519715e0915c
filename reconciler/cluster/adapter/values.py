"""What apply asks the adapter to send, and what Kafka answers per item: frozen values.

What a cluster *shows* is reconciler.cluster.state's model; these are the requests' own
vocabulary (the throttle's is in replication_throttle.py).
"""

from __future__ import annotations

from dataclasses import dataclass

Replicas = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Failure:
    """Why Kafka refused one item of a request."""

    code: str  # Kafka's error name (TOPIC_ALREADY_EXISTS, ...); TIMED_OUT for client timeouts
    detail: str  # Kafka's own message

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}" if self.detail else self.code


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
