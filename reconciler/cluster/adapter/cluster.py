"""`Cluster`: one Kafka cluster, the clients that talk to it, and everything reconciler asks of it.

The one object outside code holds to reach a cluster. It owns its clients (a librdkafka admin
client, made on first use; a kafka-python admin client for KIP-455 reassignments, made on first
use and closed with the Cluster) and hands out only frozen values: reconciler.cluster.state's
model of what the cluster shows, reconciler.cluster.protocol's request and answer values, the
throttle's.
Each method sends the requests its module's docstring lists; none grows with the topic count.
A read that fails for a reason that may pass is retried within the request timeout by fresh
clients that avoid the brokers that do not answer, and a read that still fails names them
(retry.py, probe.py); mutations are sent once.

    with Cluster(connection) as cluster:
        state = cluster.read_state()
"""

from __future__ import annotations

import dataclasses
import secrets
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from confluent_kafka.admin import AdminClient

from reconciler import gcpause
from reconciler.cluster.adapter import (
    acls,
    audit_topic,
    authorization,
    boundary,
    evidence,
    lock_topic,
    probe,
    quotas,
    read,
    replication_throttle,
    retry,
    scram,
    write,
)
from reconciler.cluster.adapter.cluster_id import Identity
from reconciler.cluster.adapter.connect import (
    HINT,
    Aside,
    Connection,
    kafka_python_admin,
    librdkafka_admin,
    pin_controller,
    steer_controller,
)
from reconciler.cluster.adapter.describe import describe
from reconciler.cluster.evidence import Evidence
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls, no_authorizer
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
from reconciler.cluster.state import ACLS, QUOTAS, USERS, ClusterState, Reassignment, TopicState
from reconciler.errors import CannotAnswer, ClusterError, Refused
from reconciler.spec.quotas import QuotaEntity

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

T = TypeVar("T")


class Cluster:
    """One cluster and its clients; a context manager that closes them."""

    def __init__(
        self, connection: Connection, identity: Identity | None = None, *, beside: bool = False
    ) -> None:
        self.connection = connection
        # The id the brokers reported (cluster_id.py): with a pinned connection, asked before any
        # other request; `beside`, a Cluster reading beside another waits for the other's check
        self.identity = identity if identity is not None else Identity()
        self._beside = beside
        self._librdkafka: AdminClient | None = None
        self._kafka_python: KafkaAdminClient | None = None
        self._known: list[probe.Address] = []  # the brokers DescribeCluster last showed
        self._silent: list[tuple[probe.Address, str]] | None = None  # probed in a failed read
        # Reads ride out an outage this long beyond the request timeout (apply's, said through
        # `notice`); 0: a read fails once the request timeout is spent (plan, drift)
        self.outage = 0.0
        self.notice: Callable[[str], None] = lambda _: None

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
        self.close(in_flight=exc is not None)

    def close(self, in_flight: bool = False) -> None:
        """Close the kafka-python client; librdkafka's closes when it is freed, here: if a
        reference cycle still holds it, it is collected on this thread (reconciler.gcpause).
        `in_flight`: an exception propagates, whose frames may still hold it (then later)."""
        if self._kafka_python is not None:
            with boundary.kafka_python(self.connection, "closing its client"):
                self._kafka_python.close()
            self._kafka_python = None
        client = None if self._librdkafka is None else weakref.ref(self._librdkafka)
        self._librdkafka = None
        if (client is not None and client() is not None) or gcpause.pending():
            gcpause.collect_stragglers(client, in_flight=in_flight)

    def reconnected(self) -> Cluster:
        """The same cluster with clients of its own: new connections, so librdkafka may pick
        other brokers to ask (what a reader after this one would see)."""
        fresh = Cluster(self.connection, self.identity)
        fresh.ride_outages(self.outage, self.notice)
        return fresh

    def ride_outages(self, seconds: float, notice: Callable[[str], None]) -> Cluster:
        """Have reads retry through an outage of the controller or a broker for up to `seconds`
        beyond the request timeout, saying so through `notice` (apply: on stderr)."""
        self.outage, self.notice = seconds, notice
        return self

    def _pinned(self) -> None:
        """Before any request but DescribeCluster: a pinned connection's id is checked first
        (one DescribeCluster per Cluster; WrongCluster, and nothing sent, if it differs)."""
        if self.connection.cluster_id is None:
            return
        if not self.identity.settled and not self._beside:
            self.describe()
        self.identity.wait(2 * self.connection.seconds + 5)

    def _admin(self) -> AdminClient:
        self._pinned()
        return self._client()

    def _client(self) -> AdminClient:
        if self._librdkafka is None:
            self._librdkafka = librdkafka_admin(self.connection)
        return self._librdkafka

    def _reassigner(self, timeout: float | None = None, attempt: int = 0) -> KafkaAdminClient:
        """kafka-python's client, bootstrapped from one server: the `attempt`-th of the brokers
        that answer (as far as known: DescribeCluster's, less those a probe found silent), else
        of the bootstrap servers. On its own it picks one at random and waits the whole timeout
        on a frozen one; taking them in turn, a retry never picks the same again."""
        if self._kafka_python is None:
            live = self._answering()
            servers = [f"{a.host}:{a.port}" for a in live]
            servers = servers or [s.strip() for s in self.connection.bootstrap.split(",")]
            chosen = [servers[attempt % len(servers)]]
            self._kafka_python = kafka_python_admin(self.connection, timeout, chosen)
            if self._silent and live and live[0].id is not None:
                pin_controller(self._kafka_python, live[0].id)
        return self._kafka_python

    # --- reading: reconciler.cluster.state values (read.py) --------------------------------------

    def _reading(self, attempt: Callable[[int, float], T]) -> T:
        """One read, retried with fresh clients within the request timeout (retry.py), and
        through an outage for up to `outage` more seconds (said once, and when it ends)."""
        deadline = time.monotonic() + self.outage
        waited = False
        while True:
            try:
                found = self._read_once(attempt)
            except ClusterError as exc:
                if not retry.retriable(exc) or time.monotonic() >= deadline:
                    raise
                if not waited:
                    self.notice(
                        f"the cluster does not answer a read ({exc}); retrying for up to "
                        f"{self.outage:.0f} s"
                    )
                    waited = True
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
                continue
            if waited:
                self.notice("the cluster answers again; going on")
            return found

    def _read_once(self, attempt: Callable[[int, float], T]) -> T:
        """One read, retried with fresh clients within the request timeout (retry.py); when it
        still fails for a reason a silent broker explains, the error names the brokers that do
        not answer (probe.py)."""
        self._silent = None
        try:
            return retry.within_timeout(self.connection, attempt, self._again, self._logs)
        except ClusterError as exc:
            if not retry.retriable(exc):
                raise
            silent = self._probed()
            if not silent:
                raise
            said = str(exc).removesuffix(HINT).rstrip()
            listed = "; ".join(f"{address} ({why})" for address, why in silent)
            raise ClusterError(f"{said} Not answering: {listed}. {HINT}") from exc.__cause__
        finally:
            self._silent = None

    def _probed(self) -> list[tuple[probe.Address, str]]:
        """The brokers that do not answer, probed once per failed read."""
        if self._silent is None:
            self._silent = probe.unanswered(self.connection, self._known)
        return self._silent

    def _answering(self) -> list[probe.Address]:
        silent = {(a.host, a.port) for a, _ in self._silent or ()}
        return [a for a in self._known if (a.host, a.port) not in silent]

    def _answering_ids(self, ids: Sequence[int]) -> list[int]:
        """Of `ids`, the brokers not found silent by this read's probe (all of them before a
        failure, or if none answers): a DescribeConfigs of a BROKER goes to that very broker,
        and one killed a moment ago is still listed until the cluster fences it."""
        answering = {a.id for a in self._answering()}
        return [i for i in ids if i in answering] or list(ids)

    def _again(self) -> None:
        """Before a retry: find the brokers that do not answer, and make fresh clients that
        avoid them. librdkafka sends its admin requests to the "controller" of its last
        Metadata answer (KRaft: a random live broker, maybe one that died a moment ago), so
        Metadata is asked again until it names a broker that answers."""
        self._logs()
        if self._kafka_python is not None:
            with boundary.kafka_python(self.connection, "closing its client"):
                self._kafka_python.close()
            self._kafka_python = None
        self._librdkafka = None
        silent = {a.id for a, _ in self._probed() if a.id is not None}
        if silent and self._answering():
            steer_controller(self.connection, self._client(), silent)

    def _logs(self) -> None:
        """Hand librdkafka's queued log lines to Python logging (shown with --debug only): an
        admin client delivers them only when polled."""
        if self._librdkafka is not None:
            with boundary.librdkafka(self.connection, "serving its client's log"):
                self._librdkafka.poll(0)

    def describe(self) -> ClusterDescription:
        """Brokers, racks and controller: one DescribeCluster."""
        try:
            found = self._reading(lambda _, t: describe(self.connection, self._client(), t))
        except ClusterError as exc:
            self.identity.abandon(exc)
            raise
        self._known = [probe.Address(b.id, b.host, b.port) for b in found.brokers]
        self.identity.settle(self.connection, found.cluster_id)
        return found

    def cluster_id(self) -> str | None:
        """The id the brokers report (one DescribeCluster, unless already asked)."""
        if not self.identity.settled:
            self.describe()
        self.identity.wait(0)
        return self.identity.reported

    def read_state(self) -> ClusterState:
        """The whole state, in a fixed number of round trips (read.py), each read retried:
        DescribeCluster, the topic names, then the topics, their configs and one broker's
        values sent at once. Meanwhile, from the start, the reassignments in progress are read
        on clients of their own (`_reassignments_apart`): kafka-python's client and its
        connection set-up, the slowest step, need nothing the others read but the brokers
        DescribeCluster lists, which its retries use to avoid a dead one (and to send to a live
        controller). A failure here is raised at once: that thread ends within its own timeout
        and closes its clients."""
        apart = Cluster(self.connection, self.identity, beside=True).ride_outages(
            self.outage, self.notice
        )
        moving = Aside(lambda: _reassignments_apart(apart), self.connection.seconds)
        description = self.describe()
        # Its retries avoid the brokers that do not answer, as ours do, once it knows them
        apart._known = self._known
        ids = [b.id for b in description.brokers]
        names = self._reading(lambda _, t: read.topic_names(self.connection, self._admin(), t))
        topics, defaults = self._reading(
            lambda n, t: read.topics_and_defaults(
                self.connection, self._admin(), names, self._answering_ids(ids), n, t
            )
        )
        reassignments, fenced = moving.result()
        state = read.state_of(description, topics, defaults, reassignments, fenced)
        if self.connection.read_acls:
            state = dataclasses.replace(state, acls=self._acls_of(state))
        if self.connection.read_quotas:
            state = dataclasses.replace(state, quotas=self.quotas())
        if self.connection.read_users:
            state = dataclasses.replace(state, scram=self.scram())
        return state

    def _acls_of(self, state: ClusterState) -> ClusterAcls:
        # Kafka 4 answers DescribeAcls without an authorizer with no bindings rather than
        # SECURITY_DISABLED: the broker's own authorizer.class.name, empty, says so
        if state.broker_defaults.get(acls.AUTHORIZER_KEY) == "":
            raise no_authorizer(self.connection)
        return self.acls()

    def read_snapshot(self) -> ClusterState:
        """The whole state with every access part `reconciler snapshot` keeps: the ACLs, the
        client quotas and the SCRAM credentials (one request each, never the digests), each
        whatever the specs declare. A part the cluster cannot answer (CannotAnswer: too old,
        no authorizer) is left None, and `unread` says why."""
        state = self.read_state()
        unread: list[tuple[str, str]] = []
        return dataclasses.replace(
            state,
            acls=_answered(ACLS, lambda: self._acls_of(state), unread),
            quotas=_answered(QUOTAS, self.quotas, unread),
            scram=_answered(USERS, self._credentials, unread),
            unread=tuple(unread),
        )

    def _credentials(self) -> ClusterScram:
        """The SCRAM credentials without the digests (`_reconciler_users` is not read)."""
        return self._reading(
            lambda _, t: scram.describe_scram(self.connection, self._admin(), t, digests=False)
        )

    def evidence(self, partitions: Mapping[str, int], sample_ms: int = 0) -> Evidence:
        """Whether these topics (name -> partition count) are still read or written, in a
        number of requests that does not grow with them (adapter/evidence.py); what cannot be
        read is a reason in the evidence, never an error: the in-use gate fails closed.
        `sample_ms`: watch the log end offsets that long (cluster/evidence.py SAMPLE_MS)."""
        if not partitions:
            return Evidence(int(time.time() * 1000))
        return evidence.read(
            self.connection, self._admin(), self._reassigning(), partitions, sample_ms
        )

    def acls(self) -> ClusterAcls:
        """Every ACL binding of the cluster: one DescribeAcls (acls.py), read only when a spec
        declares access."""
        return self._reading(lambda _, t: acls.describe_acls(self.connection, self._admin(), t))

    def create_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]:
        """Grant `bindings`: one CreateAcls."""
        return acls.create_acls(self.connection, self._admin(), bindings, self.connection.seconds)

    def delete_acls(self, bindings: Sequence[AclBinding]) -> dict[AclBinding, Failure | None]:
        """Revoke exactly `bindings`: one DeleteAcls, an exact filter each."""
        return acls.delete_acls(self.connection, self._admin(), bindings, self.connection.seconds)

    def quotas(self) -> ClusterQuotas:
        """Every user and client-id quota of the cluster: one DescribeClientQuotas (quotas.py),
        read only when reconciler.yaml declares the cluster's `quotas:`."""
        return self._reading(
            lambda n, t: quotas.describe_quotas(self.connection, self._reassigning(t, n), t)
        )

    def alter_quotas(
        self, alterations: Sequence[QuotaAlteration]
    ) -> dict[QuotaEntity, Failure | None]:
        """Set and remove these quota values: one AlterClientQuotas."""
        return quotas.alter_quotas(
            self.connection, self._reassigning(), alterations, self.connection.seconds
        )

    def scram(self) -> ClusterScram:
        """Every SCRAM credential and the digests on record (scram.py), read only when
        reconciler.yaml declares the cluster's `users:`."""
        return self._reading(lambda _, t: scram.describe_scram(self.connection, self._admin(), t))

    def alter_scram(
        self, alterations: Sequence[ScramAlteration]
    ) -> dict[tuple[str, str], Failure | None]:
        """Upsert and delete these SCRAM credentials: one AlterUserScramCredentials."""
        return scram.alter_scram(
            self.connection, self._admin(), alterations, self.connection.seconds
        )

    def record_digests(self, records: Sequence[tuple[str, str, SecretDigest | None]]) -> None:
        """Keep the digests of the secrets just set (None: a deleted credential)."""
        scram.record_digests(self.connection, self._admin(), records)

    def authorized(self, topics: Collection[str]) -> Authorized:
        """What this principal may do on the cluster and on these topics (apply's pre-flight)."""
        return authorization.authorized(self.connection, self._admin(), topics)

    def check_visible(self, creates: Collection[str]) -> None:
        """Raise ClusterError when Kafka hides some of these topics (a plan's creates) from
        this principal: one Metadata request naming them (authorization.check_visible)."""
        if creates:
            authorization.check_visible(self.connection, self._admin(), creates)

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        """These topics as the brokers show them now (absent ones left out); their configs only
        with `configs` (one more request), else each topic's `configs` is empty."""
        if not names:
            return {}
        return self._reading(
            lambda _, t: read.read_topics(self.connection, self._admin(), names, configs, t)
        )

    def reassignments(self, topics: Collection[str] | None = None) -> tuple[Reassignment, ...]:
        """KIP-455 reassignments in progress (on `topics` only, if given)."""

        def attempt(number: int, timeout: float) -> tuple[Reassignment, ...]:
            client = self._reassigning(timeout, number)
            return read.read_reassignments(self.connection, client, topics, timeout)

        return self._reading(attempt)

    def _reassigning(self, timeout: float | None = None, attempt: int = 0) -> KafkaAdminClient:
        """kafka-python's client, its connection set up beside the id's check, which its
        requests wait for."""
        client = self._reassigner(timeout, attempt)
        self._pinned()
        return client

    def fenced_brokers(self) -> tuple[int, ...] | None:
        """Brokers registered but fenced: down, not gone; None when the cluster cannot show
        them (read.read_fenced_brokers)."""
        return self._reading(
            lambda n, t: read.read_fenced_brokers(self.connection, self._reassigner(t, n), t)
        )

    # --- mutations: one request per call, an answer per item (write.py) --------------------------

    def create_topics(
        self, topics: Sequence[NewTopicRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        return write.create_topics(self.connection, self._admin(), topics, validate_only)

    def alter_topic_configs(
        self, updates: Sequence[ConfigUpdate], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        return write.alter_topic_configs(self.connection, self._admin(), updates, validate_only)

    def create_partitions(
        self, requests: Sequence[PartitionsRequest], *, validate_only: bool = False
    ) -> dict[str, Failure | None]:
        return write.create_partitions(self.connection, self._admin(), requests, validate_only)

    def delete_topics(self, names: Sequence[str]) -> dict[str, Failure | None]:
        return write.delete_topics(self.connection, self._admin(), names)

    def alter_reassignments(
        self, targets: Mapping[tuple[str, int], Replicas | None]
    ) -> dict[tuple[str, int], Failure | None]:
        """Start KIP-455 reassignments: (topic, partition) -> the target replicas, or None to
        cancel the one in progress."""
        if not targets:
            return {}
        return write.alter_reassignments(self.connection, self._reassigning(), targets)

    def set_throttle(
        self,
        rate: int,
        moves: Mapping[str, Moves],
        brokers: Iterable[int],
        record: Callable[[Throttle], None] = lambda _: None,
    ) -> Throttle:
        """Throttle these moves' replication once `record` took it (replication_throttle.py); raises
        ClusterError on a refusal."""
        return replication_throttle.set_throttle(
            self.connection, self._admin(), rate, moves, brokers, record
        )

    def clear_throttle(self, done: Throttle) -> None:
        """Take away what set_throttle added; raises ClusterError on a refusal."""
        replication_throttle.clear_throttle(self.connection, self._admin(), done)

    def remove_throttle(
        self,
        rate: int,
        brokers: Iterable[int],
        added: Iterable[tuple[str, Iterable[str], Iterable[str]]],
    ) -> None:
        """Take away a recorded throttle (an earlier apply's leftover) as the cluster shows it
        now (replication_throttle.py); raises ClusterError on a refusal."""
        replication_throttle.remove_throttle(self.connection, self._admin(), rate, brokers, added)

    def broker_rates(self, brokers: Iterable[int]) -> dict[int, str]:
        """The brokers' own replication throttle rates, for those that have one."""
        ids = sorted(set(brokers))
        return self._reading(
            lambda _, t: replication_throttle.broker_rates(self.connection, self._admin(), ids)
        )

    # --- the apply lock and the audit log (lock_topic.py, audit_topic.py) ------------------------

    def try_lock(self, holder: bytes, token: int | None = None) -> bool:
        """Take the apply lock with `token` (random if None) and record `holder` in it; False
        if someone else holds it. A lost answer is resolved by reading the token back."""
        token = secrets.randbits(62) if token is None else token
        replicas = min(3, max(1, len(self.describe().brokers)))
        if not lock_topic.try_lock(self.connection, self._admin(), token, replicas):
            return False
        try:
            lock_topic.append(self.connection, holder)
        except ClusterError:
            lock_topic.release_lock(self.connection, self._admin(), token, created=True)
            raise
        return True

    def lock_token(self) -> int | None:
        """The lock holder's token (-1: an older reconciler's lock); None: nobody holds it."""
        return lock_topic.lock_token(self.connection, self._admin())

    def lock_holder(self, wait: float = 5.0) -> bytes | None:
        """The lock holder's record, or None if there is none (yet)."""
        found = (
            lock_topic.lock_records(self.connection, wait) if self.lock_token() is not None else []
        )
        return found[0].value if found else None

    def lock_records(self, wait: float = 5.0) -> list[Record]:
        """The lock topic's records: the holder's, then its heartbeats (broker timestamps)."""
        self._pinned()
        return lock_topic.lock_records(self.connection, wait)

    def lock_end(self) -> int:
        """The lock topic's end offset; it moves while the holder heartbeats."""
        self._pinned()
        return lock_topic.lock_end(self.connection)

    def append_lock(self, record: bytes, timeout: float | None = None) -> None:
        """Append a heartbeat to the lock topic."""
        self._pinned()
        lock_topic.append(self.connection, record, timeout)

    def release_lock(self, token: int | None = None) -> bool:
        """Delete the lock if it carries `token` (None: whoever's); False if it is not ours."""
        return lock_topic.release_lock(self.connection, self._admin(), token)

    def ensure_audit(self) -> None:
        """Create the audit topic if needed and wait until it has a leader."""
        replicas = min(3, max(1, len(self.describe().brokers)))
        audit_topic.ensure_audit_topic(self.connection, self._admin(), replicas)

    def write_audit(self, key: str, records: Sequence[bytes]) -> None:
        """Append audit records in order (acks=all); raises ClusterError unless all arrived."""
        self._pinned()
        audit_topic.write_audit(self.connection, key, records)

    def audit_offsets(self) -> tuple[int, int]:
        self._pinned()
        return audit_topic.audit_offsets(self.connection)

    def audit_records(self, start: int, end: int, wait: float = 10.0) -> list[Record]:
        self._pinned()
        return audit_topic.audit_records(self.connection, start, end, wait)

    def read_audit(self, wait: float = 10.0) -> list[bytes]:
        self._pinned()
        return audit_topic.read_audit(self.connection, wait)


def _answered(part: str, read: Callable[[], T], unread: list[tuple[str, str]]) -> T | None:
    """What `read` answers; None when the cluster cannot answer it, or refuses it to this
    principal, and why added to `unread`: the topics' snapshot needs none of these parts, and a
    cluster with an authorizer of its own (a managed one) may refuse one of them to a principal
    that reads everything else."""
    try:
        return read()
    except (CannotAnswer, Refused) as exc:
        unread.append((part, exc.why))
        return None


def _reassignments_apart(
    apart: Cluster,
) -> tuple[tuple[Reassignment, ...], tuple[int, ...] | None]:
    """The reassignments in progress and the fenced brokers, read by a Cluster of their own
    (closed when done) on kafka-python, so that neither read's retries with fresh clients
    disturb the other's clients."""
    with apart:
        return apart.reassignments(), apart.fenced_brokers()


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
