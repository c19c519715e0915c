"""DescribeAcls, CreateAcls and DeleteAcls through librdkafka's admin API (`help access`).

Every ACL of the cluster is read in one DescribeAcls (a filter matching any binding), so the
cost does not grow with the topics. A cluster without an authorizer answers
SECURITY_DISABLED: that is one sentence naming the cluster, raised only when a spec declares
access (nothing here runs otherwise); Kafka 4 answers DescribeAcls with no bindings instead,
so the brokers' `authorizer.class.name`, empty, is asked first (cluster.py). Grants are one
CreateAcls of every binding, revokes one DeleteAcls with one exact filter per binding (a filter
matching only that binding, never a pattern that could remove more).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AclBinding as KafkaBinding
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from reconciler.cluster.adapter import boundary
from reconciler.cluster.adapter.broker_version import asked
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.protocol.acls import (
    AclBinding,
    ClusterAcls,
    PatternType,
    Permission,
    no_authorizer,
)
from reconciler.cluster.protocol.acls import ResourceType as Kind
from reconciler.cluster.protocol.failures import Failure

_KINDS: dict[Kind, ResourceType] = {
    "topic": ResourceType.TOPIC,
    "group": ResourceType.GROUP,
    "cluster": ResourceType.BROKER,
    "transactional_id": ResourceType.TRANSACTIONAL_ID,
}
_PATTERNS: dict[PatternType, ResourcePatternType] = {
    "literal": ResourcePatternType.LITERAL,
    "prefixed": ResourcePatternType.PREFIXED,
}
_PERMISSIONS: dict[Permission, AclPermissionType] = {
    "allow": AclPermissionType.ALLOW,
    "deny": AclPermissionType.DENY,
}
# Kafka's operation names (kafka-acls'), as the spec and every output spell them
_OPERATIONS: dict[str, AclOperation] = {
    "".join(part.title() for part in op.name.split("_")): op
    for op in AclOperation
    if op not in (AclOperation.UNKNOWN, AclOperation.ANY)
}


# The answers' enum members back to reconciler's names (a kind it does not manage: absent)
_KIND_OF: dict[object, Kind] = {v: k for k, v in _KINDS.items()}
_PATTERN_OF: dict[object, PatternType] = {v: k for k, v in _PATTERNS.items()}
_PERMISSION_OF: dict[object, Permission] = {v: k for k, v in _PERMISSIONS.items()}
_OPERATION_OF: dict[object, str] = {v: k for k, v in _OPERATIONS.items()}


def _ours(found: KafkaBinding) -> AclBinding | None:
    """A binding as reconciler names it; None for a kind it does not manage."""
    kind = _KIND_OF.get(found.restype)
    pattern = _PATTERN_OF.get(found.resource_pattern_type)
    permission = _PERMISSION_OF.get(found.permission_type)
    operation = _OPERATION_OF.get(found.operation)
    if kind is None or pattern is None or permission is None or operation is None:
        return None
    return AclBinding(kind, found.name, pattern, found.principal, operation, permission,
                      found.host)  # fmt: skip


def _fields(binding: AclBinding) -> tuple[Any, ...]:
    """The client library's fields of `binding`, in AclBinding's (and an exact filter's) order:
    every field given, the pattern type literal or prefixed (never MATCH or ANY, which would
    reach other patterns)."""
    return (
        _KINDS[binding.resource_type], binding.resource_name, _PATTERNS[binding.pattern_type],
        binding.principal, binding.host, _OPERATIONS[binding.operation],
        _PERMISSIONS[binding.permission],
    )  # fmt: skip


# The broker config naming its authorizer: empty when it runs none (read with the state)
AUTHORIZER_KEY = "authorizer.class.name"


def _security_disabled(exc: KafkaException) -> bool:
    error = exc.args[0] if exc.args else None
    return isinstance(error, KafkaError) and error.code() == KafkaError.SECURITY_DISABLED


def describe_acls(connection: Connection, admin: AdminClient, timeout: float) -> ClusterAcls:
    """Every ACL binding of the cluster, sorted: one DescribeAcls; and whether its brokers
    predate Kafka 2.8 (one ApiVersions, as kafka-python infers the release)."""
    try:
        with boundary.librdkafka(connection, "DescribeAcls"):
            everything = AclBindingFilter(
                ResourceType.ANY, None, ResourcePatternType.ANY, None, None,  # type: ignore[arg-type]
                AclOperation.ANY, AclPermissionType.ANY,
            )  # fmt: skip
            found = admin.describe_acls(everything, request_timeout=timeout).result()
    except KafkaException as exc:
        if _security_disabled(exc):
            raise no_authorizer(connection) from None
        raise connection.error("describe the ACLs of", exc) from exc
    bindings = tuple(sorted(b for b in map(_ours, found) if b is not None))
    return ClusterAcls(bindings, _before_2_8(asked(connection)))


def _before_2_8(release: str | None) -> bool:
    """Whether `release` (kafka-python's inference, "2.4.0") predates KIP-679; unknown: True."""
    try:
        major, minor = (int(part) for part in (release or "").split(".")[:2])
    except ValueError:
        return True
    return (major, minor) < (2, 8)


def create_acls(
    connection: Connection, admin: AdminClient, bindings: Sequence[AclBinding], timeout: float
) -> dict[AclBinding, Failure | None]:
    """Grant `bindings` in one CreateAcls; each binding's refusal, else None."""
    if not bindings:
        return {}
    with boundary.librdkafka(connection, "CreateAcls", mutation=True):
        theirs = {KafkaBinding(*_fields(b)): b for b in bindings}
        futures = admin.create_acls(list(theirs), request_timeout=timeout)
    return {theirs[k]: _outcome(connection, f, "grant ACLs on") for k, f in futures.items()}


def delete_acls(
    connection: Connection, admin: AdminClient, bindings: Sequence[AclBinding], timeout: float
) -> dict[AclBinding, Failure | None]:
    """Revoke `bindings` in one DeleteAcls, one exact filter each; each one's refusal."""
    if not bindings:
        return {}
    with boundary.librdkafka(connection, "DeleteAcls", mutation=True):
        filters = {AclBindingFilter(*_fields(b)): b for b in bindings}
        futures = admin.delete_acls(list(filters), request_timeout=timeout)
    return {filters[k]: _outcome(connection, f, "revoke ACLs on") for k, f in futures.items()}


def _outcome(connection: Connection, future: object, action: str) -> Failure | None:
    try:
        with boundary.librdkafka(connection, action):
            future.result()  # type: ignore[attr-defined]
    except KafkaException as exc:
        if _security_disabled(exc):
            raise no_authorizer(connection) from None
        error = exc.args[0] if exc.args else None
        if isinstance(error, KafkaError):
            # a missing Alter on the cluster: the one sentence naming the ACL to grant
            refused = connection.failure(action, exc)
            return Failure(error.name(), refused.sentence() if refused else error.str())
        raise connection.error(f"{action}", exc) from exc
    return None
