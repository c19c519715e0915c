"""The live state of a cluster as frozen values: what planning compares the specs against.

Read by `adapter.Cluster.read_state` in a fixed number of round trips, or loaded from a snapshot
file (`reconciler snapshot`), so a plan against a snapshot equals a plan against the live
cluster. This is the one model of what a cluster shows: apply's checks of single topics
(`Cluster.topics`, `Cluster.reassignments`) return the same values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter

from reconciler.cluster.protocol.acls import ClusterAcls
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.scram import ClusterScram

# DescribeConfigs sources (KIP-226 ConfigSource). Only DYNAMIC_TOPIC_CONFIG is a topic override;
# every other source is a value the topic inherits.
TOPIC_OVERRIDE = "DYNAMIC_TOPIC_CONFIG"

# The access parts of a state a snapshot records or says why it did not (`ClusterState.unread`)
ACLS, QUOTAS, USERS = "acls", "quotas", "users"
ACCESS_PARTS = (ACLS, QUOTAS, USERS)


@dataclass(frozen=True, slots=True)
class BrokerState:
    id: int
    host: str
    port: int
    rack: str | None


@dataclass(frozen=True, slots=True)
class PartitionState:
    partition: int
    leader: int | None  # None: no leader right now
    replicas: tuple[int, ...]  # in assignment order; the first is the preferred leader
    isr: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Synonym:
    """One entry of the chain DescribeConfigs lists for a config (include_synonyms): a name the
    value may come from (the topic key itself, or a broker setting such as
    log.retention.hours, in that setting's own unit), its value there, and that source."""

    name: str
    value: str | None
    source: str


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    value: str | None  # None for sensitive values Kafka does not return
    source: str  # e.g. DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, STATIC_BROKER_CONFIG
    sensitive: bool = False
    # Kept for overrides only (what a removal falls back to; an inherited entry's value is
    # already Kafka's answer): the synonyms Kafka listed after the topic's own, in its order.
    # Empty when Kafka listed none, or for a snapshot written before they were kept.
    synonyms: tuple[Synonym, ...] = ()


@dataclass(frozen=True, slots=True)
class TopicState:
    name: str
    internal: bool
    partitions: tuple[PartitionState, ...]  # sorted by partition id
    configs: tuple[
        tuple[str, ConfigEntry], ...
    ]  # sorted by key; every key DescribeConfigs returned
    topic_id: str | None = None

    @property
    def overrides(self) -> dict[str, str]:
        """The topic's own settings: what a spec's `config:` is compared with."""
        return {
            k: e.value
            for k, e in self.configs
            if e.source == TOPIC_OVERRIDE and e.value is not None
        }

    def entry(self, key: str) -> ConfigEntry | None:
        """What DescribeConfigs returned for key (None: not returned, or not read)."""
        for k, entry in self.configs:
            if k == key:
                return entry
        return None

    def inherited(self, key: str) -> str | None:
        """The value key falls back to when its override is removed (None: unknown)."""
        for k, entry in self.configs:
            if k == key:
                return None if entry.source == TOPIC_OVERRIDE else entry.value
        return None

    @property
    def replication_factor(self) -> int:
        return max((len(p.replicas) for p in self.partitions), default=0)

    @property
    def led(self) -> bool:
        """Every partition has a leader: clients can use the whole topic."""
        return all(p.leader is not None for p in self.partitions)


@dataclass(frozen=True, slots=True)
class Reassignment:
    """A KIP-455 partition reassignment in progress."""

    topic: str
    partition: int
    replicas: tuple[int, ...]  # every replica while it moves: the target plus `removing`
    adding: tuple[int, ...]
    removing: tuple[int, ...]

    @property
    def target(self) -> tuple[int, ...]:
        """The replicas the partition has once the reassignment completes."""
        return tuple(b for b in self.replicas if b not in self.removing)


@dataclass(frozen=True, slots=True)
class LockShown:
    """The apply lock as a reader finds it: another apply runs (or died holding it)."""

    holder: str  # who, where, which process, as its record says; "unknown" when unrecorded
    since: str | None  # ISO 8601, UTC, as the holder recorded it


@dataclass(frozen=True, slots=True)
class LeftoverThrottle:
    """A replication throttle an apply recorded in its audit record and never removed, as far
    as the cluster still shows it."""

    apply_id: str  # the apply that set it
    who: str | None  # who ran that apply
    rate: int  # bytes/s, as recorded
    brokers: tuple[int, ...]  # brokers still showing the recorded rate
    topics: tuple[str, ...]  # topics still listing replicas it throttled


@dataclass(frozen=True, slots=True)
class ClusterState:
    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[BrokerState, ...]  # sorted by id
    topics: dict[str, TopicState] = field(default_factory=dict, hash=False)
    # Broker-level defaults topics inherit and creates use when partitions/RF are omitted
    # (KIP-464): num.partitions, default.replication.factor, min.insync.replicas, ...
    broker_defaults: dict[str, str] = field(default_factory=dict, hash=False)
    reassignments: tuple[Reassignment, ...] = ()
    # What other applies left: the lock while one holds it, throttles one recorded and left
    # (apply/leftovers.py reads them; snapshots do not keep them)
    lock: LockShown | None = None
    leftover_throttles: tuple[LeftoverThrottle, ...] = ()
    # Brokers the cluster has registered but fenced (KIP-1073): down, so not in `brokers`.
    # None: the cluster cannot show them (ZooKeeper mode, or KRaft before Kafka 4.0), so a
    # down broker no replica names is invisible (`down_unseen`)
    fenced: tuple[int, ...] | None = ()
    # The topic configs the cluster knows, by its own answer: the keys every topic's
    # DescribeConfigs listed (`listed_config_keys`). None: no topic's configs were read (a
    # cluster without topics, a state or snapshot without them), so nobody can tell.
    # planning/cluster_configs.py decides a spec's keys from it.
    topic_config_keys: frozenset[str] | None = None
    # The cluster's ACL bindings (DescribeAcls), read live only when a spec declares access
    # (`reconciler help access`), always by `reconciler snapshot`; None: not read
    acls: ClusterAcls | None = None
    # The client quotas (DescribeClientQuotas), read live only when reconciler.yaml declares
    # the cluster's `quotas:`, always by `reconciler snapshot`; None: not read
    quotas: ClusterQuotas | None = None
    # The SCRAM credentials and the digests of the secrets reconciler set, read live only when
    # reconciler.yaml declares the cluster's `users:`; a snapshot keeps the credentials, never
    # the digests (`ClusterScram.digests_read`); None: not read
    scram: ClusterScram | None = None
    # Why a part above is None in a snapshot (`ACCESS_PARTS` -> a phrase: the cluster could not
    # answer, or the file predates the part), for plan's P137 warning
    unread: tuple[tuple[str, str], ...] = ()

    @property
    def down_brokers(self) -> tuple[int, ...]:
        """Brokers the cluster does not list but knows, sorted: registered and fenced (Kafka
        says so), or named by existing replicas. Down (stopped, fenced, unreachable), not gone,
        so their data is still theirs. Empty when the state lists no brokers at all (a partial
        snapshot cannot tell)."""
        if not self.brokers:
            return ()
        listed = {b.id for b in self.brokers}
        named = {b for t in self.topics.values() for p in t.partitions for b in p.replicas}
        return tuple(sorted((named | set(self.fenced or ())) - listed))

    @property
    def down_unseen(self) -> bool:
        """True when a stopped broker that holds no replica would not show: the cluster lists
        only the brokers that are up and cannot show fenced ones (Kafka before 4.0)."""
        return self.fenced is None and bool(self.brokers)


def listed_config_keys(topics: Iterable[TopicState]) -> frozenset[str] | None:
    """The config keys every topic whose configs were read lists: DescribeConfigs answers a
    topic with every topic config its broker knows, so these are the keys all the brokers that
    answered know (the intersection, in case a rolling upgrade has brokers of two versions
    answering). None when no topic's configs were read."""
    # Topics list the same keys, so the distinct key lists are few: gathered in C (map,
    # itemgetter), then intersected once each
    distinct = {tuple(map(_KEY, t.configs)) for t in topics if t.configs}
    if not distinct:
        return None
    return frozenset.intersection(*map(frozenset, distinct))


_KEY = itemgetter(0)
