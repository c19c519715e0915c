"""The ACLs reconciler's principals need: one table, from Kafka's operations per request.

`REQUESTS` lists every request the tool sends that an authorizer checks, who sends it and what
it needs (Kafka's "Operations and Resources on Protocols"). Everything else is made from it:
the table of `reconciler help security` (`markdown_table`; a test keeps the page equal to it),
and the `kafka-acls` commands `reconciler init` prints for the plan and apply principals
(`commands`). Kafka implies Describe from Read, Write, Delete and Alter, and DescribeConfigs
from AlterConfigs; the table names what each request checks, not what implies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# plan: every principal (plan, drift, snapshot, import, and apply's own plan); apply: the one
# that changes the cluster; delete: apply's, once policy.allow_delete is true
Role = Literal["plan", "apply", "delete"]
LOCK_AND_AUDIT = ("--topic _reconciler_lock", "--topic _reconciler_audit")
USERS_DIGESTS = "--topic _reconciler_users"
EVERY_TOPIC, CLUSTER, EVERY_GROUP = "--topic '*'", "--cluster", "--group '*'"
_ORDER = (
    "Describe",
    "DescribeConfigs",
    "Create",
    "Alter",
    "AlterConfigs",
    "Read",
    "Write",
    "Delete",
)


@dataclass(frozen=True, slots=True)
class Request:
    name: str  # the Kafka request(s)
    sent_by: str
    operations: tuple[str, ...]
    resource: str  # as the documentation says it
    grants: tuple[str, ...]  # the kafka-acls resource options that grant it
    role: Role


_EVIDENCE = "plan and apply, when the plan deletes or adds partitions (the in-use evidence)"
REQUESTS = (
    Request("Metadata", "every read", ("Describe",),
            "Topic (topics without it are silently left out)", (EVERY_TOPIC,), "plan"),
    Request("DescribeConfigs", "every read", ("DescribeConfigs",),
            "Topic; Cluster for the broker defaults", (EVERY_TOPIC, CLUSTER), "plan"),
    Request("ListPartitionReassignments", "every read", ("Describe",), "Cluster", (CLUSTER,),
            "plan"),
    Request("ListGroups", _EVIDENCE, ("Describe",),
            "Cluster (without it Kafka lists only the groups the principal may Describe, so the "
            "list proves nothing)", (CLUSTER,), "plan"),
    Request("DescribeGroups, OffsetFetch (FindCoordinator)", _EVIDENCE, ("Describe",),
            "Group: every group (`--group '*'`)", (EVERY_GROUP,), "plan"),
    Request("ListOffsets", _EVIDENCE, ("Describe",), "Topic", (EVERY_TOPIC,), "plan"),
    Request("CreateTopics", "apply (and its validate_only check)", ("Create",),
            "Cluster, or the Topic", (EVERY_TOPIC, CLUSTER), "apply"),
    Request("CreatePartitions", "apply", ("Alter",), "Topic", (EVERY_TOPIC,), "apply"),
    Request("IncrementalAlterConfigs", "apply", ("AlterConfigs",),
            "Topic (Cluster for `--throttle`)", (EVERY_TOPIC, CLUSTER), "apply"),
    Request("AlterPartitionReassignments", "apply (replication factor)", ("Alter",), "Cluster",
            (CLUSTER,), "apply"),
    Request("lock and audit", "apply", ("Read", "Write", "Create", "Delete"),
            "topics `_reconciler_lock`, `_reconciler_audit` (the lock is released by deleting "
            "its topic)", LOCK_AND_AUDIT, "apply"),
    Request("DescribeAcls", "every read, when a spec declares `access:` (`reconciler help access`)",
            ("Describe",), "Cluster", (CLUSTER,), "plan"),
    Request("CreateAcls, DeleteAcls", "apply, when the plan grants or revokes ACLs", ("Alter",),
            "Cluster", (CLUSTER,), "apply"),
    Request("DescribeClientQuotas", "every read, when reconciler.yaml declares the cluster's "
            "`quotas:` (`reconciler help access`)", ("DescribeConfigs",), "Cluster", (CLUSTER,),
            "plan"),
    Request("AlterClientQuotas", "apply, when the plan changes client quotas",
            ("AlterConfigs",), "Cluster", (CLUSTER,), "apply"),
    Request("DescribeUserScramCredentials", "every read, when reconciler.yaml declares the "
            "cluster's `users:` (`reconciler help access`)", ("Describe",), "Cluster", (CLUSTER,),
            "plan"),
    Request("SCRAM digests read", "every read, when reconciler.yaml declares `users:`",
            ("Read",), "topic `_reconciler_users` (the digests of the secrets apply set)",
            (USERS_DIGESTS,), "plan"),
    Request("AlterUserScramCredentials", "apply, when the plan changes SCRAM users",
            ("Alter",), "Cluster", (CLUSTER,), "apply"),
    Request("SCRAM digests written", "apply, when the plan changes SCRAM users",
            ("Write", "Create"), "topic `_reconciler_users`", (USERS_DIGESTS,), "apply"),
    Request("DeleteTopics", "apply, once `policy.allow_delete` is true", ("Delete",), "Topic",
            (EVERY_TOPIC,), "delete"),
)  # fmt: skip

_ROLES: dict[Role, tuple[Role, ...]] = {
    "plan": ("plan",),
    "apply": ("plan", "apply"),
    "delete": ("delete",),
}


def grants(role: Role) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(operations, resources) pairs granting what `role` needs, resources with the same
    operations in one pair (one kafka-acls command each)."""
    ops: dict[str, set[str]] = {}
    for request in REQUESTS:
        if request.role in _ROLES[role]:
            for resource in request.grants:
                ops.setdefault(resource, set()).update(request.operations)
    merged: dict[tuple[str, ...], list[str]] = {}
    for resource, found in ops.items():
        merged.setdefault(tuple(o for o in _ORDER if o in found), []).append(resource)
    return [(operations, tuple(resources)) for operations, resources in merged.items()]


def commands(bootstrap: str, principal: str, role: Role) -> list[str]:
    """The kafka-acls commands granting `principal` what `role` needs."""
    return [
        f"kafka-acls --bootstrap-server {bootstrap} --add --allow-principal {principal} "
        + " ".join(f"--operation {o}" for o in operations)
        + " "
        + " ".join(resources)
        for operations, resources in grants(role)
    ]


def markdown_table() -> str:
    """The table of `reconciler help security` ("The ACLs each command needs")."""
    lines = ["| request | sent by | operation | resource |", "|---|---|---|---|"]
    lines += [
        f"| {r.name} | {r.sent_by} | {', '.join(r.operations)} | {r.resource} |" for r in REQUESTS
    ]
    return "\n".join(lines)
