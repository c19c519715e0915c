"""Where a cluster is, and the Kafka clients built from its bootstrap and `client:` properties.

`Connection` is a plain frozen value (the CLI and tests build it); only `Cluster` (cluster.py)
turns it into clients, with the two functions here. `client:` in reconciler.yaml holds librdkafka
properties; kafka-python (KIP-455 reassignments and what librdkafka cannot ask) takes the
security-related subset, translated by client_security.py (`reconciler help security`); other
librdkafka-only properties are not passed to it. OAUTHBEARER with `sasl.oauthbearer.method:
oidc` logs both clients in with tokens of one source (oauth.py); with `aws_msk_iam`, with
SigV4-signed tokens of one signer (msk_iam.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from reconciler import gcpause, redaction
from reconciler.cluster import client_settings
from reconciler.cluster.adapter import (
    boundary,
    client_security,
    compatibility,
    failures,
    msk_iam,
    oauth,
)
from reconciler.cluster.adapter.failures import NoAnswer, Watch, unsupported
from reconciler.cluster.protocol.failures import Denied, Resource, Unauthenticated
from reconciler.errors import CannotAnswer, ClusterError, Refused

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

T = TypeVar("T")

DEFAULT_CLIENT_ID = "reconciler"
HINT = "Is it running and reachable from here, and are its `client:` settings right?"

# librdkafka and kafka-python log connection trouble on their own; the error that matters reaches
# the user as one ClusterError sentence. Their logs go to Python logging, silent unless the CLI's
# --debug adds a handler.
LIBRDKAFKA_LOG = logging.getLogger("reconciler.librdkafka")
for _name in ("reconciler", "kafka"):
    logging.getLogger(_name).addHandler(logging.NullHandler())


@dataclass(frozen=True, slots=True)
class Connection:
    """Where a cluster is and how to talk to it. `name` appears in every error message."""

    name: str
    bootstrap: str
    client: tuple[tuple[str, str], ...] = ()  # librdkafka properties (may hold secrets)
    timeout: float | None = None  # seconds per request; None: request.timeout.ms or 30 s
    cluster_id: str | None = None  # the pinned id (reconciler.yaml): any other is refused first
    # read_state reads the ACLs too (DescribeAcls): only for a spec that declares access, so a
    # cluster without an authorizer, or a principal without Describe on it, plans as before
    read_acls: bool = False
    # and the client quotas (DescribeClientQuotas): only for a cluster declaring `quotas:`
    read_quotas: bool = False
    read_users: bool = False  # the SCRAM credentials and their digests (`users:`)
    # This connection's refused logins, as its clients report them (state, not part of the
    # value: equal connections made apart keep their own)
    watch: Watch = field(default_factory=Watch, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        redaction.remember_client(self.client)  # whatever prints or logs it later
        if self.timeout is None:
            millis = dict(self.client).get("request.timeout.ms", "30000")
            seconds = int(millis) / 1000 if millis.isdigit() and int(millis) > 0 else 30.0
            object.__setattr__(self, "timeout", seconds)

    @property
    def seconds(self) -> float:
        """The per-request timeout: `client: {request.timeout.ms: ...}`, default 30 s."""
        return self.timeout if self.timeout is not None else 30.0

    @property
    def millis(self) -> int:
        """The per-request timeout in milliseconds, as kafka-python takes it."""
        return int(self.seconds * 1000)

    def tokens(self) -> oauth.TokenSource | msk_iam.Signer | None:
        """The token source of OIDC or MSK IAM `client:` settings (shared per process), else
        None."""
        if (aws := msk_iam.settings(self.name, dict(self.client))) is not None:
            return msk_iam.signer(aws)
        found = oauth.settings(self.name, dict(self.client))
        return oauth.source(found, self.seconds) if found else None

    @property
    def client_id(self) -> str:
        return dict(self.client).get("client.id", DEFAULT_CLIENT_ID)

    @property
    def principal(self) -> str:
        """The principal Kafka sees for this connection's `client:` settings."""
        client = dict(self.client)
        if isinstance(tokens := self.tokens(), msk_iam.Signer):
            return tokens.aws.identity()
        if tokens is not None:
            return f"the subject of client id '{tokens.oidc.client_id}''s tokens"
        if client.get("sasl.username"):
            return f"User:{client['sasl.username']}"
        if (key := client_settings.certificate_key(client)) is not None:
            return f"the principal of the certificate in {key}"
        return "User:ANONYMOUS"

    def denied(
        self, operation: str, resource: Resource, why: str, unchanged: bool = True
    ) -> Denied:
        """This principal lacks `operation` on `resource`, needed to do `why`."""
        return Denied(
            self.name, self.bootstrap, self.principal, operation, resource, why, unchanged
        )

    def unauthenticated(self, fallback: tuple[int, str] | None = None) -> Unauthenticated | None:
        """The login the cluster refused since this connection's clients were made (else
        `fallback`, a client's own code and reason), else None."""
        with boundary.librdkafka(self, "reading its clients' refused logins"):
            refused = self.watch.refused() or fallback
        if refused is None:
            return None
        code, text = refused
        tokens = self.tokens()
        if isinstance(tokens, msk_iam.Signer):
            return Unauthenticated(
                self.name, self.bootstrap, self.principal, "msk_iam", text,
                advice=msk_iam.refusal(text, tokens.aws),
            )  # fmt: skip
        how: Literal["oauth", "sasl", "tls"] = (
            "oauth" if tokens is not None else "tls" if code == KafkaError._SSL else "sasl"
        )
        if how == "tls" and failures.unverified(text):  # one cause, whichever client failed
            client = dict(self.client)
            text = client_security.why_unverified(self.name, self.bootstrap, client) or text
        return Unauthenticated(
            self.name,
            self.bootstrap,
            self.principal,
            how,
            text,
            token_issuer=tokens.oidc.where() if tokens is not None else "",
            ca_location=client_settings.ca_source(dict(self.client)),
        )

    def failure(self, action: str, exc: BaseException) -> Denied | Unauthenticated | None:
        """The failure of `action` as a typed value, when it is an authorization or
        authentication failure (or a timeout a refused login explains)."""
        code = failures.code_of(exc)
        if code in (failures.TOPIC_DENIED, failures.CLUSTER_DENIED):
            operation, resource = failures.need(action, code, exc)
            why = action[:-3] if action.endswith((" of", " on")) else action
            # Throttles are set mid-apply, after earlier levels' changes; reads change nothing.
            return self.denied(operation, resource, why, unchanged="throttle" not in action)
        if code in failures.UNAUTHENTICATED:  # kafka-python says so itself
            return self.unauthenticated(fallback=(code, f"SASL authentication error: {exc}"))
        if code == KafkaError._TIMED_OUT or code is None:
            return self.unauthenticated()
        return None

    def error(self, action: str, exc: BaseException) -> ClusterError:
        """A ClusterError naming the cluster, its bootstrap servers and Kafka's reason."""
        if (old := compatibility.too_old(self, exc)) is not None:
            # a missing request, not a network problem: whatever the principal, the cluster
            # cannot answer it (`reconciler snapshot` records the part unread)
            found = unsupported(exc)
            request = found.request if found is not None else "a"
            return CannotAnswer(old, f"the brokers do not answer the {request} request")
        if (failed := self.failure(action, exc)) is not None:
            if isinstance(failed, Denied):  # the missing ACL
                why = f"principal {failed.principal} lacks {failed.operation} on {failed.resource}"
                return Refused(failed.sentence(), why)
            return ClusterError(failed.sentence())  # the refused login
        return ClusterError(
            f"could not {action} cluster '{self.name}' at {self.bootstrap}: {reason(exc)}. {HINT}"
        )


METADATA_REFRESH_MS = 5000


@boundary.calls("setting up its client", "confluent-kafka")
def librdkafka_admin(connection: Connection) -> AdminClient:
    """A librdkafka admin client; connections open lazily on the first request."""
    conf: dict[str, str | int | float | bool] = {
        "bootstrap.servers": connection.bootstrap,
        "client.id": DEFAULT_CLIENT_ID,
        "socket.connection.setup.timeout.ms": int(min(connection.seconds, 10.0) * 1000),
        # Controller-bound requests (CreateTopics, DeleteTopics, CreatePartitions, Describe-
        # and AlterConfigs) go to the broker the last Metadata answer named as controller (in
        # KRaft a random live broker). When that broker dies, librdkafka waits for it until
        # the request times out ("Timed out waiting for controller") and asks again only at
        # its periodic refresh, 5 minutes by default: one lost broker stalled an apply and its
        # lock's heartbeat. A broker-list refresh (no topics, so no cost per topic) every
        # METADATA_REFRESH_MS names a live one within seconds (docs/cluster-state.md).
        "topic.metadata.refresh.interval.ms": METADATA_REFRESH_MS,
    }
    conf.update(client_security.librdkafka_settings(connection.name, dict(connection.client)))
    if (tokens := connection.tokens()) is not None:
        tokens.token()  # a refused or unreachable token endpoint: one sentence, at once
        if isinstance(tokens, msk_iam.Signer):
            tokens.into(conf)
        else:
            for key in oauth.OIDC_KEYS:
                conf.pop(key, None)
            conf["oauth_cb"] = tokens.librdkafka_callback()
    connection.watch.attach(conf)  # type: ignore[arg-type]  # adds error_cb
    try:
        # The logger is not a librdkafka property, so the typed `conf` does not take it; with
        # it, librdkafka never writes to stderr itself.
        admin = AdminClient(conf, logger=LIBRDKAFKA_LOG)
    except KafkaException as exc:  # a `client:` property librdkafka does not know or accept
        raise connection.error("connect to", exc) from exc
    # never freed on its own thread: the collector waits while it lives (reconciler.gcpause)
    return gcpause.while_alive(connection.watch.register(admin))


@boundary.calls("the ApiVersions and Metadata requests of its bootstrap", "kafka-python")
def kafka_python_admin(
    connection: Connection, timeout: float | None = None, servers: list[str] | None = None
) -> KafkaAdminClient:
    """A kafka-python admin client (KIP-455), bootstrapped from `servers` (default: the
    bootstrap servers) within `timeout` seconds (default: the connection's): close it when
    done."""
    from kafka.admin import KafkaAdminClient
    from kafka.errors import KafkaError as KafkaPythonError

    settings = dict(connection.client)
    seconds = connection.seconds if timeout is None else timeout
    tokens = connection.tokens()

    def report(reason: str) -> None:  # a failed TLS handshake: the sentence librdkafka's gets
        connection.watch.remember(KafkaError._SSL, reason)

    security = client_security.kafka_python_settings(connection.name, settings, report)
    if tokens is not None:
        security["sasl_oauth_token_provider"] = tokens.kafka_python_provider()

    try:
        return KafkaAdminClient(
            bootstrap_servers=servers or connection.bootstrap.split(","),
            client_id=settings.get("client.id", DEFAULT_CLIENT_ID),
            request_timeout_ms=connection.millis,
            bootstrap_timeout_ms=max(1, int(seconds * 1000)),
            **security,
        )
    except KafkaPythonError as exc:
        if not boundary.classified(exc):
            raise  # the library's own failure: the boundary above says it
        raise connection.error("connect to", exc) from exc


@boundary.calls("Metadata", "confluent-kafka")
def steer_controller(
    connection: Connection, admin: AdminClient, avoid: set[int], tries: int = 8
) -> None:
    """Ask Metadata (all topics: asking for one could create it) until librdkafka's controller
    is not one of `avoid`: each KRaft answer names a random live broker."""
    for _ in range(tries):
        try:
            if admin.list_topics(timeout=1.0).controller_id not in avoid:
                return
        except KafkaException:
            return  # the request itself will say what is wrong


def pin_controller(admin: KafkaAdminClient, broker_id: int) -> None:
    """Send kafka-python's controller requests to this broker: on its own it asks Metadata for
    the controller (KRaft: a random live broker, maybe one that died a moment ago); any KRaft
    broker forwards ListPartitionReassignments and AlterPartitionReassignments to the real one.
    kafka-python has no API for it: this sets the attribute it caches the id in."""
    setattr(admin, "_controller_id", broker_id)  # noqa: B010  (not in kafka-python's stubs)


def bounded(call: Callable[[], T], seconds: float) -> T:
    """`call()`, abandoned after `seconds`: kafka-python sets a connection up with a timeout of
    its own (10 s), whatever the request's, and waits it out on a broker that accepted the
    connection but does not answer (a frozen JVM). The call runs on a daemon thread, which
    kafka-python's own timeout ends, and which never holds up the process's exit."""
    done = Aside(call, seconds, "reconciler-kafka-python").within(seconds)
    if not done:
        raise NoAnswer(f"no answer within {seconds:g} s")
    return done[0]


class Aside(Generic[T]):
    """`call()` on a daemon thread of its own, started at once: a read that needs nothing the
    caller reads meanwhile (its own retries bound it). `result()` waits for it, then returns
    what it returned or raises what it raised."""

    def __init__(
        self, call: Callable[[], T], seconds: float, name: str = "reconciler-aside"
    ) -> None:
        self._outcome: list[T] = []
        self._failure: list[BaseException] = []
        # a backstop only: the call's own retries end within the request timeout
        self._limit = 2 * seconds + 5

        def run() -> None:
            try:
                self._outcome.append(call())
            except BaseException as exc:  # handed to the caller's thread
                self._failure.append(exc)

        self._thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread.start()

    def within(self, seconds: float) -> list[T]:
        """What the call returned (a list of one), or what it raised, waiting at most `seconds`;
        an empty list when it has not ended by then."""
        self._thread.join(seconds)
        if self._failure:
            raise self._failure[0]
        return self._outcome

    def result(self) -> T:
        done = self.within(self._limit)
        if not done:
            raise ClusterError(f"a read got no answer within {self._limit:g} s. {HINT}")
        return done[0]


def reason(exc: BaseException) -> str:
    """Kafka's own words for a failure, from either client library."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        error: KafkaError = exc.args[0]
        return f"{error.name()}: {error.str()}"
    if isinstance(exc, KafkaError):
        return f"{exc.name()}: {exc.str()}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
