"""Kafka clients for tests that talk to a fixture cluster directly (not through reconciler's
adapter), and waiting for what brokers learn asynchronously.

`clients(cluster)` makes a test's admin, producer and consumer clients with the cluster's own
security settings (SASL/SCRAM, TLS, mTLS, OAuth, MSK IAM: `reconciler local`'s super user) and
closes them on the test's own thread when its block ends: consumers and producers by `close()`
(which destroys the librdkafka handle there), admin clients by dropping the helper's reference
and collecting cycles on that thread. librdkafka aborts the whole process when a client is
destroyed on one of its own threads, which happens when Python's cyclic collector frees a
client found in a cycle (a failed call's traceback frames hold it) while running on a thread
librdkafka made; tests/conftest.py keeps the collector on the test thread during Kafka tests,
and this keeps the clients' ends there too.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator, Mapping
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from reconciler.local.security import client_config
from reconciler.local.state import LocalCluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA

Settings = dict[str, str | int | float | bool]  # what confluent-kafka's clients take


def client_settings(
    cluster: LocalCluster | str, extra: Mapping[str, str] | None = None
) -> Settings:
    """librdkafka settings for a client of `cluster`: its bootstrap, its security mode's
    settings (none for a plain cluster or a bare bootstrap string), then `extra`."""
    if isinstance(cluster, str):
        settings: Settings = {"bootstrap.servers": cluster}
    else:
        settings = {"bootstrap.servers": cluster.bootstrap}
        settings.update(client_config(cluster.state_dir, cluster.security))
    settings.update(extra or {})
    return settings


class Clients:
    """The clients one test opens on one fixture cluster; `clients()` closes them all."""

    def __init__(self, cluster: LocalCluster | str) -> None:
        self.cluster = cluster
        self._admins: list[AdminClient] = []
        self._producers: list[Producer] = []
        self._consumers: list[Consumer] = []

    def admin(self, extra: Mapping[str, str] | None = None) -> AdminClient:
        self._admins.append(
            AdminClient(client_settings(self.cluster, extra), logger=QUIET_LIBRDKAFKA)
        )
        return self._admins[-1]

    def producer(self, extra: Mapping[str, str] | None = None) -> Producer:
        self._producers.append(
            Producer(client_settings(self.cluster, extra), logger=QUIET_LIBRDKAFKA)
        )
        return self._producers[-1]

    def consumer(self, group: str = "unused", extra: Mapping[str, str] | None = None) -> Consumer:
        settings = client_settings(self.cluster, extra) | {"group.id": group}
        self._consumers.append(Consumer(settings, logger=QUIET_LIBRDKAFKA))
        return self._consumers[-1]

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int = 1,
        config: Mapping[str, str] | None = None,
        assignment: list[list[int]] | None = None,
    ) -> Any:
        """Create `name` (or the replicas `assignment` places) and wait until every broker's
        metadata shows it with leaders (`wait_for_topic`); its TopicMetadata."""
        if assignment is not None:
            new = NewTopic(
                name, len(assignment), replica_assignment=assignment, config=dict(config or {})
            )
        else:
            new = NewTopic(name, partitions, replication_factor, config=dict(config or {}))
        admin = self._admins[0] if self._admins else self.admin()
        for future in admin.create_topics([new]).values():
            future.result()
        return wait_for_topic(admin, name, len(assignment) if assignment else partitions)

    def create_topics(
        self,
        partitions: Mapping[str, int],
        config: Mapping[str, str] | None = None,
        replication_factor: int = 1,
    ) -> None:
        """Create these topics (name: partitions) in one request and wait until every broker's
        metadata shows them all with leaders (`wait_for_topics`)."""
        admin = self._admins[0] if self._admins else self.admin()
        made = [
            NewTopic(name, count, replication_factor, config=dict(config or {}))
            for name, count in partitions.items()
        ]
        for future in admin.create_topics(made).values():
            future.result(30)
        wait_for_topics(admin, dict(partitions))

    def close(self) -> None:
        """Consumers and producers closed, every reference dropped, cycles collected: on the
        calling thread (the test's), never on one of librdkafka's."""
        for consumer in self._consumers:
            with contextlib.suppress(RuntimeError):  # closed by the test already
                consumer.close()
        for producer in self._producers:
            producer.flush(30)
            producer.close()
        self._consumers.clear()
        self._producers.clear()
        self._admins.clear()
        gc.collect()


@contextlib.contextmanager
def clients(cluster: LocalCluster | str) -> Iterator[Clients]:
    """`with clients(kafka1) as k: k.admin()...`: every client made is closed at the end."""
    made = Clients(cluster)
    try:
        yield made
    finally:
        made.close()


# The config of a topic a test writes records stamped in the past to: the broker's time-based
# retention (7 days by default, checked every 5 minutes) deletes segments, the active one after
# a roll, once their newest timestamp is older than retention.ms, so an old-stamped record
# could vanish mid-test. -1 keeps them whatever their stamps.
KEEPS_OLD_RECORDS = {"retention.ms": "-1"}


def wait_for_topic(
    admin: AdminClient, topic: str, partitions: int | None = None, timeout: float = 30.0
) -> Any:
    """librdkafka's TopicMetadata once the topic (and that many partitions) has leaders."""
    deadline = time.monotonic() + timeout
    agreeing, bootstrap = 0, ""
    while True:
        # Brokers learn new topics from the controller asynchronously: one broker knowing it is
        # not enough for the next reader, so fresh clients (whose requests go to brokers of
        # librdkafka's choosing) must agree several times in a row.
        reader = (
            admin
            if agreeing == 0
            else AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
        )
        cluster = reader.list_topics(topic, timeout=10)
        bootstrap = ",".join(f"{b.host}:{b.port}" for b in cluster.brokers.values())
        md = cluster.topics.get(topic)
        if (
            md is not None
            and md.error is None
            and md.partitions
            and (partitions is None or len(md.partitions) == partitions)
            and all(p.leader >= 0 for p in md.partitions.values())
        ):
            agreeing += 1
            if agreeing > 4:
                _until_leaders_answer(bootstrap, {topic: len(md.partitions)}, deadline)
                return md
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(
                f"topic {topic} did not appear in metadata within {timeout} s: {md}"
            )
        time.sleep(0.2)


def wait_for_config(
    admin: AdminClient, topic: str, key: str, value: str | None, timeout: float = 30.0
) -> None:
    """Until fresh readers agree that `topic`'s override of `key` is `value` (None: no
    override): brokers apply config changes from the controller asynchronously."""
    from confluent_kafka.admin import ConfigResource, ConfigSource

    deadline = time.monotonic() + timeout
    agreeing = 0
    brokers = admin.list_topics(timeout=10).brokers.values()
    bootstrap = ",".join(f"{b.host}:{b.port}" for b in brokers)
    while agreeing <= 4:
        reader = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
        entries = reader.describe_configs([resource])[resource].result(timeout=10)
        entry = entries.get(key)
        topic_own = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
        override = entry.value if entry is not None and entry.source == topic_own else None
        if override == value:
            agreeing += 1
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(f"{topic}: {key} stayed {override!r}, expected {value!r}")
        time.sleep(0.2)


def wait_for_topics(admin: AdminClient, partitions: dict[str, int], timeout: float = 60.0) -> None:
    """Until fresh readers agree, several times in a row, that every topic has that many
    partitions, each with a leader: one metadata request per poll, whatever the count.

    Each fresh reader is bootstrapped from one broker, the brokers in turn, so its request goes
    to that broker: every broker must have learned the topics from the controller (they do so
    asynchronously), not only those a client happened to ask. A command started right after
    (a faster start-up made this window real) may ask any of them."""
    deadline = time.monotonic() + timeout
    agreeing, servers = 0, list[str]()
    while agreeing <= 4:
        chosen = servers[agreeing % len(servers)] if servers else ""
        reader = (
            admin
            if not chosen
            else AdminClient({"bootstrap.servers": chosen}, logger=QUIET_LIBRDKAFKA)
        )
        cluster = reader.list_topics(timeout=10)
        servers = sorted(f"{b.host}:{b.port}" for b in cluster.brokers.values())
        missing = [
            name
            for name, count in partitions.items()
            if (md := cluster.topics.get(name)) is None
            or md.error is not None
            or len(md.partitions) != count
            or any(p.leader < 0 for p in md.partitions.values())
        ]
        if not missing:
            agreeing += 1
            continue
        agreeing = 0
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(missing)} topic(s) not in metadata, e.g. {missing[:3]}")
        time.sleep(0.2)
    _until_leaders_answer(",".join(servers), partitions, deadline)


def _until_leaders_answer(bootstrap: str, partitions: dict[str, int], deadline: float) -> None:
    """Until each partition's leader answers ListOffsets for it (one request per leader per
    poll). Metadata names a leader before that broker has made the partition's log and leads
    it: measured on one KRaft broker, 8 of 200 topics just created (and shown with a leader by
    every broker) were refused NOT_LEADER_OR_FOLLOWER, which a command counting its requests
    then saw as retries."""
    latest: OffsetSpec = OffsetSpec.latest()  # type: ignore[no-untyped-call]
    wanted = [TopicPartition(t, p) for t, count in partitions.items() for p in range(count)]
    while True:
        reader = AdminClient(
            {"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA
        )  # fresh metadata each poll
        answers = reader.list_offsets(dict.fromkeys(wanted, latest), request_timeout=10)
        refused = []
        for tp, future in answers.items():
            try:
                future.result()
            except Exception as exc:  # refused for now: asked again below
                refused.append(f"{tp.topic}[{tp.partition}]: {exc}")
        if not refused:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{len(refused)} partition(s) have no answering leader: {refused[:3]}"
            )
        time.sleep(0.2)


def record_count(bootstrap: str, topic: str) -> int:
    """How many records partition 0 of `topic` holds (its high watermark minus its low)."""
    with clients(bootstrap) as made:
        low, high = made.consumer().get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        return int(high - low)
