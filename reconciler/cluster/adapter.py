"""The one module that imports a Kafka client library.

confluent-kafka (librdkafka) serves everything it can; kafka-python >= 3 is used only for
KIP-455 partition reassignments, which librdkafka does not implement.
"""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from reconciler.errors import ClusterError


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


def admin_client(bootstrap: str, client: dict[str, str] | None = None) -> AdminClient:
    conf: dict[str, str | int | float | bool] = {
        "bootstrap.servers": bootstrap,
        "socket.connection.setup.timeout.ms": 5000,
    }
    conf.update(client or {})
    return AdminClient(conf)


def describe_cluster(
    bootstrap: str, client: dict[str, str] | None = None, timeout: float = 10.0
) -> ClusterDescription:
    """One DescribeCluster round trip: brokers with racks, and the active controller."""
    admin = admin_client(bootstrap, client)
    try:
        result = admin.describe_cluster(request_timeout=timeout).result(timeout=timeout + 5)
    except KafkaException as exc:
        raise ClusterError(
            f"could not describe the cluster at {bootstrap}: {exc.args[0].str()}. Is it "
            "running and reachable from here?"
        ) from exc
    brokers = tuple(
        sorted(
            (Broker(n.id, n.host, n.port, n.rack or None) for n in result.nodes), key=lambda b: b.id
        )
    )
    controller = result.controller.id if result.controller is not None else None
    return ClusterDescription(result.cluster_id, controller, brokers)
