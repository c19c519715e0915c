"""An in-memory Kafka cluster behind every port of reconciler.cluster.ports, for fast tests.

`FakeKafka` is the cluster: brokers and racks, topics (partitions, replicas, configs), the
records of the lock and audit topics, reassignments in progress, the brokers' throttle rates.
`FakeCluster` is one client of it, as adapter.Cluster is of a real cluster: `reconnected()`
and a second FakeCluster on the same FakeKafka see the same state. Its answers (error codes,
KIP-464 defaults, the configs DescribeConfigs lists, KIP-430 rights) were read from Kafka
4.1.1; tests/contract/ runs the same behaviours against it and the real adapter, and where they
differ the fake is wrong. Not modelled: metadata that lags the controller (everything shows at
once), leaders other than the first replica, consumer groups, fenced brokers, config synonyms,
Kafka's internal topics.

Failures are injected per operation (`kafka.fail("create_topics", ClusterError(...))`: the
next call or a later one raises it, before or after the write is done) or per item
(`kafka.refuse("topic", Failure(...))`: every write of that topic is answered with it).
Reassignments finish as they are started unless `kafka.moving` is set (then they stay in
progress until `kafka.finish_moves()`).

`connect_commands_to(kafka, monkeypatch.setattr)` hands the plan and apply commands (run
in-process, through the CLI or reconciler.workflow) the fake wherever they connect.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
import uuid
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from reconciler import topic_ids
from reconciler.cluster.evidence import Evidence, TopicEvidence
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls, no_authorizer
from reconciler.cluster.protocol.address import Address
from reconciler.cluster.protocol.answers import ClusterDescription, Record
from reconciler.cluster.protocol.authorized import Authorized
from reconciler.cluster.protocol.failures import Denied, Failure, Resource
from reconciler.cluster.protocol.quotas import ClusterQuotas, QuotaAlteration
from reconciler.cluster.protocol.requests import (
    ConfigUpdate,
    NewTopicRequest,
    PartitionsRequest,
    Replicas,
)
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC, TOKEN_KEY
from reconciler.cluster.protocol.scram import (
    ClusterScram,
    ScramAlteration,
    ScramCredential,
    SecretDigest,
)
from reconciler.cluster.protocol.throttles import (
    FOLLOWER_REPLICAS,
    LEADER_REPLICAS,
    Moves,
    Throttle,
    merged,
    new_pairs,
    without,
)
from reconciler.cluster.state import (
    TOPIC_OVERRIDE,
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    TopicState,
    listed_config_keys,
)
from reconciler.errors import ClusterError
from reconciler.spec.catalog import CATALOG, ConfigType
from reconciler.spec.quotas import ClientQuota, QuotaEntity

# What Kafka without an authorizer reports as authorized (KIP-430), read from Kafka 4.1.1
CLUSTER_RIGHTS = frozenset(
    {"Alter", "AlterConfigs", "CLUSTER_ACTION", "Create", "Describe", "DescribeConfigs",
     "IDEMPOTENT_WRITE"}
)  # fmt: skip
TOPIC_RIGHTS = frozenset(
    {"Alter", "AlterConfigs", "Create", "Delete", "Describe", "DescribeConfigs", "Read", "Write"}
)
# The lock topic's settings but the holder's token (lock_topic.py)
_LOCK_CONFIG = {
    "cleanup.policy": "delete",
    "message.timestamp.type": "LogAppendTime",
    "min.insync.replicas": "1",
}


@dataclass
class FakeTopic:
    replicas: list[Replicas]  # per partition, in assignment order (the first leads)
    overrides: dict[str, str]
    topic_id: str = field(default_factory=lambda: topic_ids.encode(uuid.uuid4().bytes))
    records: list[Record] = field(default_factory=list)


@dataclass
class Fault:
    after: int  # calls of the operation to let through first
    error: ClusterError
    lost: bool  # a write carried out, its answer lost
    due: bool = False


@dataclass
class FakeKafka:
    """One cluster's state; by default a single broker as the tests' `kafka1` is set up."""

    brokers: tuple[tuple[int, str | None], ...] = ((1, None),)  # (id, rack)
    cluster_id: str = "fake-cluster-id-000000"
    # The broker's own values (`num.partitions` and `default.replication.factor` are what a
    # create without them gets, KIP-464)
    broker_configs: dict[str, str] = field(
        default_factory=lambda: {
            "default.replication.factor": "1",
            "log.retention.hours": "168",
            "min.insync.replicas": "1",
            "num.partitions": "3",
        }
    )
    # Topic configs inherited from a dynamic broker default rather than Kafka's built-in one
    dynamic_defaults: dict[str, str] = field(default_factory=lambda: {"min.insync.replicas": "1"})
    # Topic configs these brokers know beyond Apache Kafka's, with their defaults: a
    # Kafka-compatible service's own (`confluent.placement.constraints`), which no Apache broker
    # the suite starts has. DescribeConfigs lists them and writes accept them, as such a
    # service's brokers do.
    vendor_configs: dict[str, str] = field(default_factory=dict)
    topics: dict[str, FakeTopic] = field(default_factory=dict)
    moves: dict[tuple[str, int], Replicas] = field(default_factory=dict)  # in progress: target
    moving: bool = False  # reassignments stay in progress (until finish_moves)
    rates: dict[int, str] = field(default_factory=dict)  # brokers' own throttle rates
    # What the principal may do: None is all (no authorizer); else per topic, and the cluster
    rights: dict[str | None, frozenset[str]] | None = None
    failures: dict[str, list[Fault]] = field(default_factory=dict)
    refused: dict[str, Failure] = field(default_factory=dict)
    sent: list[str] = field(default_factory=list)  # each operation called, in order
    created: list[str] = field(default_factory=list)  # topics created (validate_only: not)
    # The ACL bindings (an authorizer on); brokers before Kafka 2.8 need IdempotentWrite
    acls: set[AclBinding] = field(default_factory=set)
    before_2_8: bool = False
    # Brokers without an authorizer (the session's `kafka1`): Kafka 4.1.1 answers DescribeAcls
    # with no binding, CreateAcls and DeleteAcls with SECURITY_DISABLED
    authorizer: bool = True
    # The client quotas: entity -> key -> value
    quotas: dict[QuotaEntity, dict[str, float]] = field(default_factory=dict)
    # SCRAM credentials: (user, mechanism) -> iterations; the digests on record
    scram: dict[tuple[str, str], int] = field(default_factory=dict)
    digests: dict[tuple[str, str], SecretDigest] = field(default_factory=dict)

    def add(self, *topics: TopicState) -> FakeKafka:
        """These topics as a cluster shows them: their replicas and overrides."""
        for state in topics:
            replicas = [p.replicas for p in state.partitions]
            self.topics[state.name] = FakeTopic(replicas, dict(state.overrides))
        return self

    def fail(
        self, operation: str, error: ClusterError, after: int = 0, *, lost: bool = False
    ) -> None:
        """A call of `operation` (a port's method name) raises `error`: the next one, or the
        one after `after` more (apply's pre-flight sends a validate_only request first).
        `lost`: a write is carried out first and then its answer is lost."""
        self.failures.setdefault(operation, []).append(Fault(after, error, lost))

    def refuse(self, topic: str, failure: Failure) -> None:
        """Every write of `topic` is answered with `failure` (validate_only ones too)."""
        self.refused[topic] = failure

    def finish_moves(self) -> None:
        for (topic, partition), target in self.moves.items():
            if topic in self.topics:
                self.topics[topic].replicas[partition] = target
        self.moves.clear()

    def take_lock_unrecorded(self, token: int) -> None:
        """The lock as a taker leaves it that died between creating the lock topic and
        recording who it is: the token, no record (on real brokers: adapter/lock_topic.py's
        try_lock alone)."""
        config = _LOCK_CONFIG | {TOKEN_KEY: str(token)}
        # On up to three brokers, as the adapter asks (a replica on each broker of kafka3:
        # tests/apply/test_lock_kafka.py), so the lock leaves the brokers' relative load, which
        # placement reads under the lock, as it was
        brokers = self._broker_ids()
        self.topics[LOCK_TOPIC] = FakeTopic([tuple(brokers[: min(3, len(brokers))])], config)

    def client(
        self,
        name: str = "fake",
        rights: dict[str | None, frozenset[str]] | None = None,
        principal: str = "User:ANONYMOUS",
    ) -> FakeCluster:
        """A client; `rights` (else the cluster's `rights`): what its principal may do."""
        return FakeCluster(self, name, rights, principal)

    def _called(self, operation: str) -> None:
        self.sent.append(operation)
        waiting = self.failures.get(operation)
        if not waiting:
            return
        fault = waiting[0]
        if fault.after > 0:
            fault.after -= 1
        elif fault.lost:
            fault.due = True  # raised by _answered, once the write is done
        else:
            raise waiting.pop(0).error

    def _answered(self, operation: str) -> None:
        waiting = self.failures.get(operation)
        if waiting and waiting[0].due:
            raise waiting.pop(0).error

    def _broker_ids(self) -> list[int]:
        return [b for b, _ in sorted(self.brokers)]


def _unknown() -> Failure:
    return Failure("UNKNOWN_TOPIC_OR_PART", "Broker: Unknown topic or partition")


class FakeCluster:
    """One client of a FakeKafka: every port of reconciler.cluster.ports."""

    def __init__(
        self,
        kafka: FakeKafka,
        name: str = "fake",
        rights: dict[str | None, frozenset[str]] | None = None,
        principal: str = "User:ANONYMOUS",
    ) -> None:
        self.kafka = kafka
        self.connection = Address(name, "fake-kafka:9092", principal)
        self.closed = False
        self._own_rights = rights

    @property
    def rights(self) -> dict[str | None, frozenset[str]] | None:
        """What this client's principal may do: its own rights, else the cluster's."""
        return self._own_rights if self._own_rights is not None else self.kafka.rights

    def _lacks_on_cluster(self, operation: str, why: str) -> Denied | None:
        """Kafka's refusal of `operation` on the cluster, by the rules of KIP-430's answer."""
        rights = self.rights
        if rights is None or Authorized(rights.get(None, frozenset()), {}).allows(operation, None):
            return None
        c = self.connection
        return Denied(c.name, c.bootstrap, c.principal, operation, Resource("cluster"), why)

    @property
    def name(self) -> str:
        return self.connection.name

    def __enter__(self) -> FakeCluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.closed = True

    def reconnected(self) -> FakeCluster:
        return FakeCluster(self.kafka, self.name, self._own_rights, self.connection.principal)

    # --- TopicReader -----------------------------------------------------------------------------

    def describe(self) -> ClusterDescription:
        self.kafka._called("describe")
        brokers = tuple(
            BrokerState(b, "127.0.0.1", 9092 + b, rack) for b, rack in sorted(self.kafka.brokers)
        )
        return ClusterDescription(self.kafka.cluster_id, self.kafka._broker_ids()[0], brokers)

    def cluster_id(self) -> str | None:
        return self.describe().cluster_id

    def read_state(self) -> ClusterState:
        description = self.describe()
        self.kafka._called("read_state")
        return ClusterState(
            cluster_id=description.cluster_id,
            controller_id=description.controller_id,
            brokers=tuple(BrokerState(b.id, b.host, b.port, b.rack) for b in description.brokers),
            topics=(topics := self._states(sorted(self.kafka.topics), configs=True)),
            broker_defaults=dict(sorted(self.kafka.broker_configs.items())),
            reassignments=self._reassignments(None),
            topic_config_keys=listed_config_keys(topics.values()),
        )

    def read_snapshot(self) -> ClusterState:
        """The state with every access part, as `reconciler snapshot` reads it (adapter
        Cluster.read_snapshot): the credentials without the digests."""
        scram = dataclasses.replace(self.scram(), digests=(), digests_read=False)
        return dataclasses.replace(
            self.read_state(), acls=self.acls(), quotas=self.quotas(), scram=scram
        )

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        self.kafka._called("topics")
        return self._states(names, configs)

    def reassignments(self, topics: Collection[str] | None = None) -> tuple[Reassignment, ...]:
        self.kafka._called("reassignments")
        return self._reassignments(topics)

    def _reassignments(self, topics: Collection[str] | None) -> tuple[Reassignment, ...]:
        denied = self._lacks_on_cluster("Describe", "list the partition reassignments")
        if denied is not None:  # ListPartitionReassignments needs Describe on the cluster
            raise ClusterError(denied.sentence())
        found = []
        for (topic, partition), target in sorted(self.kafka.moves.items()):
            if topics is not None and topic not in topics:
                continue
            current = self.kafka.topics[topic].replicas[partition]
            adding = tuple(b for b in target if b not in current)
            removing = tuple(b for b in current if b not in target)
            found.append(Reassignment(topic, partition, (*target, *removing), adding, removing))
        return tuple(found)

    def _states(self, names: Iterable[str], configs: bool) -> dict[str, TopicState]:
        return {
            name: self._state(name, self.kafka.topics[name], configs)
            for name in names
            if name in self.kafka.topics
        }

    def _state(self, name: str, topic: FakeTopic, configs: bool) -> TopicState:
        partitions = tuple(
            PartitionState(number, replicas[0] if replicas else None, replicas, replicas)
            for number, replicas in enumerate(topic.replicas)
        )
        return TopicState(
            name=name,
            internal=False,
            partitions=partitions,
            configs=self._configs(topic) if configs else (),
            topic_id=topic.topic_id,
        )

    def _configs(self, topic: FakeTopic) -> tuple[tuple[str, ConfigEntry], ...]:
        """Every topic config Kafka describes: the topic's own, else what it inherits."""
        entries: dict[str, ConfigEntry] = {}
        for key, defn in CATALOG.items():
            if defn.default is None:
                continue
            if key in self.kafka.dynamic_defaults:
                entries[key] = ConfigEntry(
                    self.kafka.dynamic_defaults[key], "DYNAMIC_DEFAULT_BROKER_CONFIG"
                )
            else:
                entries[key] = ConfigEntry(defn.default, "DEFAULT_CONFIG")
        for key, value in self.kafka.vendor_configs.items():
            entries[key] = ConfigEntry(value, "DEFAULT_CONFIG")
        for key, value in topic.overrides.items():
            entries[key] = ConfigEntry(value, TOPIC_OVERRIDE)
        return tuple(sorted(entries.items()))

    # --- TopicWriter -----------------------------------------------------------------------------

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        self.kafka._called("create_topics")
        answers: dict[str, Failure | None] = {}
        for request in topics:
            answers[request.name] = failure = self._create_refusal(request)
            if failure is None and not validate_only:
                self.kafka.created.append(request.name)
                self.kafka.topics[request.name] = FakeTopic(
                    self._placed(request), dict(request.config)
                )
        self.kafka._answered("create_topics")
        return answers

    def _create_refusal(self, request: NewTopicRequest) -> Failure | None:
        if request.name in self.kafka.refused:
            return self.kafka.refused[request.name]
        if request.name in self.kafka.topics:
            return Failure("TOPIC_ALREADY_EXISTS", f"Topic '{request.name}' already exists.")
        factor = self._factor(request)
        brokers = len(self.kafka.brokers)
        if request.assignments is None and factor > brokers:
            return Failure(
                "INVALID_REPLICATION_FACTOR",
                f"Unable to replicate the partition {factor} time(s): The target replication "
                f"factor of {factor} cannot be reached because only {brokers} broker(s) are "
                "registered.",
            )
        return _config_refusal(request.config, self.kafka.vendor_configs)

    def _factor(self, request: NewTopicRequest) -> int:
        if request.replication_factor is not None:
            return request.replication_factor
        return int(self.kafka.broker_configs["default.replication.factor"])

    def _placed(self, request: NewTopicRequest) -> list[Replicas]:
        if request.assignments is not None:
            return list(request.assignments)
        count = request.partitions or int(self.kafka.broker_configs["num.partitions"])
        return self._round_robin(0, count, self._factor(request))

    def _round_robin(self, first: int, count: int, factor: int) -> list[Replicas]:
        ids = self.kafka._broker_ids()
        return [
            tuple(ids[(p + r) % len(ids)] for r in range(factor))
            for p in range(first, first + count)
        ]

    def alter_topic_configs(
        self, updates: Sequence[ConfigUpdate], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        self.kafka._called("alter_topic_configs")
        answers: dict[str, Failure | None] = {}
        for update in updates:
            topic = self.kafka.topics.get(update.topic)
            failure = self.kafka.refused.get(update.topic)
            if failure is None and topic is None:
                failure = Failure(
                    "UNKNOWN_TOPIC_OR_PART", f"The topic '{update.topic}' does not exist."
                )
            failure = failure or _config_refusal(
                (*update.set, *((k, "") for k in update.delete)), self.kafka.vendor_configs
            )
            answers[update.topic] = failure
            if failure is None and topic is not None and not validate_only:
                topic.overrides.update(update.set)
                for key in update.delete:
                    topic.overrides.pop(key, None)
        self.kafka._answered("alter_topic_configs")
        return answers

    def create_partitions(
        self, requests: Sequence[PartitionsRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        self.kafka._called("create_partitions")
        answers: dict[str, Failure | None] = {}
        for request in requests:
            topic = self.kafka.topics.get(request.topic)
            failure = self.kafka.refused.get(request.topic)
            if failure is None and topic is None:
                failure = _unknown()
            elif failure is None and topic is not None and request.total <= len(topic.replicas):
                have = len(topic.replicas)
                failure = Failure(
                    "INVALID_PARTITIONS",
                    f"Topic already has {have} partition(s)."
                    if request.total == have
                    else f"The topic {request.topic} currently has {have} partition(s); "
                    f"{request.total} would not be an increase.",
                )
            answers[request.topic] = failure
            if failure is None and topic is not None and not validate_only:
                have, factor = len(topic.replicas), len(topic.replicas[0])
                added = request.assignments or self._round_robin(have, request.total - have, factor)
                topic.replicas.extend(added)
        self.kafka._answered("create_partitions")
        return answers

    def delete_topics(self, names: Sequence[str]) -> dict[str, Failure | None]:
        self.kafka._called("delete_topics")
        answers: dict[str, Failure | None] = {}
        for name in names:
            failure = self.kafka.refused.get(name)
            if failure is None and name not in self.kafka.topics:
                failure = _unknown()
            answers[name] = failure
            if failure is None:
                del self.kafka.topics[name]
                self.kafka.moves = {k: v for k, v in self.kafka.moves.items() if k[0] != name}
        self.kafka._answered("delete_topics")
        return answers

    def alter_reassignments(
        self, targets: Mapping[tuple[str, int], Replicas | None]
    ) -> dict[tuple[str, int], Failure | None]:
        if not targets:
            return {}
        self.kafka._called("alter_reassignments")
        answers: dict[tuple[str, int], Failure | None] = {}
        for (topic, partition), target in targets.items():
            shown = self.kafka.topics.get(topic)
            if shown is None or partition >= len(shown.replicas):
                answers[(topic, partition)] = Failure(
                    "UNKNOWN_TOPIC_OR_PARTITION",
                    "This request is for a topic or partition that does not exist on this broker.",
                )
                continue
            if target is None:  # a cancel, as Kafka answers it
                cancelled = self.kafka.moves.pop((topic, partition), None)
                answers[(topic, partition)] = (
                    None
                    if cancelled is not None
                    else Failure("NO_REASSIGNMENT_IN_PROGRESS", "No reassignment is in progress.")
                )
                continue
            answers[(topic, partition)] = None
            self.kafka.moves[(topic, partition)] = tuple(target)
        if not self.kafka.moving:
            self.kafka.finish_moves()
        self.kafka._answered("alter_reassignments")
        return answers

    # --- Throttles -------------------------------------------------------------------------------

    def set_throttle(
        self,
        rate: int,
        moves: Mapping[str, Moves],
        brokers: Iterable[int],
        record: Callable[[Throttle], None] = lambda _: None,
    ) -> Throttle:
        self.kafka._called("set_throttle")
        shown = {t: self.kafka.topics[t].overrides for t in sorted(moves) if t in self.kafka.topics}
        topics = tuple(
            (t, shown.get(t, {}).get(LEADER_REPLICAS), shown.get(t, {}).get(FOLLOWER_REPLICAS))
            for t in sorted(moves)
        )
        mine = [b for b in sorted(set(brokers)) if b not in self.kafka.rates]
        kept = tuple(
            (b, self.kafka.rates[b]) for b in sorted(set(brokers)) if b in self.kafka.rates
        )
        added = tuple(
            (t, new_pairs(leader, moves[t].sources), new_pairs(follower, moves[t].destinations))
            for t, leader, follower in topics
        )
        throttle = Throttle(rate, tuple(mine), kept, topics, added)
        record(throttle)
        for t, leader, follower in topics:
            own = self.kafka.topics[t].overrides
            own[LEADER_REPLICAS] = merged(leader, moves[t].sources)
            own[FOLLOWER_REPLICAS] = merged(follower, moves[t].destinations)
        for broker in mine:
            self.kafka.rates[broker] = str(rate)
        return throttle

    def clear_throttle(self, done: Throttle) -> None:
        self.remove_throttle(done.rate, done.brokers, done.added)

    def remove_throttle(
        self,
        rate: int,
        brokers: Iterable[int],
        added: Iterable[tuple[str, Iterable[str], Iterable[str]]],
    ) -> None:
        self.kafka._called("remove_throttle")
        for broker in sorted(set(brokers)):
            if self.kafka.rates.get(broker) == str(rate):
                del self.kafka.rates[broker]
        for topic, leader, follower in added:
            if topic not in self.kafka.topics:
                continue
            own = self.kafka.topics[topic].overrides
            for key, pairs in ((LEADER_REPLICAS, set(leader)), (FOLLOWER_REPLICAS, set(follower))):
                left = without(own.get(key), pairs)
                if left is None:
                    own.pop(key, None)
                else:
                    own[key] = left

    def broker_rates(self, brokers: Iterable[int]) -> dict[int, str]:
        self.kafka._called("broker_rates")
        return {b: self.kafka.rates[b] for b in sorted(set(brokers)) if b in self.kafka.rates}

    # --- LockStore -------------------------------------------------------------------------------

    def try_lock(self, holder: bytes, token: int | None = None) -> bool:
        self.kafka._called("try_lock")
        token = secrets.randbits(62) if token is None else token
        if LOCK_TOPIC in self.kafka.topics:
            return self.lock_token() == token
        self.kafka.take_lock_unrecorded(token)
        self._append(LOCK_TOPIC, holder)
        return True

    def lock_token(self) -> int | None:
        self.kafka._called("lock_token")
        topic = self.kafka.topics.get(LOCK_TOPIC)
        if topic is None:
            return None
        value = topic.overrides.get(TOKEN_KEY)
        return int(value) if value is not None and value.isdigit() else -1

    def lock_holder(self, wait: float = 5.0) -> bytes | None:
        found = self.lock_records(wait) if self.lock_token() is not None else []
        return found[0].value if found else None

    def lock_records(self, wait: float = 5.0) -> list[Record]:
        self.kafka._called("lock_records")
        return list(self._records(LOCK_TOPIC))

    def lock_end(self) -> int:
        self.kafka._called("lock_end")
        return len(self._records(LOCK_TOPIC))

    def append_lock(self, record: bytes, timeout: float | None = None) -> None:
        self.kafka._called("append_lock")
        self._append(LOCK_TOPIC, record)

    def release_lock(self, token: int | None = None) -> bool:
        self.kafka._called("release_lock")
        held = self.lock_token()
        if held is None:
            return True
        if token is not None and held != token:
            return False
        del self.kafka.topics[LOCK_TOPIC]
        return True

    # --- AuditLog --------------------------------------------------------------------------------

    def ensure_audit(self) -> None:
        self.kafka._called("ensure_audit")
        if AUDIT_TOPIC not in self.kafka.topics:
            factor = min(3, len(self.kafka.brokers))
            config = {"cleanup.policy": "delete", "retention.bytes": "-1", "retention.ms": "-1"}
            self.kafka.topics[AUDIT_TOPIC] = FakeTopic(self._round_robin(0, 1, factor), config)

    def write_audit(self, key: str, records: Sequence[bytes]) -> None:
        self.kafka._called("write_audit")
        for value in records:
            self._append(AUDIT_TOPIC, value)

    def audit_offsets(self) -> tuple[int, int]:
        self.kafka._called("audit_offsets")
        return 0, len(self._records(AUDIT_TOPIC))

    def audit_records(self, start: int, end: int, wait: float = 10.0) -> list[Record]:
        self.kafka._called("audit_records")
        return [r for r in self._records(AUDIT_TOPIC) if start <= r.offset < end]

    def read_audit(self, wait: float = 10.0) -> list[bytes]:
        self.kafka._called("read_audit")
        return [r.value for r in self._records(AUDIT_TOPIC)]

    def _records(self, name: str) -> list[Record]:
        topic = self.kafka.topics.get(name)
        return topic.records if topic is not None else []

    def _append(self, name: str, value: bytes) -> None:
        topic = self.kafka.topics.get(name)
        if topic is None:
            raise ClusterError(
                f"could not write to topic {name} of cluster '{self.name}': it does not exist"
            )
        topic.records.append(Record(len(topic.records), int(time.time() * 1000), value))

    # --- AclStore --------------------------------------------------------------------------------

    def acls(self) -> ClusterAcls:
        """Every binding, sorted, as one DescribeAcls answers; none, and no error, without an
        authorizer or to a principal without Describe on the cluster (as Kafka 4.1.1 answers:
        its read_state's reassignments read is what refuses that principal)."""
        self.kafka._called("acls")
        blind = not self.kafka.authorizer or self._lacks_on_cluster("Describe", "") is not None
        found = () if blind else tuple(sorted(self.kafka.acls))
        return ClusterAcls(found, self.kafka.before_2_8)

    def create_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]:
        """Kafka creates a binding that exists already without complaint; each binding of a
        principal without Alter on the cluster is refused."""
        self.kafka._called("create_acls")
        refused = self._acl_refusal("grant ACLs")
        if refused is None:
            self.kafka.acls.update(bindings)
        self.kafka._answered("create_acls")
        return dict.fromkeys(bindings, refused)

    def delete_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]:
        """An exact filter matching nothing deletes nothing, and is no error; each filter of a
        principal without Alter on the cluster is refused."""
        self.kafka._called("delete_acls")
        refused = self._acl_refusal("revoke ACLs")
        if refused is None:
            self.kafka.acls.difference_update(bindings)
        self.kafka._answered("delete_acls")
        return dict.fromkeys(bindings, refused)

    def _acl_refusal(self, why: str) -> Failure | None:
        """CreateAcls' and DeleteAcls' answer: SECURITY_DISABLED without an authorizer (the
        adapter's sentence), CLUSTER_AUTHORIZATION_FAILED without Alter on the cluster."""
        if not self.kafka.authorizer:
            raise no_authorizer(self.connection)
        denied = self._lacks_on_cluster("Alter", why)
        if denied is None:
            return None
        return Failure("CLUSTER_AUTHORIZATION_FAILED", denied.sentence())

    # --- QuotaStore ------------------------------------------------------------------------------

    def quotas(self) -> ClusterQuotas:
        """Every entity with a quota, as one DescribeClientQuotas answers."""
        self.kafka._called("quotas")
        held = [ClientQuota(e, tuple(sorted(v.items()))) for e, v in self.kafka.quotas.items() if v]
        return ClusterQuotas(tuple(sorted(held, key=lambda q: q.entity.order)))

    def alter_quotas(
        self, alterations: Sequence[QuotaAlteration]
    ) -> dict[QuotaEntity, Failure | None]:
        """Kafka removes a key that has no quota without complaint; an entity in `refused` (by
        its text) is refused whole."""
        self.kafka._called("alter_quotas")
        answers = {a.entity: self.kafka.refused.get(a.entity.text) for a in alterations}
        for a in alterations:
            values = self.kafka.quotas.setdefault(a.entity, {})
            if answers[a.entity] is not None:
                continue
            if a.value is None:
                values.pop(a.key, None)
            else:
                values[a.key] = a.value
        self.kafka._answered("alter_quotas")
        return answers

    # --- ScramStore ------------------------------------------------------------------------------

    def scram(self) -> ClusterScram:
        """Every credential and the digests on record, as DescribeUserScramCredentials and a
        read of `_reconciler_users` answer."""
        self.kafka._called("scram")
        held = sorted(ScramCredential(u, m, i) for (u, m), i in self.kafka.scram.items())
        return ClusterScram(tuple(held), tuple(v for _, v in sorted(self.kafka.digests.items())))

    def alter_scram(
        self, alterations: Sequence[ScramAlteration]
    ) -> dict[tuple[str, str], Failure | None]:
        """A user in `refused` (by name) is refused whole, as librdkafka answers per user."""
        self.kafka._called("alter_scram")
        answers = {a.key: self.kafka.refused.get(a.user) for a in alterations}
        for a in alterations:
            if answers[a.key] is None and a.secret is None:
                self.kafka.scram.pop(a.key, None)
            elif answers[a.key] is None:
                self.kafka.scram[a.key] = a.iterations
        self.kafka._answered("alter_scram")
        return answers

    def record_digests(self, records: Sequence[tuple[str, str, SecretDigest | None]]) -> None:
        for user, mechanism, digest in records:
            if digest is None:
                self.kafka.digests.pop((user, mechanism), None)
            else:
                self.kafka.digests[(user, mechanism)] = digest

    # --- AccessCheck, EvidenceReader -------------------------------------------------------------

    def authorized(self, topics: Collection[str]) -> Authorized:
        self.kafka._called("authorized")
        rights = self.rights
        shown = [t for t in sorted(topics) if t in self.kafka.topics]
        if rights is None:
            return Authorized(CLUSTER_RIGHTS, dict.fromkeys(shown, TOPIC_RIGHTS))
        return Authorized(rights.get(None, frozenset()), {t: rights.get(t) for t in shown})

    def evidence(self, partitions: Mapping[str, int], sample_ms: int = 0) -> Evidence:
        """No group reads any topic; a topic's newest record is the last one written to it;
        its end offsets count its records (partition 0 holds them all). Nothing is written
        while the fake samples, so it does not wait."""
        self.kafka._called("evidence")
        now = int(time.time() * 1000)
        found = {}
        for name, count in partitions.items():
            records = self._records(name)
            newest = records[-1].timestamp if records else None
            ends = (len(records), *(0 for _ in range(1, count))) if count else ()
            window = sample_ms if sample_ms > 0 else 0
            found[name] = TopicEvidence(
                name, now, newest_record=newest, end_offsets=ends, window_ms=window
            )
        return Evidence(now, found)


def _config_refusal(
    config: Iterable[tuple[str, str]], vendor_configs: Container[str]
) -> Failure | None:
    for key, value in config:
        if key not in CATALOG and key not in vendor_configs:
            return Failure("INVALID_CONFIG", f"Unknown topic config name: {key}")
        kind = CATALOG[key].type if key in CATALOG else None
        if value and kind in _WHOLE_NUMBERS and not value.lstrip("-").isdigit():
            return Failure(
                "INVALID_CONFIG",
                f"Invalid value {value} for configuration {key}: Not a number of type "
                f"{kind.name if kind else ''}",
            )
    return None


# Kafka parses these types' values as whole numbers and refuses a value that is not one
_WHOLE_NUMBERS = (ConfigType.INT, ConfigType.LONG)


class ConnectedFake(FakeCluster):
    """The fake as the commands' `connect` (reconciler/workflow/connection.py) hands out a
    cluster: with what the adapter's Cluster adds beyond the ports, which the fake's clusters
    need not do (no outages to ride, every create visible at once)."""

    def ride_outages(self, seconds: float, notice: Callable[[str], None]) -> ConnectedFake:
        return self

    def check_visible(self, creates: object) -> None:
        return None


def connect_commands_to(kafka: FakeKafka, patch: Callable[[object, str, object], None]) -> None:
    """Every connection the plan and apply commands open reaches `kafka` (`patch`: pytest's
    `monkeypatch.setattr`, so the change ends with the test)."""
    from reconciler.workflow import apply, connection, plan

    for module in (connection, plan, apply):
        patch(module, "connect", lambda cluster, *_, **__: ConnectedFake(kafka, cluster.name))


__all__ = ["ConnectedFake", "FakeCluster", "FakeKafka", "FakeTopic", "connect_commands_to"]
