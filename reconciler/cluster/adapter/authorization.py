"""Authentication and authorization failures, as one sentence naming what is missing.

Kafka answers a request the principal may not make with TOPIC_AUTHORIZATION_FAILED or
CLUSTER_AUTHORIZATION_FAILED and no more; which ACL operation was missing depends on the
request. The operation each request needs (Kafka's "Operations and Resources on Protocols"):

    request                         operation        resource
    DescribeCluster                 Describe         Cluster (only for authorized operations)
    Metadata                        Describe         Topic (unauthorized topics are left out)
    DescribeConfigs                 DescribeConfigs  Topic; Cluster for broker configs
    ListPartitionReassignments      Describe         Cluster
    CreateTopics                    Create           Cluster or Topic
    CreatePartitions                Alter            Topic
    IncrementalAlterConfigs         AlterConfigs     Topic; Cluster for broker configs
    DeleteTopics                    Delete           Topic
    ListGroups                      Describe         Cluster (else only the groups it may Describe)
    DescribeGroups, OffsetFetch     Describe         Group (the in-use evidence of a delete)
    AlterPartitionReassignments     Alter            Cluster

Kafka implies Describe from Read, Write, Delete and Alter, and DescribeConfigs from
AlterConfigs. A wrong password or an untrusted certificate never reaches a request: librdkafka
retries the connection and reports the reason only through its error callback, so `watch`
records it per connection and `explain` uses it when the request then times out.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AclOperation, AdminClient

from reconciler.errors import ClusterError

if TYPE_CHECKING:
    from reconciler.cluster.adapter.connect import Connection

TOPIC_DENIED = 29  # TOPIC_AUTHORIZATION_FAILED, the same number in both client libraries
CLUSTER_DENIED = 31  # CLUSTER_AUTHORIZATION_FAILED
SASL_FAILED = 58  # SASL_AUTHENTICATION_FAILED
_REFUSED_CODES = {KafkaError._AUTHENTICATION, KafkaError._SSL, SASL_FAILED}

# The ACL operations' names as kafka-acls spells them.
OPERATIONS = {
    AclOperation.DESCRIBE: "Describe",
    AclOperation.DESCRIBE_CONFIGS: "DescribeConfigs",
    AclOperation.CREATE: "Create",
    AclOperation.ALTER: "Alter",
    AclOperation.ALTER_CONFIGS: "AlterConfigs",
    AclOperation.DELETE: "Delete",
    AclOperation.READ: "Read",
    AclOperation.WRITE: "Write",
    AclOperation.ALL: "All",
}
_IMPLIED = {  # Kafka's AclAuthorizer/StandardAuthorizer rules
    "Describe": {"Read", "Write", "Delete", "Alter", "All"},
    "DescribeConfigs": {"AlterConfigs", "All"},
}

# What the adapter was doing (Connection.error's `action`) -> the operation it needed.
_ACTIONS: tuple[tuple[re.Pattern[str], str, str | None], ...] = (
    (re.compile(r"^describe the configs of (?P<name>\d+) on"), "DescribeConfigs", None),
    (re.compile(r"^describe the configs of (?P<name>.+) on"), "DescribeConfigs", "topic"),
    (re.compile(r"^describe topic '(?P<name>.+)' of"), "Describe", "topic"),
    (re.compile(r"^list the topics of"), "Describe", "topic"),
    (re.compile(r"^list the partition reassignments of"), "Describe", None),
    (re.compile(r"^describe$"), "Describe", None),
    (re.compile(r"^throttle the topics of"), "AlterConfigs", "topic"),
    (re.compile(r"^set the throttle rate of broker"), "AlterConfigs", None),
)
_KAFKA_SAYS = re.compile(r"needs (?P<op>[A-Z_]+) permission")


def principal(connection: Connection) -> str:
    """The principal Kafka sees for this connection's `client:` settings."""
    client = dict(connection.client)
    if (tokens := connection.tokens()) is not None:
        return f"the subject of client id '{tokens.oidc.client_id}''s tokens"
    if client.get("sasl.username"):
        return f"User:{client['sasl.username']}"
    if client.get("ssl.certificate.location"):
        return "the principal of the certificate in ssl.certificate.location"
    return "User:ANONYMOUS"


def lacks(
    connection: Connection, operation: str, resource: str, why: str, unchanged: bool = True
) -> str:
    """The one sentence: who lacks what, on which resource, needed for what, and the fix.
    `unchanged`: the refusal came before any change (reads, pre-flight, the lock)."""
    if resource == "the cluster":
        target = "--cluster"
    elif resource.startswith("topic "):
        target = f"--topic '{resource.removeprefix('topic ')}'"
    elif resource.startswith("group "):
        target = f"--group '{resource.removeprefix('group ')}'"
    else:  # "the topics": Kafka did not say which
        target = "--topic NAME"
    who = principal(connection)
    grant = f"--allow-principal {who} " if who.startswith("User:") else ""
    where = (
        f"cluster '{connection.name}'"
        if resource == "the cluster"
        else f"{resource} of cluster '{connection.name}'"
    )
    return (
        f"principal {who} lacks {operation} on {where} (needed to {why})"
        f"{': nothing was changed' if unchanged else ''}; grant it with `kafka-acls "
        f"--bootstrap-server "
        f"{connection.bootstrap} --add {grant}--operation {operation} {target}`."
    )


def refused(
    connection: Connection, code: str, operation: str, resource: str, why: str
) -> str | None:
    """The sentence for an item Kafka refused with an authorization code (a per-item answer
    such as a CreateTopics result), else None."""
    if code in ("TOPIC_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"):
        on = "the cluster" if code == "CLUSTER_AUTHORIZATION_FAILED" else resource
        return lacks(connection, operation, on, why)
    return None


# ---------------------------------------------------------------------------- authentication

_refused: dict[Connection, str] = {}
_clients: dict[Connection, weakref.WeakSet[AdminClient]] = {}


def watch(connection: Connection, conf: dict[str, object]) -> None:
    """Add an error callback to a librdkafka config that remembers authentication failures."""
    if "error_cb" in conf:
        return

    def remember(error: KafkaError) -> None:
        if error.code() in _REFUSED_CODES:
            _refused[connection] = str(error.str())

    conf["error_cb"] = remember


def register(connection: Connection, admin: AdminClient) -> AdminClient:
    """Let `explain` serve this client's pending callbacks (librdkafka queues them)."""
    _clients.setdefault(connection, weakref.WeakSet()).add(admin)
    return admin


def credentials_refused(connection: Connection) -> str | None:
    """The sentence for credentials or a certificate the cluster refused since this
    connection's clients were made, else None: librdkafka only reconnects and retries after
    such a failure, so a caller waiting on a request asks this to stop at once."""
    return _refusal(connection)


def _refusal(connection: Connection, fallback: str | None = None) -> str | None:
    for admin in list(_clients.get(connection, ())):
        admin.poll(0)
    text = _refused.get(connection, fallback)
    if text is None:
        return None
    where = f"cluster '{connection.name}' at {connection.bootstrap}"
    if (tokens := connection.tokens()) is not None:
        return (
            f"{where} refused the OAuth token the {tokens.oidc.where()} issued "
            f"({_tail(text)}): check that the identity provider's issuer and audience are the "
            "ones the brokers expect (sasl.oauthbearer.expected.issuer and "
            "sasl.oauthbearer.expected.audience), and sasl.oauthbearer.scope."
        )
    if "SASL" in text or "uthentication" in text:
        return (
            f"{where} refused the credentials of {principal(connection)} ({_tail(text)}): "
            "check sasl.username, sasl.password and sasl.mechanism in its `client:` settings."
        )
    return (
        f"the TLS handshake with {where} failed ({_tail(text)}): the broker's certificate is "
        f"not signed by a CA in ssl.ca.location "
        f"({dict(connection.client).get('ssl.ca.location', 'the system CAs')}), or its name "
        "does not match the bootstrap address."
    )


def _tail(text: str) -> str:
    """librdkafka's reason without the broker prefix and the timing suffix."""
    text = re.sub(r"^\S+://\S+: ", "", text)
    return re.sub(r" \(after \d+ms in state \w+\)$", "", text).rstrip(".")


# ---------------------------------------------------------------------------- authorization


def _code(exc: BaseException) -> int | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return int(exc.args[0].code())
    if isinstance(exc, KafkaError):
        return int(exc.code())
    from reconciler.cluster.adapter.connect import is_kafka_python_error  # connect imports us

    if is_kafka_python_error(exc):
        return getattr(exc, "errno", None)
    return None


def explain(connection: Connection, action: str, exc: BaseException) -> str | None:
    """One sentence for an authentication or authorization failure, else None."""
    code = _code(exc)
    if code in (TOPIC_DENIED, CLUSTER_DENIED):
        operation, resource = _needed(action, code, str(exc))
        why = re.sub(r" (of|on)$", "", action)
        # Throttles are set mid-apply, after earlier levels' changes; reads change nothing.
        unchanged = "throttle" not in action
        return lacks(connection, operation, resource, why, unchanged)
    if code in _REFUSED_CODES:  # kafka-python says so itself
        return _refusal(connection, fallback=f"SASL authentication error: {exc}")
    if code == KafkaError._TIMED_OUT or code is None:
        return _refusal(connection)
    return None


def _needed(action: str, code: int, message: str) -> tuple[str, str]:
    said = _KAFKA_SAYS.search(message)  # kafka-python passes Kafka's own message on
    for pattern, guessed, kind in _ACTIONS:
        found = pattern.search(action)
        if found:
            operation = said.group("op").title().replace("_", "") if said else guessed
            name = found.groupdict().get("name")
            if code == CLUSTER_DENIED or kind is None:
                return operation, "the cluster"
            return operation, f"topic {name}" if name else "the topics"
    return ("a permission", "the cluster" if code == CLUSTER_DENIED else "the topics")


# ---------------------------------------------------------------------------- pre-flight


@dataclass(frozen=True, slots=True)
class Authorized:
    """What the principal may do (KIP-430), as kafka-acls names operations."""

    cluster: frozenset[str]
    # None: not even Describe on it. A topic Kafka says does not exist is left out: it only
    # says so to a principal that may Describe it.
    topics: Mapping[str, frozenset[str] | None]

    def allows(self, operation: str, topic: str | None) -> bool:
        if topic is not None and topic not in self.topics:
            return operation == "Describe"
        granted = self.cluster if topic is None else self.topics[topic]
        if granted is None:
            return False
        return bool({operation, "All"} & granted) or bool(_IMPLIED.get(operation, set()) & granted)


def _names(operations: object) -> frozenset[str]:
    """kafka-acls names of what Kafka says; a broker without KIP-430 (before 2.3) says nothing:
    then nothing is refused here (Kafka still refuses the request itself)."""
    if not isinstance(operations, Collection):
        return frozenset({"All"})
    return frozenset(OPERATIONS.get(op, getattr(op, "name", str(op))) for op in operations)


def names(operations: object) -> frozenset[str]:
    """kafka-acls names of the authorized operations Kafka reports (KIP-430)."""
    return _names(operations)


def authorized(connection: Connection, admin: AdminClient, topics: Collection[str]) -> Authorized:
    """One DescribeCluster and one Metadata request asking for the authorized operations."""
    try:
        described = admin.describe_cluster(
            request_timeout=connection.seconds, include_authorized_operations=True
        ).result()
    except KafkaException as exc:
        raise connection.error("describe", exc) from exc
    per_topic: dict[str, frozenset[str] | None] = {}
    if topics:
        futures = admin.describe_topics(
            TopicCollection(sorted(topics)),
            request_timeout=connection.seconds,
            include_authorized_operations=True,
        )
        for name, future in futures.items():
            try:
                per_topic[name] = _names(future.result().authorized_operations)
            except KafkaException as exc:
                if _code(exc) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    continue  # deleted meanwhile: nothing to check
                if _code(exc) != TOPIC_DENIED:
                    raise connection.error(f"describe topic '{name}' of", exc) from exc
                per_topic[name] = None
    return Authorized(_names(described.authorized_operations), per_topic)


def check_visible(connection: Connection, creates: Collection[str]) -> None:
    """Raise ClusterError when Kafka hides some of the topics a plan would create.

    Kafka leaves the topics a principal may not Describe out of the topic list, so such a topic
    looks absent and the plan proposes to create it. Asked by name (one Metadata request), Kafka
    answers UNKNOWN_TOPIC_OR_PART for a topic that is really absent and
    TOPIC_AUTHORIZATION_FAILED for one the principal may not Describe, whether it exists or not.
    """
    if not creates:
        return
    from reconciler.cluster.adapter.connect import librdkafka_admin  # connect imports us

    admin = librdkafka_admin(connection)
    futures = admin.describe_topics(
        TopicCollection(sorted(creates)), request_timeout=connection.seconds
    )
    hidden = []
    for name, future in sorted(futures.items()):
        try:
            future.result()
        except KafkaException as exc:
            if _code(exc) == TOPIC_DENIED:
                hidden.append(name)
            elif _code(exc) != KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise connection.error(f"describe topic '{name}' of", exc) from exc
    if hidden:
        why = "tell whether {} exists: Kafka hides it, so it looks absent"
        lines = [lacks(connection, "Describe", f"topic {n}", why.format(n)) for n in hidden[:10]]
        more = [f"... and {len(hidden) - 10} more"] if len(hidden) > 10 else []
        raise ClusterError("\n".join(lines + more))
