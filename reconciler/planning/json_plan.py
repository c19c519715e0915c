"""The JSON form of a plan (format_version 1); schemas/plan.schema.json is its contract.

`from_json(to_json(plan)) == plan` for every plan `make_plan` builds. One entry per topic:
`partitions`, `replication_factor`, `config`, `assignments` and `reassignment` appear when the
topic's changes set them, so an update shows only what moves. Derived fields (`applyable`,
`summary`) are written for readers and recomputed, not trusted, when a plan is read back.
`broker_load` appears when the cluster sets limits.max_broker_partitions; a diagnostic's
`broker` when it concerns one broker. `changed_since` is the git ref of `plan --changed-since`
(null without it), and then every change carries its `cause` (`change` or `drift`); a plan saved
before these fields existed reads back as a plan without marks. A delete carries `evidence`
(whether the topic is still in use, as read when planning) unless the plan was made from a
snapshot. `source` (the commit and the spec files' digest the plan was made from) appears in
plans `reconciler plan` made, and apply refuses a saved plan whose `source.specs` is not the
digest of the specs it finds. `policy_changes` appears when the cluster's policy differs from
the base of `--changed-since`, or turns a gate off (planning/policy_changes.py), each setting
with its value before and after and its `policy_gate_off` hazard. A plan scoped by
`--changed-since` has `scoped: true`, its `targets` (the exact names in scope, maybe none) and
`drift`: the changes and diagnostics of the whole plan set apart, never applied nor compared.
`made_by` (the reconciler version and client library versions that made the plan) appears in
plans `reconciler plan` made; apply refuses a saved plan of another reconciler version
(workflow/saved_plan.py).
"""

from __future__ import annotations

from typing import Any, assert_never

from reconciler import diagnostics
from reconciler.cluster.evidence import GroupUse, TopicEvidence
from reconciler.cluster.protocol.acls import AclBinding
from reconciler.diagnostics import Severity
from reconciler.planning.changes import (
    CAUSES,
    AclChange,
    Action,
    AlterTopicConfig,
    Approval,
    Assignments,
    Cause,
    Change,
    ConfigChange,
    CreateTopic,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.limits import BrokerLoad
from reconciler.planning.plan import Drift, MadeBy, Plan, PlanSource
from reconciler.planning.policy_changes import PolicyChange
from reconciler.planning.quota_changes import QuotaChange
from reconciler.planning.raw_acl_changes import RawAclChange
from reconciler.planning.user_changes import UserChange
from reconciler.spec.model import APPROVAL_FIELDS
from reconciler.spec.quotas import ENTITY_FIELDS, QuotaEntity

FORMAT_VERSION = 1

Json = dict[str, Any]


def to_json(plan: Plan) -> Json:
    summary = plan.summary
    data: Json = {
        "format_version": FORMAT_VERSION,
        "cluster": plan.cluster,
        "cluster_id": plan.cluster_id,
        "based_on": plan.based_on,
        "applyable": plan.applyable,
        "summary": {
            "create": summary.create,
            "update": summary.update,
            "delete": summary.delete,
            "errors": summary.errors,
            "warnings": summary.warnings,
        },
        "changes": [topic_change_json(c) for c in plan.changes],
        "diagnostics": [diagnostics.to_json(d) for d in plan.diagnostics],
        "unmanaged": list(plan.unmanaged),
        "changed_since": plan.changed_since,
    }
    if plan.targets or plan.scoped:  # a partial plan says so; apply derives it with the same
        data["targets"] = list(plan.targets)
    if plan.scoped:  # the targets are the pull request's scope; the rest is shown apart
        data["scoped"] = True
        data["drift"] = {
            "changes": [topic_change_json(c) for c in plan.drift.changes],
            "diagnostics": [diagnostics.to_json(d) for d in plan.drift.diagnostics],
        }
    if plan.source is not None:
        data["source"] = {"commit": plan.source.commit, "specs": plan.source.specs}
    if plan.made_by is not None:
        data["made_by"] = made_by_json(plan.made_by)
    if plan.broker_load:
        data["broker_load"] = [_broker_load(row) for row in plan.broker_load]
    if plan.policy_changes:
        data["policy_changes"] = [
            {
                "setting": p.setting,
                "before": p.before,
                "after": p.after,
                "hazards": [_hazard(h) for h in p.hazards],
            }
            for p in plan.policy_changes
        ]
    if plan.quotas:  # additive: a plan of a cluster without `quotas:` has no such key
        data["quotas"] = [_quota_change(q) for q in plan.quotas]
    if plan.acls:  # additive: a plan of a spec without `acls:` has no such key
        data["acls"] = [
            {**_acl_change(a.change), "hazards": [_hazard(h) for h in a.hazards]} for a in plan.acls
        ]
    if plan.users:  # additive, as quotas: never a secret nor its digest, only its variable
        data["users"] = [_user_change(u) for u in plan.users]
    return data


def _read_raw_acl_change(entry: Json) -> RawAclChange:
    change = _read_acl_change(entry)
    hazards = tuple(_read_hazard(h) for h in entry.get("hazards", ()))
    return RawAclChange(change.action, change.binding, hazards, change.still_granted_by)


def _user_change(change: UserChange) -> Json:
    return {
        "name": change.name,
        "mechanism": change.mechanism,
        "action": change.action,
        "reasons": list(change.reasons),
        "iterations": {"before": change.iterations_before, "after": change.iterations_after},
        "password_from": change.variable,
        "hazards": [_hazard(h) for h in change.hazards],
        **({"secret_digest": change.secret_digest} if change.secret_digest else {}),
    }


def _read_user_change(entry: Json) -> UserChange:
    iterations = entry["iterations"]
    return UserChange(
        entry["name"], entry["mechanism"], entry["action"], tuple(entry["reasons"]),
        iterations["before"], iterations["after"], entry["password_from"],
        tuple(_read_hazard(h) for h in entry.get("hazards", ())), entry.get("secret_digest"),
    )  # fmt: skip


def _quota_change(change: QuotaChange) -> Json:
    entity = {f: getattr(change.entity, f) for f, _ in ENTITY_FIELDS}
    return {
        "entity": {f: name for f, name in entity.items() if name is not None},
        "key": change.key,
        "before": change.before,
        "after": change.after,
        "hazards": [_hazard(h) for h in change.hazards],
    }


def _read_quota_change(entry: Json) -> QuotaChange:
    entity = QuotaEntity(*(entry["entity"].get(f) for f, _ in ENTITY_FIELDS))
    hazards = tuple(_read_hazard(h) for h in entry.get("hazards", ()))
    before, after = (None if v is None else float(v) for v in (entry["before"], entry["after"]))
    return QuotaChange(entity, entry["key"], before, after, hazards)


def from_json(data: Json) -> Plan:
    """The plan a `to_json` dict (e.g. a saved PLAN.json) describes.

    Raises ValueError for another format_version or a missing field; validate against
    schemas/plan.schema.json first for a full account of what is wrong.
    """
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(
            f"plan format_version {version!r} is not supported (this reconciler reads "
            f"{FORMAT_VERSION}); plan again with this version"
        )
    try:
        return Plan(
            cluster=data["cluster"],
            based_on=data["based_on"],
            changes=tuple(_read_topic_change(c) for c in data["changes"]),
            diagnostics=tuple(diagnostics.from_json(d) for d in data["diagnostics"]),
            unmanaged=tuple(data["unmanaged"]),
            broker_load=tuple(_read_broker_load(row) for row in data.get("broker_load", ())),
            changed_since=data.get("changed_since"),
            cluster_id=data.get("cluster_id"),
            targets=tuple(data.get("targets", ())),
            scoped=data.get("scoped", False),
            drift=_read_drift(data.get("drift")),
            source=_read_source(data.get("source")),
            made_by=read_made_by(data.get("made_by")),
            policy_changes=tuple(
                PolicyChange(
                    p["setting"],
                    p["before"],
                    p["after"],
                    tuple(_read_hazard(h) for h in p.get("hazards", ())),
                )
                for p in data.get("policy_changes", ())
            ),
            quotas=tuple(_read_quota_change(q) for q in data.get("quotas", ())),
            acls=tuple(_read_raw_acl_change(a) for a in data.get("acls", ())),
            users=tuple(_read_user_change(u) for u in data.get("users", ())),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a valid plan: missing or malformed field {error}") from error


def _read_drift(data: Json | None) -> Drift:
    if data is None:
        return Drift()
    return Drift(
        changes=tuple(_read_topic_change(c) for c in data["changes"]),
        diagnostics=tuple(diagnostics.from_json(d) for d in data["diagnostics"]),
    )


# --- writing ----------------------------------------------------------------------------------


def _count(current: int | None, desired: int | None, broker_default: int | None = None) -> Json:
    count: Json = {"current": current, "desired": desired}
    if broker_default is not None:
        count["broker_default"] = broker_default
    return count


def _assignments(assignments: Assignments) -> list[list[int]]:
    return [list(replicas) for replicas in assignments]


def _config_entry(entry: ConfigChange) -> Json:
    out: Json = {"key": entry.key, "current": entry.current, "desired": entry.desired}
    if entry.inherited is not None:
        out["inherited"] = entry.inherited
    return out


def topic_change_json(topic_change: TopicChange) -> Json:
    """One entry of `changes`; apply.verify compares saved and derived plans in this form."""
    entry: Json = {"topic": topic_change.topic, "action": topic_change.action.word}
    for change in topic_change.changes:
        entry.update(_change_fields(change))
    entry["hazards"] = [_hazard(h) for h in topic_change.hazards]
    entry["depends_on"] = list(topic_change.depends_on)
    if topic_change.cause is not None:
        entry["cause"] = topic_change.cause
    if topic_change.access:  # additive: a plan without access has no such key
        entry["access"] = [_acl_change(a) for a in topic_change.access]
    return entry


def _acl_change(change: AclChange) -> Json:
    b = change.binding
    return {
        "action": change.action,
        "binding": b.text,
        "principal": b.principal,
        "host": b.host,
        "operation": b.operation,
        "permission": b.permission,
        "resource": {"type": b.resource_type, "name": b.resource_name, "pattern": b.pattern_type},
        **({"still_granted_by": list(change.still_granted_by)} if change.still_granted_by else {}),
    }


def _read_acl_change(entry: Json) -> AclChange:
    resource = entry["resource"]
    action = entry["action"]
    if action not in ("grant", "revoke"):
        raise ValueError(f"unknown ACL action {action!r}")
    binding = AclBinding(
        resource["type"], resource["name"], resource["pattern"], entry["principal"],
        entry["operation"], entry["permission"], entry["host"],
    )  # fmt: skip
    return AclChange(action, binding, tuple(entry.get("still_granted_by", ())))


def _change_fields(change: Change) -> Json:
    match change:
        case CreateTopic():
            fields: Json = {
                "partitions": _count(None, change.partitions, change.default_partitions),
                "replication_factor": _count(
                    None, change.replication_factor, change.default_replication_factor
                ),
                "config": [{"key": k, "current": None, "desired": v} for k, v in change.config],
            }
            if change.assignments is not None:
                fields["assignments"] = _assignments(change.assignments)
            return fields
        case AlterTopicConfig():
            return {"config": [_config_entry(e) for e in change.entries]}
        case IncreasePartitions():
            fields = {"partitions": _count(change.current, change.desired)}
            if change.assignments is not None:
                fields["assignments"] = _assignments(change.assignments)
            return fields
        case ReassignReplicas():
            return {
                "replication_factor": _count(change.current_rf, change.desired_rf),
                "reassignment": {
                    "current": _assignments(change.current),
                    "target": _assignments(change.target),
                },
            }
        case DeleteTopic():
            found: Json = {"partitions": _count(change.partitions, None), "reason": change.reason}
            if change.evidence is not None:
                found["evidence"] = _evidence(change.evidence)
            return found
        case _:
            assert_never(change)


def _evidence(evidence: TopicEvidence) -> Json:
    return {
        "read_at": evidence.read_at,
        "newest_record": evidence.newest_record,
        "groups": [
            {"group": g.group, "state": g.state, "members": g.members, "committed": g.committed,
             "assigned": g.assigned, "lag": g.lag}
            for g in evidence.groups
        ],
        "unreadable": list(evidence.unreadable),
        "end_offsets": list(evidence.end_offsets),
        "written": evidence.written,
        "window_ms": evidence.window_ms,
        "producer_stamped": evidence.producer_stamped,
    }  # fmt: skip


def _read_evidence(topic: str, entry: Json | None) -> TopicEvidence | None:
    if entry is None:
        return None
    groups = tuple(
        GroupUse(
            g["group"], g["state"], g.get("members"), g["committed"], g["assigned"], g.get("lag")
        )
        for g in entry.get("groups", ())
    )
    return TopicEvidence(
        topic,
        entry["read_at"],
        groups,
        entry.get("newest_record"),
        tuple(entry.get("unreadable", ())),
        tuple(entry.get("end_offsets", ())),
        entry.get("written", 0),
        entry.get("window_ms", 0),
        entry.get("producer_stamped"),
    )


def _hazard(hazard: Hazard) -> Json:
    data: Json = {
        "code": hazard.code,
        "message": hazard.message,
        "acknowledged": hazard.acknowledged,
        "severity": hazard.severity.value,
    }
    if hazard.approve_with is not None:  # every hazard the planner finds has one
        data["approve_with"] = hazard.approve_with
    return data


def _broker_load(row: BrokerLoad) -> Json:
    return {
        "broker": row.broker,
        "rack": row.rack,
        "current": row.current,
        "desired": row.desired,
        "limit": row.limit,
    }


# --- reading ----------------------------------------------------------------------------------


def _read_assignments(data: list[list[int]] | None) -> Assignments | None:
    return None if data is None else tuple(tuple(replicas) for replicas in data)


def _read_topic_change(entry: Json) -> TopicChange:
    topic = entry["topic"]
    action = Action[entry["action"].upper()]
    depends_on = tuple(entry.get("depends_on", ()))
    hazards = tuple(_read_hazard(h) for h in entry.get("hazards", ()))
    changes: list[Change] = []
    match action:
        case Action.CREATE:
            partitions, rf = entry["partitions"], entry["replication_factor"]
            changes.append(
                CreateTopic(
                    topic=topic,
                    partitions=partitions["desired"],
                    replication_factor=rf["desired"],
                    config=tuple((e["key"], e["desired"]) for e in entry.get("config", ())),
                    assignments=_read_assignments(entry.get("assignments")),
                    depends_on=depends_on,
                    default_partitions=partitions.get("broker_default"),
                    default_replication_factor=rf.get("broker_default"),
                )
            )
        case Action.UPDATE:
            # The order diff produces and apply runs: config, partitions, replicas.
            if "config" in entry:
                entries = tuple(
                    ConfigChange(e["key"], e["current"], e["desired"], e.get("inherited"))
                    for e in entry["config"]
                )
                changes.append(AlterTopicConfig(topic, entries))
            if "partitions" in entry:
                count = entry["partitions"]
                changes.append(
                    IncreasePartitions(
                        topic,
                        count["current"],
                        count["desired"],
                        _read_assignments(entry.get("assignments")),
                    )
                )
            if "replication_factor" in entry:
                rf, moves = entry["replication_factor"], entry["reassignment"]
                changes.append(
                    ReassignReplicas(
                        topic,
                        rf["current"],
                        rf["desired"],
                        _read_assignments(moves["current"]) or (),
                        _read_assignments(moves["target"]) or (),
                    )
                )
        case Action.DELETE:
            reason = entry["reason"]
            if reason not in ("tombstone", "prune"):
                raise ValueError(f"{topic}: unknown delete reason {reason!r}")
            found = _read_evidence(topic, entry.get("evidence"))
            changes.append(DeleteTopic(topic, entry["partitions"]["current"], reason, found))
        case _:
            assert_never(action)
    access = tuple(_read_acl_change(a) for a in entry.get("access", ()))
    return TopicChange(
        topic, action, tuple(changes), hazards, depends_on, _read_cause(entry), access
    )


def _read_cause(entry: Json) -> Cause | None:
    cause = entry.get("cause")
    if cause is None:
        return None
    for known in CAUSES:  # narrows the str to the Literal for the type checker
        if cause == known:
            return known
    raise ValueError(f"{entry['topic']}: unknown cause {cause!r} (change or drift)")


def _read_hazard(entry: Json) -> Hazard:
    return Hazard(
        entry["code"],
        entry["message"],
        acknowledged=bool(entry.get("acknowledged", False)),
        severity=Severity(entry.get("severity", Severity.ERROR.value)),
        approval=_read_approval(entry),
    )


def _read_approval(entry: Json) -> Approval | None:
    approve_with = entry.get("approve_with")
    if not isinstance(approve_with, dict) or len(approve_with) != 1:
        return None
    value = next(iter(approve_with.values()))
    if isinstance(value, dict):  # a transition: its fields in APPROVAL_FIELDS order
        fields = [f for f in APPROVAL_FIELDS if f in value]
        return tuple((f, value[f]) for f in fields if _scalar(value[f]))
    return value if _scalar(value) else None


def _scalar(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _read_source(entry: Json | None) -> PlanSource | None:
    if entry is None:
        return None
    return PlanSource(commit=entry["commit"], specs=entry["specs"])


def _read_broker_load(entry: Json) -> BrokerLoad:
    return BrokerLoad(
        entry["broker"], entry["rack"], entry["current"], entry["desired"], entry["limit"]
    )


def made_by_json(made_by: MadeBy) -> Json:
    return {"reconciler": made_by.reconciler, "libraries": dict(made_by.libraries)}


def read_made_by(entry: Json | None) -> MadeBy | None:
    if entry is None:
        return None
    return MadeBy(entry["reconciler"], tuple(entry.get("libraries", {}).items()))
