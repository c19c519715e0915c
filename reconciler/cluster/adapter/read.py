"""Reading a cluster into reconciler.cluster.state values, in a fixed number of round trips.

The whole state (`Cluster.read_state`, put together by `state_of`), whatever the topic count:

    1. DescribeCluster                  brokers, racks, controller, cluster id
    2. Metadata (all topics)            the topic names
    3. Metadata (those names)           partitions, replicas, ISR, leaders, topic ids, internal flag
    4. DescribeConfigs (all topics)     every topic's configs with their sources, in TOPIC_CHUNKS
                                        requests
    5. DescribeConfigs (one broker)     the values topics inherit, KIP-464 defaults
    6. ListPartitionReassignments       in-progress KIP-455 reassignments (kafka-python)

plus each client's connection set-up (ApiVersions, a bootstrap Metadata). Steps 3 to 5 need
only the names and the broker ids, so they are sent at once (`topics_and_defaults`) and their
answers read as they come; step 6 runs beside all of them on kafka-python's own client (see
Cluster.read_state). Peer tools send one or more requests per topic;
tests/cluster/test_round_trips.py counts ours on a real broker. Apply's checks of some topics
(`read_topics`: steps 3 and, on request, 4) and of the reassignments in progress
(`read_reassignments`: step 6) give the same values.

Each step takes the timeout of one attempt (default: the connection's); `Cluster` retries the
attempts that failed for a reason that may pass (retry.py), with fresh clients.

Step 4 is the big one: 10,000 topics carry ~330,000 config entries and nearly as many
synonyms, and confluent-kafka turns each into a Python object under the GIL, in librdkafka's
background thread (most of the client's work). Split into TOPIC_CHUNKS requests sent at once,
the broker answers the next while the previous is converted, and only a few chunks' worth of
confluent-kafka's objects is alive at a time (a subprocess reading 10,000 topics peaked at
448 MiB with one request, at 130-160 MiB with eight). The cyclic garbage collector is paused
while steps 2 to 4 make their objects: it would walk the growing heap again and again (half of
the conversion's time, measured), and nothing they make is cyclic garbage.

bench/bench_read_state.py measures it against the brokers' own time.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import replace
from itertools import pairwise
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Generic, TypeVar

from confluent_kafka import KafkaError, KafkaException, Node, TopicCollection
from confluent_kafka.admin import (
    AdminClient,
    ConfigResource,
    ConfigSource,
    ResourceType,
    TopicDescription,
)
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry

from reconciler import gcpause, topic_ids
from reconciler.cluster.adapter import boundary, fenced_brokers
from reconciler.cluster.adapter.connect import Connection, bounded
from reconciler.cluster.adapter.failures import code_of, is_kafka_python_error
from reconciler.cluster.protocol.answers import ClusterDescription
from reconciler.cluster.state import (
    TOPIC_OVERRIDE,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    Synonym,
    TopicState,
    listed_config_keys,
)
from reconciler.errors import ClusterError

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

Configs = tuple[tuple[str, ConfigEntry], ...]

# ConfigSource by number: one dict lookup instead of an Enum call per config entry (440,000
# entries for 11,000 topics).
_SOURCES = {int(source.value): source.name for source in ConfigSource}
_OVERRIDE = int(ConfigSource.DYNAMIC_TOPIC_CONFIG.value)

# The topics' DescribeConfigs is split into this many requests (fewer for fewer topics): a
# constant up to TOPIC_CHUNKS * CHUNK_TOPICS topics (tests/cluster/test_round_trips.py counts
# them). Past that, one more request per CHUNK_TOPICS topics: librdkafka's answer costs ~36 KiB
# of Python objects per topic (every entry and synonym a ConfigEntry, made as the answer
# arrives, measured on Kafka 4.1.1), so a constant count of requests would make the memory of
# one request grow with the cluster: 445 MiB for one eighth of 100,000 topics. At most
# IN_FLIGHT requests are outstanding, the next sent as one is read: the answers alive at once,
# and so the memory, stay bounded (docs/cluster-state.md).
TOPIC_CHUNKS = 8
CHUNK_TOPICS = 2500
IN_FLIGHT = 3
# The topics' Metadata likewise: one request up to METADATA_TOPICS topics (~3.6 KiB of objects
# per one-partition topic in librdkafka's answer), one more per METADATA_TOPICS beyond.
METADATA_TOPICS = 10_000
METADATA_IN_FLIGHT = 2
Sent = TypeVar("Sent")

# What a librdkafka ConfigEntry's conversion depends on besides its key, read in C.
_FIELDS = attrgetter("value", "source", "is_sensitive")
_Fields = tuple[str | None, ConfigSource | int, bool]


@gcpause.paused()
def state_of(
    description: ClusterDescription,
    topics: dict[str, TopicState],
    defaults: dict[str, str],
    reassignments: tuple[Reassignment, ...],
    fenced: tuple[int, ...] | None = (),
) -> ClusterState:
    """The ClusterState of what the steps read."""
    return ClusterState(
        cluster_id=description.cluster_id,
        controller_id=description.controller_id,
        brokers=description.brokers,
        topics=dict(sorted(topics.items())),
        broker_defaults=defaults,
        reassignments=reassignments,
        fenced=fenced,
        topic_config_keys=listed_config_keys(topics.values()),
    )


@gcpause.paused()
def read_topics(
    connection: Connection,
    admin: AdminClient,
    names: Sequence[str],
    configs: bool,
    timeout: float | None = None,
) -> dict[str, TopicState]:
    """These topics as the brokers show them now: one Metadata request and, with `configs`,
    TOPIC_CHUNKS DescribeConfigs (fewer for fewer topics), all sent at once. A topic the brokers
    do not know (not created yet, or deleted) is left out; without `configs`, each topic's
    `configs` is empty (not read)."""
    seconds = connection.seconds if timeout is None else timeout
    described = _send_describe_topics(connection, admin, names, seconds)
    chunks: Pipeline[Chunk] | deque[Chunk] = (
        _send_topic_configs(connection, admin, names, seconds) if configs else deque()
    )
    # Read in the order sent: a topic both requests fail for reports its Metadata failure
    return topic_states(
        _described_topics(connection, described), _topic_configs(connection, chunks, {})
    )


@gcpause.paused()
def topics_and_defaults(
    connection: Connection,
    admin: AdminClient,
    names: Sequence[str],
    broker_ids: Sequence[int],
    attempt: int = 0,
    timeout: float | None = None,
) -> tuple[dict[str, TopicState], dict[str, str]]:
    """Steps 3 to 5 sent at once: these topics with their configs (as read_topics), and one
    broker's values (_send_broker_defaults). The broker's answer, small and sent first, is read
    first: the overrides' synonyms take each name's value and source from it (_after_own). Its
    failure is raised after the topics' own, as before, so a principal lacking an ACL on both
    hears about the topic first."""
    seconds = connection.seconds if timeout is None else timeout
    broker = _send_broker_defaults(connection, admin, broker_ids, attempt, seconds)
    described = _send_describe_topics(connection, admin, names, seconds)
    chunks = _send_topic_configs(connection, admin, names, seconds)
    failed: ClusterError | None = None
    try:
        answer = _broker_answer(connection, broker)
    except ClusterError as exc:
        answer, failed = {}, exc
    topics = topic_states(
        _described_topics(connection, described), _topic_configs(connection, chunks, answer)
    )
    if failed is not None:
        raise failed
    return topics, {key: e.value for key, e in sorted(answer.items()) if e.value is not None}


@gcpause.paused()
def topic_states(
    described: dict[str, TopicState], configs: dict[str, Configs]
) -> dict[str, TopicState]:
    """The TopicStates of what _described_topics and _topic_configs read: the described topics,
    each with its configs (empty if none were read)."""
    return {
        name: replace(state, configs=found) if (found := configs.get(name)) else state
        for name, state in described.items()
    }


def read_reassignments(
    connection: Connection,
    admin: KafkaAdminClient,
    topics: Collection[str] | None = None,
    timeout: float | None = None,
) -> tuple[Reassignment, ...]:
    """KIP-455 reassignments in progress (of `topics` only, if given), in one
    ListPartitionReassignments request: kafka-python, since librdkafka lacks the API."""
    seconds = connection.seconds if timeout is None else timeout
    millis = max(1, int(seconds * 1000))
    request = "ListPartitionReassignments"
    try:
        with boundary.kafka_python(connection, request, admin):
            listed = bounded(lambda: admin.list_partition_reassignments(timeout_ms=millis), seconds)
    except Exception as exc:
        if not is_kafka_python_error(exc):
            raise
        raise connection.error("list the partition reassignments of", exc) from exc
    with boundary.kafka_python(connection, request, admin):  # the answer's shape is the library's
        return tuple(
            Reassignment(
                topic=tp.topic,
                partition=tp.partition,
                replicas=tuple(moving["replicas"]),
                adding=tuple(moving["adding_replicas"]),
                removing=tuple(moving["removing_replicas"]),
            )
            for tp, moving in sorted(listed.items(), key=lambda item: item[0])
            if topics is None or tp.topic in topics
        )


def read_fenced_brokers(
    connection: Connection, admin: KafkaAdminClient, timeout: float | None = None
) -> tuple[int, ...] | None:
    """Brokers the cluster has registered but fenced (stopped, or not heartbeating), sorted;
    None when the brokers cannot show them (fenced_brokers.py): then the request is not sent.
    One DescribeCluster with IncludeFencedBrokers (KIP-1073, v2, Kafka 4.0+), which
    kafka-python sends and librdkafka cannot."""
    seconds = connection.seconds if timeout is None else timeout
    try:
        with boundary.kafka_python(connection, "ApiVersions", admin):
            # The raw answer, by number: kafka-python's api_versions() maps each key to its
            # ApiKey enum and raises ValueError on a key newer than the library (Kafka 4.4
            # answers key 93). Read when the client bootstrapped: no request of its own.
            answer = admin._manager.broker_version_data
            versions = answer.api_versions if answer is not None else None
        if not fenced_brokers.shown(versions):
            return None
        # In a rolling upgrade an older broker may answer with a version kafka-python cannot
        # decode: the boundary's sentence then, failing closed rather than guessing
        with boundary.kafka_python(connection, "DescribeCluster", admin):
            described = bounded(admin.describe_cluster, seconds)
    except Exception as exc:
        if not is_kafka_python_error(exc):
            raise
        raise connection.error("describe", exc) from exc
    with boundary.kafka_python(connection, "DescribeCluster", admin):  # the answer's shape
        brokers = described.get("brokers", []) if isinstance(described, dict) else []
        return tuple(sorted(b["broker_id"] for b in brokers if b.get("is_fenced")))


def describe_configs(
    connection: Connection,
    admin: AdminClient,
    kind: ResourceType,
    names: list[str],
    timeout: float | None = None,
) -> dict[str, dict[str, KafkaConfigEntry]]:
    """One DescribeConfigs request for these resources: name -> {key: librdkafka ConfigEntry}."""
    if not names:
        return {}
    sent = _send_describe_configs(
        connection, admin, kind, names, connection.seconds if timeout is None else timeout
    )
    return dict(_described(connection, sent))


def _send_describe_configs(
    connection: Connection,
    admin: AdminClient,
    kind: ResourceType,
    names: Sequence[str],
    seconds: float,
) -> list[tuple[ConfigResource, Future[dict[str, KafkaConfigEntry]]]]:
    """Send one DescribeConfigs request; its resources' futures, in the order of `names`."""
    with boundary.librdkafka(connection, "DescribeConfigs"):
        resources = [ConfigResource(kind, name) for name in names]
        return list(admin.describe_configs(resources, request_timeout=seconds).items())


def _described(
    connection: Connection, sent: list[tuple[ConfigResource, Future[dict[str, KafkaConfigEntry]]]]
) -> Iterator[tuple[str, dict[str, KafkaConfigEntry]]]:
    """Each resource's entries, in order, as its request is answered; resources the brokers do
    not know (deleted since they were listed) are left out, any other failure raised. `sent` is
    emptied as it goes, so each answer is garbage once the caller is done with it."""
    sent.reverse()
    while sent:
        resource, future = sent.pop()
        try:
            with boundary.librdkafka(connection, "DescribeConfigs"):
                entries = future.result()
        except KafkaException as exc:
            if code_of(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                continue  # deleted since it was listed: it is not part of the state
            raise connection.error(f"describe the configs of {resource.name} on", exc) from exc
        del future
        yield resource.name, entries


def source_of(entry: KafkaConfigEntry) -> int:
    """The entry's ConfigSource number: librdkafka gives the number, though typed as the Enum."""
    return _source_number(entry.source)


def _source_number(source: ConfigSource | int) -> int:
    return int(source.value) if isinstance(source, ConfigSource) else int(source)


@gcpause.paused()
def topic_names(
    connection: Connection, admin: AdminClient, timeout: float | None = None
) -> list[str]:
    """Every topic's name: one Metadata request."""
    try:
        with boundary.librdkafka(connection, "Metadata"):
            metadata = admin.list_topics(timeout=connection.seconds if timeout is None else timeout)
            return sorted(metadata.topics)
    except KafkaException as exc:
        raise connection.error("list the topics of", exc) from exc


Described = list[tuple[str, Future[TopicDescription]]]


def _send_describe_topics(
    connection: Connection, admin: AdminClient, names: Sequence[str], seconds: float
) -> Pipeline[Described]:
    """These topics' Metadata: one request (librdkafka sends it to the controller) per
    METADATA_TOPICS topics, METADATA_IN_FLIGHT of them sent now; each request's futures in
    reverse order of `names` (popped from the end)."""
    return Pipeline(
        names,
        [*range(0, len(names), METADATA_TOPICS), len(names)] if names else [],
        lambda part: _send_metadata(connection, admin, part, seconds),
        METADATA_IN_FLIGHT,
    )


def _send_metadata(
    connection: Connection, admin: AdminClient, names: Sequence[str], seconds: float
) -> Described:
    with boundary.librdkafka(connection, "Metadata"):
        futures = admin.describe_topics(TopicCollection(list(names)), request_timeout=seconds)
    sent = list(futures.items())
    del futures
    sent.reverse()
    return sent


def _described_topics(
    connection: Connection, requests: Pipeline[Described]
) -> dict[str, TopicState]:
    """The answered topics' partitions, ids and internal flags, as TopicStates whose `configs`
    are still empty (topic_states adds them); those the brokers do not know are left out. Each
    librdkafka TopicDescription (with its Node objects, ~3.6 KiB per single-partition topic) is
    dropped as soon as it is read."""
    described: dict[str, TopicState] = {}
    while requests:
        sent = requests.popleft()
        while sent:
            name, future = sent.pop()
            try:
                with boundary.librdkafka(connection, "Metadata"):
                    description: TopicDescription = future.result()
                    state = _topic_state(description, ())
            except KafkaException as exc:
                if code_of(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    continue  # not (or no longer) there: left out
                raise connection.error(f"describe topic '{name}' of", exc) from exc
            del future
            described[name] = state
    return described


@gcpause.paused()
def topic_configs(
    connection: Connection, admin: AdminClient, names: list[str], timeout: float | None
) -> dict[str, Configs]:
    """Every config entry of these topics, sorted by key (see _send_topic_configs and
    _topic_configs)."""
    seconds = connection.seconds if timeout is None else timeout
    return _topic_configs(connection, _send_topic_configs(connection, admin, names, seconds), {})


Chunk = list[tuple[ConfigResource, Future[dict[str, KafkaConfigEntry]]]]


class Pipeline(Generic[Sent]):
    """Requests over consecutive parts of `names` (split at `bounds`), `in_flight` of them sent
    at once and the next as one is taken, each with the whole timeout: the brokers must answer
    each within it, as they had to answer one request; converting answers takes no time from
    it. Bounds the answers alive at once, and so the memory, whatever the topic count."""

    def __init__(
        self,
        names: Sequence[str],
        bounds: list[int],
        send: Callable[[Sequence[str]], Sent],
        in_flight: int,
    ) -> None:
        self._send, self._in_flight = send, in_flight
        self._parts = deque(names[a:b] for a, b in pairwise(bounds))
        self._sent: deque[Sent] = deque()
        self._top_up()

    def _top_up(self) -> None:
        while self._parts and len(self._sent) < self._in_flight:
            self._sent.append(self._send(self._parts.popleft()))

    def __bool__(self) -> bool:
        return bool(self._sent or self._parts)

    def popleft(self) -> Sent:
        """The oldest request's answer (futures). The one taken before has been read by now:
        its place goes to the next request, sent before this one is read."""
        self._top_up()
        return self._sent.popleft()


def chunk_bounds(count: int) -> list[int]:
    """Where the topics' DescribeConfigs requests split `count` topics: TOPIC_CHUNKS parts (fewer
    for fewer topics), more when a part would exceed CHUNK_TOPICS."""
    parts = min(count, max(TOPIC_CHUNKS, -(-count // CHUNK_TOPICS)))
    return [count * i // parts for i in range(parts + 1)] if parts else []


def _send_topic_configs(
    connection: Connection, admin: AdminClient, names: Sequence[str], seconds: float
) -> Pipeline[Chunk]:
    """These topics' configs in DescribeConfigs requests split at chunk_bounds, IN_FLIGHT of
    them sent now."""
    return Pipeline(
        names,
        chunk_bounds(len(names)),
        lambda part: _send_describe_configs(connection, admin, ResourceType.TOPIC, part, seconds),
        IN_FLIGHT,
    )


def _topic_configs(
    connection: Connection,
    chunks: Pipeline[Chunk] | deque[Chunk],
    broker: dict[str, KafkaConfigEntry],
) -> dict[str, Configs]:
    """The chunks' answers, read in turn and dropped as they are read.

    Most entries repeat from topic to topic (every inherited default has the same value and
    source), so equal entries share one frozen ConfigEntry, and equal (key, entry) pairs one
    tuple, with the key interned: 10,000 topics carry ~330,000 entries but only a few hundred
    distinct ones.
    """
    configs = _Configs(broker)
    found: dict[str, Configs] = {}
    while chunks:
        for name, entries in _described(connection, chunks.popleft()):
            found[name] = configs.of(entries)
    return found


class _Configs:
    """A topic's librdkafka entries as its sorted `Configs`, sharing what repeats: each distinct
    (key, entry) pair and ConfigEntry is made once; the keys' order, which the broker gives the
    same for every topic, is sorted once per distinct order. The loops run in C (map,
    attrgetter, itemgetter), not one Python call per entry. An override's synonyms (what its
    removal falls back to) are read once per distinct override, when its pair is first made:
    the chain after the topic's own depends only on the brokers' settings."""

    def __init__(self, broker: dict[str, KafkaConfigEntry]) -> None:
        self._pairs = _Pairs(broker)
        self._orders: dict[tuple[str, ...], Callable[[list[tuple[str, ConfigEntry]]], Configs]] = {}

    def of(self, entries: dict[str, KafkaConfigEntry]) -> Configs:
        keys = tuple(entries)
        order = self._orders.get(keys)
        if order is None:
            order = self._orders[keys] = _sorting(keys)
        fields = zip(entries, map(_FIELDS, entries.values()), strict=True)
        self._pairs.answer = entries  # where a new override's synonyms are read
        return order(list(map(self._pairs.__getitem__, fields)))


def _sorting(keys: tuple[str, ...]) -> Callable[[list[tuple[str, ConfigEntry]]], Configs]:
    """What puts a list of pairs made in the order of `keys` into the order of the sorted keys."""
    positions = sorted(range(len(keys)), key=keys.__getitem__)
    if len(positions) > 1:
        return itemgetter(*positions)  # a tuple for 2+ positions
    return lambda pairs: tuple(pairs[i] for i in positions)


class _Pairs(dict[tuple[str, _Fields], tuple[str, ConfigEntry]]):
    """(key, (value, source, is_sensitive)) of a librdkafka entry -> its shared (key, entry).
    `answer`: the topic's entries being converted, whose overrides' synonyms a new pair reads."""

    def __init__(self, broker: dict[str, KafkaConfigEntry]) -> None:
        super().__init__()
        self._entries: dict[tuple[str | None, int, bool], ConfigEntry] = {}
        self._broker = broker
        self.answer: dict[str, KafkaConfigEntry] = {}

    def __missing__(self, keyed: tuple[str, _Fields]) -> tuple[str, ConfigEntry]:
        key, (value, source, sensitive) = keyed
        number = _source_number(source)
        if number == _OVERRIDE:  # an entry of its own: its synonyms belong to its key
            synonyms = _after_own(self.answer[key], self._broker)
            entry = ConfigEntry(value, TOPIC_OVERRIDE, sensitive, synonyms)
        else:
            shared = self._entries.get((value, number, sensitive))
            if shared is None:
                shared = ConfigEntry(value, _SOURCES.get(number, "UNKNOWN_CONFIG"), sensitive)
                self._entries[(value, number, sensitive)] = shared
            entry = shared
        pair = self[keyed] = (sys.intern(key), entry)
        return pair


def _after_own(entry: KafkaConfigEntry, broker: dict[str, KafkaConfigEntry]) -> tuple[Synonym, ...]:
    """The synonyms Kafka listed after the override's own (DYNAMIC_TOPIC_CONFIG) one, in
    Kafka's order. confluent-kafka keeps them in a dict by name, so of a name Kafka lists at two
    sources (server.properties, then the built-in default) only the last is left; the broker's
    own entry for that name, when read, has the one that wins (the first Kafka lists)."""
    listed: list[Synonym] = []
    for name, synonym in entry.synonyms.items():
        number = _source_number(synonym.source)
        if number == _OVERRIDE:
            continue
        value: str | None = synonym.value
        won = broker.get(name)
        if won is not None and won.value is not None:
            value, number = won.value, _source_number(won.source)
        listed.append(Synonym(name, value, _SOURCES.get(number, "UNKNOWN_CONFIG")))
    return tuple(listed)


def _send_broker_defaults(
    connection: Connection,
    admin: AdminClient,
    broker_ids: Sequence[int],
    attempt: int,
    seconds: float,
) -> tuple[str, Chunk]:
    """A DescribeConfigs of one broker: the lowest id's, or on a retry (`attempt` > 0) the
    next broker's, since that request goes to that very broker and it may be down.

    Kept apart from the topics' requests on purpose: librdkafka sends a request holding a
    BROKER resource to that very broker, topics included; measured on 11,000 topics, pinning
    the big request to one broker (here the KRaft controller) made it up to 15 times slower
    than letting librdkafka choose.
    """
    if not broker_ids:
        return "", []
    broker_id = defaults_broker(broker_ids, attempt)
    return broker_id, _send_describe_configs(
        connection, admin, ResourceType.BROKER, [broker_id], seconds
    )


def defaults_broker(broker_ids: Sequence[int], attempt: int) -> str:
    """The broker whose values the `attempt`-th try reads: the lowest id first, then the next."""
    return str(sorted(broker_ids)[attempt % len(broker_ids)])


def _broker_answer(connection: Connection, sent: tuple[str, Chunk]) -> dict[str, KafkaConfigEntry]:
    """The broker's entries, each with the value and source that win for that name."""
    broker_id, chunk = sent
    return dict(_described(connection, chunk)).get(broker_id, {})


def _topic_state(description: TopicDescription, configs: Configs) -> TopicState:
    partitions = tuple(
        sorted(
            (
                PartitionState(
                    partition=p.id,
                    leader=p.leader.id if p.leader is not None and p.leader.id >= 0 else None,
                    replicas=_ids(p.replicas),
                    isr=_ids(p.isr),
                )
                for p in description.partitions
            ),
            key=lambda p: p.partition,
        )
    )
    # confluent-kafka's Uuid prints the standard base64 alphabet; Kafka's form is URL-safe
    uuid = description.topic_id
    topic_id = None if uuid is None else topic_ids.canonical(str(uuid))
    return TopicState(
        name=description.name,
        internal=bool(description.is_internal),
        partitions=partitions,
        configs=configs,
        topic_id=topic_id,
    )


def _ids(nodes: Iterable[Node]) -> tuple[int, ...]:
    return tuple(int(node.id) for node in nodes)
