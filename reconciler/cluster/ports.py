"""What code outside the adapter asks of a Kafka cluster: small Protocols, one per need.

`reconciler.cluster.adapter.Cluster` implements every one of them against the brokers;
tests/fakes/cluster.py implements them in memory for fast tests. tests/contract/ has mypy prove
that both implement every port, and runs one suite of behaviours on both, on real brokers.
A function takes the narrowest port it uses, so its signature says which requests it may send:

    TopicReader     what the cluster shows: DescribeCluster, the whole state, some topics,
                    reassignments in progress
    TopicWriter     apply's mutations: create, alter configs, add partitions, delete,
                    start reassignments (one request per call, an answer per item)
    Throttles       replication throttles around a reassignment, and the brokers' rates
    LockStore       the per-cluster apply lock (a topic on the cluster) and its heartbeats
    AuditLog        the audit topic: made ready, appended, read back with offsets
    AccessCheck     what the principal may do (KIP-430)
    AclStore        the ACL bindings a spec's access: manages: read, granted, revoked
    QuotaStore      the client quotas a cluster's quotas: manages: read, altered
    ScramStore      the SCRAM credentials a cluster's users: manages, and their digests
    EvidenceReader  whether the topics a plan deletes are still in use

Composites name a caller that needs several: `AccessProbe` (apply's ACL check), `Executing`
(apply's level loop), `LeftoverReader` (the lock and throttles other applies left) and
`ApplyTarget` (one apply).
Every port is `Reachable`: it has a name and connection settings for messages and closes its
clients on leaving a `with`; readers of topics and the lock also reach the same cluster again
on fresh clients (`reconnected`).

The values are reconciler.cluster.protocol's and reconciler.cluster.state's (types only), so
importing this module loads no Kafka client.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reconciler.cluster.evidence import Evidence
    from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
    from reconciler.cluster.protocol.address import ClusterAddress
    from reconciler.cluster.protocol.answers import ClusterDescription, Record
    from reconciler.cluster.protocol.authorized import Authorized
    from reconciler.cluster.protocol.failures import Failure
    from reconciler.cluster.protocol.quotas import ClusterQuotas, QuotaAlteration
    from reconciler.cluster.protocol.requests import (
        ConfigUpdate,
        NewTopicRequest,
        PartitionsRequest,
        Replicas,
    )
    from reconciler.cluster.protocol.scram import ClusterScram, ScramAlteration, SecretDigest
    from reconciler.cluster.protocol.throttles import Moves, Throttle
    from reconciler.cluster.state import ClusterState, Reassignment, TopicState
    from reconciler.spec.quotas import QuotaEntity


class Reachable(Protocol):
    """One cluster: its name (in every message) and the address errors quote (bootstrap,
    principal); closing it closes its clients."""

    @property
    def name(self) -> str: ...

    @property
    def connection(self) -> ClusterAddress: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class TopicReader(Reachable, Protocol):
    # The same cluster on clients of its own: a reader after this one may be answered by
    # other brokers (apply waits until every broker it may meet shows a change)
    def reconnected(self) -> TopicReader: ...

    def __enter__(self) -> TopicReader: ...

    def describe(self) -> ClusterDescription:
        """Brokers, racks, controller and the cluster id."""
        ...

    def cluster_id(self) -> str | None: ...

    def read_state(self) -> ClusterState: ...

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        """These topics as shown now (absent ones left out); `configs` empty unless asked."""
        ...

    def reassignments(self, topics: Collection[str] | None = None) -> tuple[Reassignment, ...]: ...


class TopicWriter(Reachable, Protocol):
    """Each call one request; each item's answer None (done) or Kafka's Failure."""

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]: ...

    def alter_topic_configs(
        self, updates: Sequence[ConfigUpdate], *, validate_only: bool = False
    ) -> dict[str, Failure | None]: ...

    def create_partitions(
        self, requests: Sequence[PartitionsRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]: ...

    def delete_topics(self, names: Sequence[str]) -> dict[str, Failure | None]: ...

    def alter_reassignments(
        self, targets: Mapping[tuple[str, int], Replicas | None]
    ) -> dict[tuple[str, int], Failure | None]: ...  # None: cancel the move in progress


class Throttles(Reachable, Protocol):
    """Raise ClusterError on a refusal."""

    def set_throttle(
        self,
        rate: int,
        moves: Mapping[str, Moves],
        brokers: Iterable[int],
        record: Callable[[Throttle], None] = ...,
    ) -> Throttle: ...

    def clear_throttle(self, done: Throttle) -> None: ...

    def remove_throttle(
        self,
        rate: int,
        brokers: Iterable[int],
        added: Iterable[tuple[str, Iterable[str], Iterable[str]]],
    ) -> None: ...

    def broker_rates(self, brokers: Iterable[int]) -> dict[int, str]: ...


class LockStore(Reachable, Protocol):
    """The apply lock: at most one holder (its token); records are the holder's, then its
    heartbeats, with the broker's timestamps."""

    def reconnected(self) -> LockStore:
        """Clients of its own, for the heartbeat thread."""
        ...

    def __enter__(self) -> LockStore: ...

    def try_lock(self, holder: bytes, token: int | None = None) -> bool:
        """True: ours now, `holder` recorded; False: another token holds it."""
        ...

    def lock_token(self) -> int | None:
        """The holder's token (-1: an older reconciler's lock); None: nobody holds it."""
        ...

    def lock_holder(self, wait: float = 5.0) -> bytes | None: ...

    def lock_records(self, wait: float = 5.0) -> list[Record]: ...

    def lock_end(self) -> int: ...

    def append_lock(self, record: bytes, timeout: float | None = None) -> None: ...

    def release_lock(self, token: int | None = None) -> bool:
        """Gone, or another's (False); None releases whoever holds it."""
        ...


class AuditLog(Reachable, Protocol):
    """The audit topic: one partition, records in the order written, kept forever."""

    def ensure_audit(self) -> None: ...

    def write_audit(self, key: str, records: Sequence[bytes]) -> None: ...

    def audit_offsets(self) -> tuple[int, int]:
        """First and end offsets; (0, 0) before the topic exists."""
        ...

    def audit_records(self, start: int, end: int, wait: float = 10.0) -> list[Record]: ...

    def read_audit(self, wait: float = 10.0) -> list[bytes]: ...


class AclStore(Reachable, Protocol):
    """The cluster's ACL bindings (`reconciler help access`): read and changed only for a spec that
    declares access."""

    def acls(self) -> ClusterAcls: ...

    def create_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]: ...

    def delete_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]: ...


class QuotaStore(Reachable, Protocol):
    """The cluster's client quotas (`reconciler help access`): read and changed only for a
    cluster whose reconciler.yaml declares `quotas:`."""

    def quotas(self) -> ClusterQuotas: ...

    def alter_quotas(
        self, alterations: Sequence[QuotaAlteration]
    ) -> dict[QuotaEntity, Failure | None]: ...


class ScramStore(Reachable, Protocol):
    """The cluster's SCRAM credentials (`reconciler help access`): read and changed only for a
    cluster whose reconciler.yaml declares `users:`."""

    def scram(self) -> ClusterScram: ...

    def alter_scram(
        self, alterations: Sequence[ScramAlteration]
    ) -> dict[tuple[str, str], Failure | None]: ...

    def record_digests(self, records: Sequence[tuple[str, str, SecretDigest | None]]) -> None: ...


class AccessCheck(Reachable, Protocol):
    def authorized(self, topics: Collection[str]) -> Authorized: ...


class EvidenceReader(Reachable, Protocol):
    def evidence(self, partitions: Mapping[str, int], sample_ms: int = 0) -> Evidence:
        """Of these topics (name -> partition count), the log end offsets watched for
        `sample_ms`; never raises for what it cannot read."""
        ...


class AccessProbe(AccessCheck, TopicWriter, Protocol):
    """The ACLs Kafka reports, and Kafka's validate_only answer where they cannot tell."""


class Executing(TopicReader, TopicWriter, Throttles, Protocol):
    """Apply's level loop: send, reassign under a throttle, wait until the cluster shows it."""


class LeftoverReader(LockStore, AuditLog, Throttles, Protocol):
    """What other applies left: a held lock, throttles recorded in the audit topic."""


class ApplyTarget(
    Executing, LockStore, AuditLog, AccessCheck, AclStore, QuotaStore, ScramStore, Protocol
):
    """Everything one apply asks of its cluster (apply/run.py)."""

    def reconnected(self) -> ApplyTarget: ...

    def __enter__(self) -> ApplyTarget: ...
