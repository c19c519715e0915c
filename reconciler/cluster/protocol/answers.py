"""What Kafka answers beyond a cluster's state: a DescribeCluster, and records read back.

A topic's or a broker's state is cluster/state.py's model; a refused item is failures.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.cluster.state import BrokerState


@dataclass(frozen=True, slots=True)
class ClusterDescription:
    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[BrokerState, ...]  # sorted by id


@dataclass(frozen=True, slots=True)
class Record:
    offset: int
    timestamp: int  # milliseconds since the epoch (the broker's with LogAppendTime topics)
    value: bytes
