"""DescribeCluster: the brokers, their racks and the active controller, in one round trip."""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, DescribeClusterResult

from reconciler.cluster.adapter.connect import Connection


@dataclass(frozen=True, slots=True)
class Broker:
    id: int
    host: str
    port: int
    rack: str | None


@dataclass(frozen=True, slots=True)
class ClusterDescription:
    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[Broker, ...]  # sorted by id


def describe(
    connection: Connection, admin: AdminClient, timeout: float | None = None
) -> ClusterDescription:
    """One DescribeCluster within `timeout` seconds (default: the connection's)."""
    timeout = connection.seconds if timeout is None else timeout
    try:
        result: DescribeClusterResult = admin.describe_cluster(request_timeout=timeout).result(
            timeout=timeout + 5
        )
    except KafkaException as exc:
        raise connection.error("describe", exc) from exc
    brokers = tuple(
        sorted(
            (Broker(n.id, n.host, n.port, n.rack or None) for n in result.nodes), key=lambda b: b.id
        )
    )
    controller = result.controller.id if result.controller is not None else None
    return ClusterDescription(result.cluster_id, controller, brokers)
