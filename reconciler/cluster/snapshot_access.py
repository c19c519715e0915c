"""A snapshot's access parts: the ACL bindings, the client quotas and the SCRAM credentials, in
both forms (snapshot.py's JSON document, jsonl.py's line records), one place for the fields.

Each part is what one request answered (DescribeAcls, DescribeClientQuotas,
DescribeUserScramCredentials), or, in the header's `unread`, why it was not read (the cluster
could not answer: no authorizer, too old). A SCRAM credential keeps its public facts only
(user, mechanism, iterations): never a secret, a salt or a digest, so a snapshot gives no
login and `plan --state` does not compare secrets (ClusterScram.digests_read). A file written
before snapshots kept access has no `unread` at all: every part reads as not kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, get_args

from reconciler.cluster import snapshot_check
from reconciler.cluster.protocol.acls import (
    AclBinding,
    ClusterAcls,
    PatternType,
    Permission,
    ResourceType,
)
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.scram import ClusterScram, ScramCredential
from reconciler.cluster.state import ACCESS_PARTS, ACLS, QUOTAS, USERS, ClusterState
from reconciler.spec.quotas import ClientQuota, QuotaEntity

# Why a part a file does not hold is missing, when the file does not say
OLDER = "the file predates snapshots keeping it; take a new one with `reconciler snapshot`"
NOT_ASKED = "the command that wrote the snapshot reads it only when the specs declare it"
_BINDING = ("resource_type", "resource_name", "pattern_type", "principal", "operation",
            "permission", "host")  # fmt: skip
# The values the Literal fields of a binding may take
_ALLOWED: dict[str, tuple[str, ...]] = {
    "resource_type": get_args(ResourceType),
    "pattern_type": get_args(PatternType),
    "permission": get_args(Permission),
}


def header(state: ClusterState) -> dict[str, Any]:
    """The header's access fields, in both forms: why each part not read was not, and (when the
    ACLs were read) whether the brokers need IdempotentWrite on the cluster (before 2.8)."""
    said = dict(state.unread)
    held = _held(state)
    fields: dict[str, Any] = {
        "unread": {part: said.get(part, NOT_ASKED) for part in ACCESS_PARTS if held[part] is None}
    }
    if state.acls is not None:
        fields["acls_idempotent_write"] = state.acls.idempotent_write
    return fields


def _held(state: ClusterState) -> dict[str, object]:
    return {ACLS: state.acls, QUOTAS: state.quotas, USERS: state.scram}


def records(state: ClusterState) -> dict[str, list[dict[str, Any]]]:
    """The parts read, each a list of records (the JSON form's arrays, the JSON Lines form's
    lines): `acls` bindings, `quotas` entities, `users` credentials."""
    found: dict[str, list[dict[str, Any]]] = {}
    if state.acls is not None:
        found[ACLS] = [_binding_json(b) for b in state.acls.bindings]
    if state.quotas is not None:
        found[QUOTAS] = [_quota_json(q) for q in state.quotas.quotas]
    if state.scram is not None:
        found[USERS] = [
            {"user": c.user, "mechanism": c.mechanism, "iterations": c.iterations}
            for c in state.scram.credentials
        ]
    return found


def _binding_json(binding: AclBinding) -> dict[str, Any]:
    return {field: getattr(binding, field) for field in _BINDING}


def _quota_json(quota: ClientQuota) -> dict[str, Any]:
    return {
        "user": quota.entity.user,
        "client_id": quota.entity.client_id,
        "values": dict(quota.values),
    }


def state_fields(head: Mapping[str, Any], parts: Mapping[str, Iterable[Any]]) -> dict[str, Any]:
    """ClusterState's access fields from a file's header and the records of each part it holds
    (`parts`: part -> its records). A KeyError/TypeError/ValueError: not a snapshot."""
    if (odd := snapshot_check.access_mismatch({**head, **parts})) is not None:
        raise snapshot_check.InvalidSnapshot(odd)
    if "unread" not in head:  # written before snapshots kept access
        return {"unread": tuple((part, OLDER) for part in ACCESS_PARTS)}
    unread = {str(part): str(why) for part, why in head["unread"].items()}
    fields: dict[str, Any] = {"unread": tuple((p, unread[p]) for p in ACCESS_PARTS if p in unread)}
    if ACLS in parts:
        bindings = sorted(_binding(b) for b in parts[ACLS])
        fields["acls"] = ClusterAcls(tuple(bindings), bool(head["acls_idempotent_write"]))
    if QUOTAS in parts:
        quotas = sorted((_quota(q) for q in parts[QUOTAS]), key=lambda q: q.entity.order)
        fields["quotas"] = ClusterQuotas(tuple(quotas))
    if USERS in parts:
        credentials = sorted(
            ScramCredential(_text(c["user"]), _text(c["mechanism"]), int(c["iterations"]))
            for c in parts[USERS]
        )
        fields["scram"] = ClusterScram(tuple(credentials), digests_read=False)
    return fields


def _binding(item: Mapping[str, Any]) -> AclBinding:
    values = [_text(item[field]) for field in _BINDING]
    for field, value in zip(_BINDING, values, strict=True):
        if value not in _ALLOWED.get(field, (value,)):
            raise ValueError(f"{field} {value!r} is not one of {', '.join(_ALLOWED[field])}")
    return AclBinding(*values)  # type: ignore[arg-type]  # the Literal fields checked above


def _quota(item: Mapping[str, Any]) -> ClientQuota:
    entity = QuotaEntity(_optional(item.get("user")), _optional(item.get("client_id")))
    if entity.user is None and entity.client_id is None:
        raise ValueError("a quota entity names neither a user nor a client id")
    values = tuple(sorted((str(k), float(v)) for k, v in item["values"].items()))
    return ClientQuota(entity, values)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not a string")
    return value


def _optional(value: object) -> str | None:
    return None if value is None else _text(value)
