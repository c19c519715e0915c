"""`Cluster`: one Kafka cluster, the clients that talk to it, and everything reconciler asks of it.

The one object outside code holds to reach a cluster. It owns its clients (a librdkafka admin
client, made on first use; a kafka-python admin client for KIP-455 reassignments, made on first
use and closed with the Cluster) and hands out only frozen values: reconciler.cluster.state's
model of what the cluster shows, the request and answer values of values.py, the throttle's.
Each method sends the requests its module's docstring lists; none grows with the topic count.

    with Cluster(connection) as cluster:
        state = cluster.read_state()
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from types import TracebackType

from confluent_kafka.admin import AdminClient
from kafka.admin import KafkaAdminClient

from reconciler.cluster.adapter import audit, lock, read, throttle, write
from reconciler.cluster.adapter.connect import Connection, kafka_python_admin, librdkafka_admin
from reconciler.cluster.adapter.describe import ClusterDescription, describe
from reconciler.cluster.adapter.throttle import Moves, Throttle
from reconciler.cluster.adapter.values import (
    ConfigUpdate,
    Failure,
    NewTopicRequest,
    PartitionsRequest,
    Replicas,
)
from reconciler.cluster.state import ClusterState, Reassignment, TopicState


class Cluster:
    """One cluster and its clients; a context manager that closes them."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._librdkafka: AdminClient | None = None
        self._kafka_python: KafkaAdminClient | None = None

    @property
    def name(self) -> str:
        return self.connection.name

    def __enter__(self) -> Cluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the kafka-python client; librdkafka's closes when it is garbage."""
        if self._kafka_python is not None:
            self._kafka_python.close()
            self._kafka_python = None
        self._librdkafka = None

    def reconnected(self) -> Cluster:
        """The same cluster with clients of its own: new connections, so librdkafka may pick
        other brokers to ask (what a reader after this one would see)."""
        return Cluster(self.connection)

    def _admin(self) -> AdminClient:
        if self._librdkafka is None:
            self._librdkafka = librdkafka_admin(self.connection)
        return self._librdkafka

    def _reassigner(self) -> KafkaAdminClient:
        if self._kafka_python is None:
            self._kafka_python = kafka_python_admin(self.connection)
        return self._kafka_python

    # --- reading: reconciler.cluster.state values (read.py) --------------------------------------

    def describe(self) -> ClusterDescription:
        """Brokers, racks and controller: one DescribeCluster."""
        return describe(self.connection, self._admin())

    def read_state(self) -> ClusterState:
        """The whole state, in a fixed number of round trips."""
        return read.read_state(self.connection, self._admin(), self.reassignments)

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        """These topics as the brokers show them now (absent ones left out); their configs only
        with `configs` (one more request), else each topic's `configs` is empty."""
        if not names:
            return {}
        return read.read_topics(self.connection, self._admin(), names, configs)

    def reassignments(self, topics: Collection[str] | None = None) -> tuple[Reassignment, ...]:
        """KIP-455 reassignments in progress (on `topics` only, if given)."""
        return read.read_reassignments(self.connection, self._reassigner(), topics)

    # --- mutations: one request per call, an answer per item (write.py) --------------------------

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        return write.create_topics(self.connection, self._admin(), topics, validate_only)

    def alter_topic_configs(self, updates: Sequence[ConfigUpdate]) -> dict[str, Failure | None]:
        return write.alter_topic_configs(self.connection, self._admin(), updates)

    def create_partitions(
        self, requests: Sequence[PartitionsRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        return write.create_partitions(self.connection, self._admin(), requests, validate_only)

    def delete_topics(self, names: Sequence[str]) -> dict[str, Failure | None]:
        return write.delete_topics(self.connection, self._admin(), names)

    def alter_reassignments(
        self, targets: Mapping[tuple[str, int], Replicas]
    ) -> dict[tuple[str, int], Failure | None]:
        """Start KIP-455 reassignments: (topic, partition) -> the target replicas."""
        if not targets:
            return {}
        return write.alter_reassignments(self.connection, self._reassigner(), targets)

    def set_throttle(
        self, rate: int, moves: Mapping[str, Moves], brokers: Iterable[int]
    ) -> Throttle:
        """Throttle these moves' replication (throttle.py); raises ClusterError on a refusal."""
        return throttle.set_throttle(self.connection, self._admin(), rate, moves, brokers)

    def clear_throttle(self, done: Throttle) -> None:
        """Put back what set_throttle replaced; raises ClusterError on a refusal."""
        throttle.clear_throttle(self.connection, self._admin(), done)

    # --- the apply lock and the audit log (lock.py, audit.py) ------------------------------------

    def try_lock(self, holder: bytes) -> bool:
        """Take the apply lock, recording `holder`; False if someone else holds it."""
        return lock.try_lock(self.connection, self._admin(), holder)

    def lock_holder(self, wait: float = 5.0) -> bytes | None:
        """The lock holder's record, or None if there is none (yet)."""
        return lock.lock_holder(self.connection, wait)

    def release_lock(self) -> None:
        lock.release_lock(self.connection, self._admin())

    def write_audit(self, key: str, record: bytes) -> None:
        audit.write_audit(self.connection, self._admin(), key, record)

    def read_audit(self, wait: float = 10.0) -> list[bytes]:
        return audit.read_audit(self.connection, wait)


def read_state(connection: Connection) -> ClusterState:
    """The cluster's whole state, read with clients of its own (closed again)."""
    with Cluster(connection) as cluster:
        return cluster.read_state()


def describe_cluster(
    bootstrap: str,
    client: dict[str, str] | None = None,
    timeout: float = 10.0,
    name: str = "local",
) -> ClusterDescription:
    """One DescribeCluster round trip against the servers in `bootstrap`."""
    with Cluster(Connection(name, bootstrap, tuple((client or {}).items()), timeout)) as cluster:
        return cluster.describe()
