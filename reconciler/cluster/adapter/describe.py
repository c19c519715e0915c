"""DescribeCluster: the brokers, their racks and the active controller, in one round trip.

The brokers are cluster/state.py's `BrokerState`, the one model of a broker, whether a cluster
is only described (`reconciler local status`) or its whole state read."""

from __future__ import annotations

import time
from concurrent.futures import wait

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, DescribeClusterResult

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.protocol.answers import ClusterDescription
from reconciler.cluster.state import BrokerState
from reconciler.errors import ClusterError

_SLICE = 0.25  # seconds between looks at whether the cluster refused our credentials


def describe(
    connection: Connection, admin: AdminClient, timeout: float | None = None
) -> ClusterDescription:
    """One DescribeCluster within `timeout` seconds (default: the connection's)."""
    timeout = connection.seconds if timeout is None else timeout
    with boundary.librdkafka(connection, "DescribeCluster"):
        future = admin.describe_cluster(request_timeout=timeout)
    deadline = time.monotonic() + timeout + 5
    while not wait([future], _SLICE).done:
        # Refused credentials are final: say so now rather than after the whole timeout
        if (refused := connection.unauthenticated()) is not None:
            raise ClusterError(refused.sentence()) from None
        if time.monotonic() >= deadline:
            raise connection.error("describe", TimeoutError("no answer")) from None
    try:
        with boundary.librdkafka(connection, "DescribeCluster"):
            result: DescribeClusterResult = future.result()
            brokers = tuple(
                sorted(
                    (BrokerState(n.id, n.host, n.port, n.rack or None) for n in result.nodes),
                    key=lambda b: b.id,
                )
            )
            controller = result.controller.id if result.controller is not None else None
            return ClusterDescription(result.cluster_id, controller, brokers)
    except KafkaException as exc:
        raise connection.error("describe", exc) from exc
