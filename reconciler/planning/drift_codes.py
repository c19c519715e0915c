"""The planner's rules that hold a change back or mark drift, and how each shows in drift.

One list, named by the planner (the modules below apply each rule; planning/drift.py turns
every error of the plan into a `blocked` item) and by the fleet job (fleet/drift_columns.py maps
every entry to the column expression that computes it, or says why only the planner can), so a new
rule is a test failure in both places until each says what it does with it:

    shows "blocked"   an error of the plan: a drift item of kind `blocked` whose field is the
                      rule's name (the change it concerns is left out, or kept but refused)
    shows a kind      the rule's finding is drift of that kind (leftover_throttle: config)
    shows None        the topic is out of reach: no drift item at all (ignored_topic)

Configurable rules are listed at their default level (p_codes.CONFIGURABLE): an error by
default shows as `blocked`; a warning raised to error by `policy.severity` shows so too.
tests/planning/test_drift_codes.py holds the list to p_codes.RULES: every rule that is an
error by default is here.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.diagnostics import Rule
from reconciler.planning import p_codes
from reconciler.planning.drift import DriftKind
from reconciler.spec import r_codes as spec_rules


@dataclass(frozen=True, slots=True)
class DriftRule:
    rule: Rule
    shows: DriftKind | None  # see the module docstring
    where: str  # the planner module that applies it


DRIFT_RULES: tuple[DriftRule, ...] = (
    DriftRule(p_codes.PARTITION_DECREASE, "blocked", "diff.update"),
    DriftRule(p_codes.REPLICATION_FACTOR_UNREACHABLE, "blocked", "diff.create, diff.update"),
    DriftRule(p_codes.REASSIGNMENT_IN_PROGRESS, "blocked", "diff.update"),
    DriftRule(p_codes.UNKNOWN_BROKER, "blocked", "diff.create, diff.update"),
    DriftRule(p_codes.BROKER_DOWN, "blocked", "diff.create, diff.update"),
    DriftRule(p_codes.UNKNOWN_TOPIC_CONFIG, "blocked", "cluster_configs.unknown_keys"),
    DriftRule(p_codes.TOPIC_COLLISION, "blocked", "diff.create"),
    DriftRule(p_codes.DELETE_PROTECTED, "blocked", "diff.tombstone"),
    DriftRule(p_codes.DELETE_NOT_ALLOWED, "blocked", "diff.tombstone"),
    DriftRule(p_codes.DELETE_WITH_UNREAD_SPECS, "blocked", "diff.tombstone"),
    DriftRule(p_codes.INVALID_IGNORE_PATTERN, "blocked", "diff.ignore_patterns"),
    DriftRule(p_codes.IGNORED_TOPIC, None, "diff.ignored_spec, ownership.in_scope"),
    DriftRule(spec_rules.MIN_INSYNC_REPLICAS, "blocked", "insync.check_min_insync"),
    DriftRule(p_codes.MAX_BROKER_PARTITIONS, "blocked", "limits.check_limits"),
    DriftRule(p_codes.MAX_PARTITIONS, "blocked", "limits.check_limits"),
    DriftRule(p_codes.MIN_REPLICATION_FACTOR, "blocked", "policies.min_replication_factor"),
    DriftRule(p_codes.MAX_PARTITIONS_PER_TOPIC, "blocked", "policies.max_partitions_per_topic"),
    DriftRule(p_codes.NAME_PATTERN, "blocked", "policies.name_pattern"),
    DriftRule(p_codes.MAX_DELETES, "blocked", "policies.max_deletes"),
    DriftRule(p_codes.LEFTOVER_THROTTLE, "config", "leftovers.diagnostics"),
)

# Errors of a plan that never reach drift: raised outside the planner, by a command drift does
# not share, each with why (tests/planning/test_drift_codes.py holds RULES to both lists)
NOT_IN_DRIFT: dict[str, str] = {
    p_codes.KAFKA_REFUSED.name: "Kafka's validate_only answers, asked by a live `plan` alone "
    "(workflow/plan.py kafka_answers); drift and the fleet job ask the brokers nothing",
}

NAMES: frozenset[str] = frozenset(r.rule.name for r in DRIFT_RULES)
