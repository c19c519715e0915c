"""The client libraries' failures, classified by Kafka's error codes, as typed values.

Both libraries carry Kafka's protocol error code: librdkafka as `KafkaError.code()` (wrapped in
a `KafkaException`; its own conditions have negative codes such as `_AUTHENTICATION`, `_SSL`,
`_TIMED_OUT`), kafka-python as the `errno` of its error classes. `code_of` reads it from
either; the values that carry what a sentence needs are reconciler/cluster/protocol/failures.py's
(Kafka-free, so apply and the fake use them too):

    Denied            TOPIC/CLUSTER/GROUP_AUTHORIZATION_FAILED: operation, resource, principal
    Unauthenticated   refused credentials, token or certificate: principal, how, the reason
    Unsupported       UNSUPPORTED_VERSION or librdkafka's _UNSUPPORTED_FEATURE: which request

Kafka answers an authorization failure with a code and no more: the operation that was missing
follows from the request that was sent (`need`, after Kafka's "Operations and Resources on
Protocols"). Where a client gives only text, the text is read here and nowhere else:
kafka-python's per-group DescribeGroups answer is a string, it names a refused group only in
its message, and passes Kafka's own message, which may name the operation; only Kafka's message
tells a KIP-848 group from a missing one; librdkafka reports a refused connection only through
its error callback, with a code and a sentence; both clients name a request the brokers do not
know only in their message.
"""

from __future__ import annotations

import re
import sys
import threading
import weakref
from dataclasses import dataclass, field

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from reconciler.cluster.protocol.failures import Resource, Unsupported

TOPIC_DENIED = KafkaError.TOPIC_AUTHORIZATION_FAILED  # 29: the same number in both libraries
GROUP_DENIED = KafkaError.GROUP_AUTHORIZATION_FAILED  # 30
CLUSTER_DENIED = KafkaError.CLUSTER_AUTHORIZATION_FAILED  # 31
SASL_FAILED = KafkaError.SASL_AUTHENTICATION_FAILED  # 58
UNSUPPORTED_VERSION = KafkaError.UNSUPPORTED_VERSION  # 35; kafka-python's IncompatibleBrokerVersion
DENIED = {TOPIC_DENIED, GROUP_DENIED, CLUSTER_DENIED}
# A login the cluster refused: librdkafka's own SASL and TLS failures, and Kafka's SASL answer
UNAUTHENTICATED = {KafkaError._AUTHENTICATION, KafkaError._SSL, SASL_FAILED}


class NoAnswer(Exception):
    """kafka-python's call did not return in time (retriable, as its own timeouts are)."""

    retriable = True


def is_kafka_python_error(exc: BaseException) -> bool:
    """Whether `exc` is kafka-python's (or a call of its that did not return in time). Only
    the KIP-455 requests and the in-use evidence need kafka-python, so it is imported where
    they are sent: when it is not loaded, nothing raised can be its."""
    errors = sys.modules.get("kafka.errors")
    return isinstance(exc, NoAnswer) or (errors is not None and isinstance(exc, errors.KafkaError))


def code_of(exc: BaseException) -> int | None:
    """Kafka's (or librdkafka's own) error code of a failure from either client, else None."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return int(exc.args[0].code())
    if isinstance(exc, KafkaError):
        return int(exc.code())
    if is_kafka_python_error(exc):
        errno = getattr(exc, "errno", None)
        return errno if isinstance(errno, int) else None
    return None


# kafka-python's DescribeGroups answers each group with `str(error)`: "[Error 30] ...".
_ERRNO = re.compile(r"^\[Error (?P<code>-?\d+)\]")


def answer_code(text: str) -> int | None:
    """The code of a per-item answer kafka-python gives only as text (DescribeGroups)."""
    found = _ERRNO.match(text)
    return int(found.group("code")) if found else None


# Kafka 4.x answers DescribeGroups for a group of the new consumer protocol (KIP-848) with
# GROUP_ID_NOT_FOUND, as for a group that does not exist: only its message tells them apart
_NOT_CLASSIC = "is not a classic group"


def not_classic(text: str) -> bool:
    """Whether DescribeGroups' answer for a group says it is of the new consumer protocol."""
    return _NOT_CLASSIC in text


# kafka-python names the group only in its message: "group 'NAME'" (OffsetFetch) or
# "GROUP/NAME" (FindCoordinator)
_GROUP_NAMED = re.compile(r"group '(?P<quoted>[^']*)'|GROUP/(?P<bare>[^\s:)]+)")


def group_named(exc: BaseException) -> str | None:
    """The consumer group a kafka-python failure names, else None."""
    named = _GROUP_NAMED.search(str(exc))
    return (named.group("quoted") or named.group("bare")) if named else None


# ---------------------------------------------------------------------------- unsupported


# kafka-python: "... does not support the 'ListPartitionReassignmentsRequest' Kafka protocol."
# librdkafka: "IncrementalAlterConfigs (API 44) not supported by broker, requires ..."
# kafka-python: "No version of the 'X' Kafka protocol is supported by both the client [a-b]
# and broker [c-d]."
_NO_COMMON = re.compile(r"client (?P<client>\[[^\]]*\]) and broker (?P<broker>\[[^\]]*\])")
_NAMED = re.compile(r"'(?P<a>\w+?)(?:Request)?' Kafka protocol|(?P<b>[A-Z]\w+) \(API \d+\)")


def unsupported(exc: BaseException) -> Unsupported | None:
    """The request a failure says the brokers do not know, else None."""
    if code_of(exc) not in (KafkaError._UNSUPPORTED_FEATURE, UNSUPPORTED_VERSION):
        return None
    found = _NAMED.search(str(exc))
    if found is None:
        return None
    versions = _NO_COMMON.search(str(exc))
    return Unsupported(
        found.group("a") or found.group("b"),
        (versions.group("client"), versions.group("broker")) if versions else None,
    )


# ---------------------------------------------------------------------------- authorization


# What the adapter was doing (Connection.error's `action`, reconciler's own phrase) -> the
# operation the request needed, and whether on a topic (the phrase's name) or the cluster.
_NEEDS: tuple[tuple[re.Pattern[str], str, bool], ...] = (
    (re.compile(r"^describe the configs of (?P<name>\d+) on"), "DescribeConfigs", False),
    (re.compile(r"^describe the configs of (?P<name>.+) on"), "DescribeConfigs", True),
    (re.compile(r"^describe topic '(?P<name>.+)' of"), "Describe", True),
    (re.compile(r"^list the topics of"), "Describe", True),
    (re.compile(r"^list the partition reassignments of"), "Describe", False),
    (re.compile(r"^describe$"), "Describe", False),
    (re.compile(r"^throttle the topics of"), "AlterConfigs", True),
    (re.compile(r"^set the throttle rate of broker"), "AlterConfigs", False),
    (re.compile(r"^describe the ACLs of"), "Describe", False),
    (re.compile(r"^(grant|revoke) ACLs on"), "Alter", False),
    (re.compile(r"^describe the client quotas of"), "DescribeConfigs", False),
    (re.compile(r"^alter the client quotas of"), "AlterConfigs", False),
)
# Kafka's own message (kafka-python passes it on) may name the operation
_KAFKA_SAYS = re.compile(r"needs (?P<op>[A-Z_]+) permission")


def need(action: str, code: int, exc: BaseException) -> tuple[str, Resource]:
    """The operation and resource a request refused with `code` (TOPIC_ or
    CLUSTER_AUTHORIZATION_FAILED) needed."""
    said = _KAFKA_SAYS.search(str(exc))
    for pattern, guessed, on_topic in _NEEDS:
        found = pattern.search(action)
        if found:
            operation = said.group("op").title().replace("_", "") if said else guessed
            if code == CLUSTER_DENIED or not on_topic:
                return operation, Resource("cluster")
            return operation, Resource("topic", found.groupdict().get("name"))
    return "a permission", Resource("cluster" if code == CLUSTER_DENIED else "topic")


# ---------------------------------------------------------------------------- authentication


_UNVERIFIED = re.compile(r"certificate verify failed", re.I)


def unverified(reason: str) -> bool:
    """Whether a refused TLS handshake's reason is a failed certificate check."""
    return _UNVERIFIED.search(reason) is not None


# Kafka's ILLEGAL_SASL_STATE: a SaslHandshake the broker took at the wrong moment, as when a
# re-authentication (KIP-368) of a long-lived connection races a request on it. Not a refused
# login: librdkafka drops that connection and logs in afresh on the next, with the same
# credentials (measured with 6-second MSK IAM tokens: tests/security/test_msk_iam.py).
_SASL_STATE = re.compile(r"not valid (in|given the) current SASL state", re.I)


def resumable(reason: str) -> bool:
    """Whether a librdkafka authentication error is a SASL state race, not refused credentials."""
    return _SASL_STATE.search(reason) is not None


@dataclass(eq=False)
class Watch:
    """One connection's refused logins, as its librdkafka clients report them.

    librdkafka retries a connection after a refused login and reports the reason only through
    the error callback, which runs when a client is polled: the watch adds that callback to
    each client's config and keeps the clients (weakly) to poll them when asked."""

    _refused: tuple[int, str] | None = None
    _clients: weakref.WeakSet[AdminClient] = field(default_factory=weakref.WeakSet)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def attach(self, conf: dict[str, object]) -> None:
        """Add the error callback that remembers a refused login to a librdkafka config."""
        if "error_cb" in conf:
            return

        def remember(error: KafkaError) -> None:
            if error.code() in UNAUTHENTICATED and not resumable(str(error.str())):
                self._refused = (int(error.code()), str(error.str()))

        conf["error_cb"] = remember

    def remember(self, code: int, reason: str) -> None:
        """A refused login another client saw (kafka-python's failed TLS handshake)."""
        self._refused = (code, reason)

    def register(self, admin: AdminClient) -> AdminClient:
        """Poll this client when asked for a refusal (librdkafka queues its callbacks)."""
        with self._lock:
            self._clients.add(admin)
        return admin

    def refused(self) -> tuple[int, str] | None:
        """The code and reason of the last refused login, after serving pending callbacks."""
        with self._lock:
            clients = list(self._clients)
        for admin in clients:
            admin.poll(0)
        return self._refused
