"""The plan's diagnostic rules: a stable code and snake_case name for each problem planning finds.

Codes P1xx belong to the planner (`reconciler help rules` explains each with an example). Each is a
`reconciler.diagnostics.Rule`, the type validate's R codes (spec/r_codes.py) use too; calling one
builds its `Diagnostic`, with the caller's message and, for a configurable rule, the severity
the cluster's policy gives it.

Some rules are configurable: `policy.severity` in reconciler.yaml sets each to `error`,
`warning` or `off` by name (CONFIGURABLE lists the names and their defaults: the KIP-578 limits,
the policies and the hazards). `level()` resolves what one cluster's policy says.
"""

from __future__ import annotations

from typing import Literal

from reconciler.diagnostics import Rule, Severity
from reconciler.spec.model import HAZARD_CODES, Policy

Level = Literal["error", "warning", "off"]

_ERROR, _WARNING = Severity.ERROR, Severity.WARNING

PARTITION_DECREASE = Rule("P101", "partition_decrease", _ERROR)
REPLICATION_FACTOR_UNREACHABLE = Rule("P102", "replication_factor_unreachable", _ERROR)
REASSIGNMENT_IN_PROGRESS = Rule("P103", "reassignment_in_progress", _ERROR)
UNKNOWN_BROKER = Rule("P104", "unknown_broker", _ERROR)
TOPIC_COLLISION = Rule("P105", "topic_collision", _ERROR)
DELETE_PROTECTED = Rule("P106", "delete_protected", _ERROR)
DELETE_NOT_ALLOWED = Rule("P107", "delete_not_allowed", _ERROR)
MAX_DELETES = Rule("P108", "max_deletes", _ERROR)
IGNORED_TOPIC = Rule("P109", "ignored_topic", _WARNING)
INVALID_IGNORE_PATTERN = Rule("P110", "invalid_ignore_pattern", _ERROR)
# KIP-578 limits (limits.py)
MAX_BROKER_PARTITIONS = Rule("P111", "max_broker_partitions", _ERROR)
MAX_PARTITIONS = Rule("P112", "max_partitions", _ERROR)
# Policies (policies.py)
MIN_REPLICATION_FACTOR = Rule("P113", "min_replication_factor", _ERROR)
MAX_PARTITIONS_PER_TOPIC = Rule("P114", "max_partitions_per_topic", _ERROR)
NAME_PATTERN = Rule("P115", "name_pattern", _ERROR)
MIN_INSYNC_REPLICAS_HEADROOM = Rule("P116", "min_insync_replicas_headroom", _WARNING)
# What other applies left on the cluster (leftover_warnings.py)
LEFTOVER_THROTTLE = Rule("P130", "leftover_throttle", _WARNING)
APPLY_LOCK_HELD = Rule("P131", "apply_lock_held", _WARNING)
# Deletes while a file that could hold topics is not read (spec/discovery.py)
DELETE_WITH_UNREAD_SPECS = Rule("P117", "delete_with_unread_specs", _ERROR)
# A change that needs a broker existing replicas name but the cluster does not list (diff.py)
BROKER_DOWN = Rule("P118", "broker_down", _ERROR)
# A spec's topic config the cluster's DescribeConfigs does not list (cluster_configs.py), and
# one nobody could check (no topic's configs were read)
UNKNOWN_TOPIC_CONFIG = Rule("P119", "unknown_topic_config", _ERROR)
TOPIC_CONFIG_UNCHECKED = Rule("P120", "topic_config_unchecked", _WARNING)
# Approvals (hazards.py review)
ACKNOWLEDGE_UNBOUND = Rule("P132", "acknowledge_unbound", _WARNING)
ACKNOWLEDGE_STALE = Rule("P133", "acknowledge_stale", _WARNING)
# A plan from a snapshot deletes, but no in-use evidence was read (workflow.plan)
IN_USE_NOT_READ = Rule("P134", "in_use_not_read", _WARNING)
# Kafka's validate_only answers to the plan's requests, asked at plan time (workflow.plan)
KAFKA_REFUSED = Rule("P135", "kafka_refused", _ERROR)
KAFKA_UNCHECKED = Rule("P136", "kafka_unchecked", _WARNING)
# A plan from a snapshot of a spec declaring access or quotas: a snapshot holds no ACLs and no
# client quotas (workflow.plan)
ACCESS_NOT_READ = Rule("P137", "access_not_read", _WARNING)
# A raw `acls:` entry the scope does not own (raw_acl_changes.py): neither granted nor revoked;
# from P140, so the slices of issue 42 built side by side keep apart
ACL_OUTSIDE_SCOPE = Rule("P140", "acl_outside_scope", _WARNING)
# A revoke another kept binding undoes, and a topic's `access:` a wide binding bypasses
# (acl_shadowing.py)
ACL_REVOKE_KEPT = Rule("P141", "acl_revoke_kept", _WARNING)
ACCESS_BYPASSED = Rule("P142", "access_bypassed", _WARNING)

RULES: tuple[Rule, ...] = (
    PARTITION_DECREASE,
    REPLICATION_FACTOR_UNREACHABLE,
    REASSIGNMENT_IN_PROGRESS,
    UNKNOWN_BROKER,
    TOPIC_COLLISION,
    DELETE_PROTECTED,
    DELETE_NOT_ALLOWED,
    MAX_DELETES,
    IGNORED_TOPIC,
    INVALID_IGNORE_PATTERN,
    MAX_BROKER_PARTITIONS,
    MAX_PARTITIONS,
    MIN_REPLICATION_FACTOR,
    MAX_PARTITIONS_PER_TOPIC,
    NAME_PATTERN,
    MIN_INSYNC_REPLICAS_HEADROOM,
    LEFTOVER_THROTTLE,
    APPLY_LOCK_HELD,
    DELETE_WITH_UNREAD_SPECS,
    BROKER_DOWN,
    UNKNOWN_TOPIC_CONFIG,
    TOPIC_CONFIG_UNCHECKED,
    ACKNOWLEDGE_UNBOUND,
    ACKNOWLEDGE_STALE,
    IN_USE_NOT_READ,
    KAFKA_REFUSED,
    KAFKA_UNCHECKED,
    ACCESS_NOT_READ,
    ACL_OUTSIDE_SCOPE,
    ACL_REVOKE_KEPT,
    ACCESS_BYPASSED,
)

# Hazards (hazards.py finds them; spec/model.py HAZARD_CODES names them): error = apply
# refuses the change unless the topic's spec acknowledges it; warning = shown, never blocks;
# off = not shown. Every hazard starts as an error.
HAZARD_LEVELS: dict[str, Level] = dict.fromkeys(HAZARD_CODES, "error")

# Every name `policy.severity` accepts, with its default level.
CONFIGURABLE: dict[str, Level] = {
    MAX_BROKER_PARTITIONS.name: "error",
    MAX_PARTITIONS.name: "error",
    MIN_REPLICATION_FACTOR.name: "error",
    MAX_PARTITIONS_PER_TOPIC.name: "error",
    NAME_PATTERN.name: "error",
    MIN_INSYNC_REPLICAS_HEADROOM.name: "warning",
    MAX_DELETES.name: "error",
    **HAZARD_LEVELS,
}


def level(policy: Policy, name: str) -> Level:
    """The level `name` has on a cluster: its `policy.severity` entry, else the default."""
    match dict(policy.severity).get(name):
        case "error":
            return "error"
        case "warning":
            return "warning"
        case "off":
            return "off"
        case _:
            return CONFIGURABLE[name]


def severity(policy: Policy, name: str) -> Severity | None:
    """The severity a configurable rule's diagnostics get; None when it is off."""
    match level(policy, name):
        case "error":
            return Severity.ERROR
        case "warning":
            return Severity.WARNING
        case _:
            return None
