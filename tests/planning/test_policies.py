"""Policies and hazards: each at error, warning and off, and the JSON plan's rule names."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Severity
from reconciler.planning import hazards as hazards_module
from reconciler.planning import p_codes
from reconciler.planning.plan import Plan, make_plan
from reconciler.render.json import render_json
from reconciler.spec.model import HAZARD_CODES, ClusterConfig, Policy, Presence, TopicSpec
from reconciler.spec.repo_config import load_repo_config
from tests.planning.factories import (
    approving_gates,
    checked_json,
    cluster,
    desired,
    spec,
    spread,
    topic,
)

ROOT = Path(__file__).resolve().parents[2]
LEVELS = ("error", "warning", "off")


@dataclass(frozen=True)
class PolicyCase:
    state: ClusterState
    specs: tuple[TopicSpec, ...]
    policy: Policy
    topic: str | None  # the topic the diagnostic names
    default: str = "error"
    passing: tuple[TopicSpec, ...] = field(default=())  # the same plan made compliant


POLICY_CASES: dict[str, PolicyCase] = {
    "min_replication_factor": PolicyCase(
        cluster(),
        (spec("t.thin", partitions=3, replication_factor=1),),
        Policy(min_replication_factor=2),
        "t.thin",
        passing=(spec("t.thin", partitions=3, replication_factor=2),),
    ),
    "max_partitions_per_topic": PolicyCase(
        cluster(),
        (spec("t.wide", partitions=64),),
        Policy(max_partitions_per_topic=32),
        "t.wide",
        passing=(spec("t.wide", partitions=32),),
    ),
    "name_pattern": PolicyCase(
        cluster(),
        (spec("Team_Orders"),),
        Policy(name_pattern=r"^[a-z0-9]+(\.[a-z0-9-]+)+$"),
        "Team_Orders",
        passing=(spec("team.orders"),),
    ),
    "min_insync_replicas_headroom": PolicyCase(
        cluster(),
        (spec("t.strict", replication_factor=2, config={"min.insync.replicas": "2"}),),
        Policy(),
        "t.strict",
        default="warning",
        passing=(spec("t.strict", replication_factor=3, config={"min.insync.replicas": "2"}),),
    ),
    "max_deletes": PolicyCase(
        cluster(*(topic(f"t.old{i}", spread(1, 2)) for i in range(3))),
        # Acknowledged deletes: an unacknowledged hazard would make the plan unapplyable too
        tuple(
            spec(f"t.old{i}", state=Presence.ABSENT, acknowledge=[{"delete": f"t.old{i}"}])
            for i in range(3)
        ),
        Policy(allow_delete=True, max_deletes=2),
        None,
        passing=tuple(
            spec(f"t.old{i}", state=Presence.ABSENT, acknowledge=[{"delete": f"t.old{i}"}])
            for i in range(2)
        ),
    ),
}


def _plan(state: ClusterState, specs: tuple[TopicSpec, ...], policy: Policy) -> Plan:
    """The plan under `policy`, whose gates turned off are approved (policy_gate_off is
    tested on its own in test_policy_changes.py)."""
    config = ClusterConfig("c", "b:9092", policy=approving_gates(policy))
    return make_plan(desired(*specs), state, config, "x")


def _with_level(policy: Policy, name: str, level: str | None) -> Policy:
    return Policy(
        allow_delete=policy.allow_delete,
        max_deletes=policy.max_deletes,
        min_replication_factor=policy.min_replication_factor,
        max_partitions_per_topic=policy.max_partitions_per_topic,
        name_pattern=policy.name_pattern,
        severity=((name, level),) if level else (),
    )


@pytest.mark.parametrize("level", [*LEVELS, None])
@pytest.mark.parametrize("name", POLICY_CASES)
def test_each_policy_at_each_level(name: str, level: str | None) -> None:
    case = POLICY_CASES[name]
    plan = _plan(case.state, case.specs, _with_level(case.policy, name, level))
    found = [d for d in plan.diagnostics if d.rule == name]
    effective = level or case.default
    if effective == "off":
        assert found == []
    else:
        [d] = found
        rule = next(r for r in p_codes.RULES if r.name == name)
        assert (d.code, d.severity.value, d.topic) == (rule.code, effective, case.topic)
        assert (d.location is not None) == (case.topic is not None)
        data = checked_json(plan)
        assert name in {entry["rule"] for entry in data["diagnostics"]}
    assert plan.applyable is (effective != "error")
    compliant = _plan(case.state, case.passing, _with_level(case.policy, name, level))
    assert [d for d in compliant.diagnostics if d.rule == name] == []


def test_policies_judge_what_the_plan_changes() -> None:
    """A topic already below the minimum blocks nothing until the plan touches that part."""
    state = cluster(topic("t.legacy", spread(3, 1)), topic("Legacy_Name", spread(3, 2)))
    policy = Policy(min_replication_factor=2, name_pattern=r"^[a-z.]+$", max_partitions_per_topic=2)
    untouched = _plan(
        state, (spec("t.legacy", config={"retention.ms": "1000"}), spec("Legacy_Name")), policy
    )
    assert untouched.changes and not untouched.diagnostics
    lowered = _plan(state, (spec("t.legacy", partitions=4),), policy)
    assert [d.rule for d in lowered.diagnostics] == ["max_partitions_per_topic"]


def test_omitted_counts_are_judged_at_the_broker_default() -> None:
    plan = _plan(cluster(), (spec("t.defaults"),), Policy(min_replication_factor=3))
    [d] = plan.diagnostics
    assert "replication factor 2 (the broker's default.replication.factor)" in d.message
    assert "set replication_factor: 3 or more" in d.message


def test_min_insync_replicas_inherited_from_the_broker() -> None:
    state = cluster(defaults={"min.insync.replicas": "2", "default.replication.factor": "2"})
    [d] = _plan(state, (spec("t.new", partitions=1),), Policy()).diagnostics
    assert d.severity is Severity.WARNING
    assert "min.insync.replicas 2 (inherited from the broker) is not below" in d.message
    assert "with one broker down, producers using acks=all cannot write" in d.message
    # A replication-factor change is judged too; RF 1 is min_replication_factor's business.
    moved = cluster(topic("t.x", spread(2, 3), inherited={"min.insync.replicas": "2"}))
    [d] = _plan(moved, (spec("t.x", replication_factor=2),), Policy()).diagnostics
    assert d.rule == "min_insync_replicas_headroom"
    assert not _plan(cluster(), (spec("t.one", replication_factor=1),), Policy()).diagnostics


# --- hazards ----------------------------------------------------------------------------------

HAZARD_CASES: dict[str, tuple[ClusterState, dict[str, Any]]] = {
    "key_reorder": (cluster(topic("t.h", spread(3, 2))), {"partitions": 6, "keyed": True}),
    "retention_decrease": (
        cluster(topic("t.h", spread(3, 2), overrides={"retention.ms": "604800000"})),
        {"config": {"retention.ms": "86400000"}},
    ),
    "cleanup_policy_change": (
        cluster(topic("t.h", spread(3, 2), inherited={"cleanup.policy": "delete"})),
        {"config": {"cleanup.policy": "compact"}},
    ),
    "delete": (cluster(topic("t.h", spread(3, 2))), {"state": Presence.ABSENT}),
    "replication_factor_decrease": (
        cluster(topic("t.h", spread(3, 3))),
        {"replication_factor": 2},
    ),
    "min_insync_replicas_decrease": (
        cluster(topic("t.h", spread(3, 3), overrides={"min.insync.replicas": "2"})),
        {"config": {"min.insync.replicas": "1"}},
    ),
    "unclean_leader_election": (
        cluster(topic("t.h", spread(3, 2), inherited={"unclean.leader.election.enable": "false"})),
        {"config": {"unclean.leader.election.enable": "true"}},
    ),
    "delete_retention_decrease": (
        cluster(
            topic(
                "t.h",
                spread(3, 2),
                overrides={"cleanup.policy": "compact"},
                inherited={"delete.retention.ms": "86400000"},
            )
        ),
        {"config": {"cleanup.policy": "compact", "delete.retention.ms": "0"}},
    ),
    "segment_per_record": (
        cluster(topic("t.h", spread(3, 2), inherited={"segment.ms": "604800000"})),
        {"config": {"segment.ms": "1"}},
    ),
    "max_message_bytes_decrease": (
        cluster(topic("t.h", spread(3, 2), inherited={"max.message.bytes": "1048588"})),
        {"config": {"max.message.bytes": "1024"}},
    ),
}
# The `acknowledge:` item approving each case's change (the factories' topics have no topic
# id, as on brokers before Kafka 2.8: a delete's approval then names the topic, a transition's
# has no topic_id)
APPROVALS: dict[str, dict[str, Any]] = {
    "key_reorder": {"key_reorder": {"from": 3, "to": 6}},
    "retention_decrease": {
        "retention_decrease": {"key": "retention.ms", "from": 604800000, "to": 86400000}
    },
    "cleanup_policy_change": {
        "cleanup_policy_change": {"key": "cleanup.policy", "from": "delete", "to": "compact"}
    },
    "delete": {"delete": "t.h"},
    "replication_factor_decrease": {"replication_factor_decrease": {"from": 3, "to": 2}},
    "min_insync_replicas_decrease": {
        "min_insync_replicas_decrease": {"key": "min.insync.replicas", "from": 2, "to": 1}
    },
    "unclean_leader_election": {
        "unclean_leader_election": {
            "key": "unclean.leader.election.enable",
            "from": "false",
            "to": "true",
        }
    },
    "delete_retention_decrease": {
        "delete_retention_decrease": {"key": "delete.retention.ms", "from": 86400000, "to": 0}
    },
    "segment_per_record": {"segment_per_record": {"key": "segment.ms", "from": 604800000, "to": 1}},
    "max_message_bytes_decrease": {
        "max_message_bytes_decrease": {"key": "max.message.bytes", "from": 1048588, "to": 1024}
    },
}


@pytest.mark.parametrize("acknowledged", [False, True])
@pytest.mark.parametrize("level", [*LEVELS, None])
@pytest.mark.parametrize("code", HAZARD_CASES)
def test_each_hazard_at_each_level(code: str, level: str | None, acknowledged: bool) -> None:
    state, fields = HAZARD_CASES[code]
    ack: dict[str, Any] = {"acknowledge": [APPROVALS[code]]} if acknowledged else {}
    policy = Policy(allow_delete=True, severity=((code, level),) if level else ())
    plan = _plan(state, (spec("t.h", **fields, **ack),), policy)
    hazards = [h for c in plan.changes for h in c.hazards]
    effective = level or "error"
    assert plan.changes
    # Applyable is what apply accepts: a hazard blocks it unless acknowledged or not an error
    blocks = effective == "error" and not acknowledged
    assert plan.applyable is not blocks
    assert (plan.summary.errors, json.loads(render_json(plan))["applyable"]) == (0, not blocks)
    if effective == "off":
        assert hazards == []
        assert plan.unacknowledged_hazards == ()
        return
    [hazard] = hazards
    assert (hazard.code, hazard.acknowledged, hazard.severity.value) == (
        code,
        acknowledged,
        effective,
    )
    assert hazard.blocks_apply is blocks
    assert plan.unacknowledged_hazards == ((("t.h", hazard),) if blocks else ())
    written = hazards_module.entry(code, hazard.approval)
    assert hazard.approve_with == APPROVALS[code]
    if acknowledged:
        assert f"approved by `{written}` in the topic's acknowledge:" in hazard.message
    elif blocks:
        assert (
            f"apply refuses it until the topic's spec approves it with `- {written}` under "
            "`acknowledge:`" in hazard.message
        )
    assert not [d for d in plan.diagnostics if d.rule.startswith("acknowledge_")]
    data = checked_json(plan)
    [entry] = [h for c in data["changes"] for h in c["hazards"]]
    assert (entry["code"], entry["acknowledged"], entry["severity"]) == (
        code,
        acknowledged,
        effective,
    )
    assert entry["approve_with"] == APPROVALS[code]


def test_a_pruned_delete_is_acknowledged_by_the_flag() -> None:
    state = cluster(topic("t.stray", spread(1, 2)))
    plan = make_plan(
        desired(), state, ClusterConfig("c", "b", policy=Policy(allow_delete=True)), "x", prune=True
    )
    [hazard] = plan.changes[0].hazards
    assert hazard.acknowledged and not plan.unacknowledged_hazards
    assert "acknowledged by --prune" in hazard.message


def test_delete_protected_stays_an_error_whatever_is_acknowledged() -> None:
    state = cluster(topic("t.kept", spread(1, 2)))
    kept = spec("t.kept", state=Presence.ABSENT, protect=True, acknowledge=[{"delete": "t.kept"}])
    policy = Policy(allow_delete=True, severity=(("delete", "off"),))
    plan = _plan(state, (kept,), policy)
    # no delete is planned, so its approval approves nothing: a stale one
    assert sorted(d.rule for d in plan.diagnostics) == ["acknowledge_stale", "delete_protected"]
    assert not plan.applyable and "delete_protected" in json.dumps(checked_json(plan))


# --- configuration ----------------------------------------------------------------------------


def test_severity_is_read_from_reconciler_yaml(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        "clusters:\n"
        "  prod:\n"
        "    bootstrap: k:9092\n"
        "    policy:\n"
        "      min_replication_factor: 3\n"
        "      severity: {min_replication_factor: warning, name_pattern: off,\n"
        "                 key_reorder: 'off', max_broker_partitions: error}\n"
    )
    config, found = load_repo_config(tmp_path, {})
    # YAML 1.2 reads the unquoted off as "off"; YAML 1.1 tools read false, which means off too.
    assert [(d.code, d.severity.value) for d in found] == [("R015", "warning")]
    assert config is not None
    policy = config.clusters["prod"].policy
    assert policy.severity == (
        ("key_reorder", "off"),
        ("max_broker_partitions", "error"),
        ("min_replication_factor", "warning"),
        ("name_pattern", "off"),
    )
    assert p_codes.level(policy, "min_insync_replicas_headroom") == "warning"
    assert p_codes.level(policy, "name_pattern") == "off"


def test_unknown_severity_names_and_levels_are_schema_errors(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        "clusters:\n  prod:\n    bootstrap: k:9092\n"
        "    policy: {severity: {partition_decrease: warning, key_reorder: maybe}}\n"
    )
    _, found = load_repo_config(tmp_path, {})
    assert len([d for d in found if d.is_error]) == 2, found


def test_the_schema_lists_exactly_the_configurable_rules() -> None:
    schema = json.loads((ROOT / "schemas" / "reconciler.schema.json").read_text())
    policy = schema["$defs"]["cluster"]["properties"]["policy"]["properties"]
    assert set(policy["severity"]["properties"]) == set(p_codes.CONFIGURABLE)
    assert set(p_codes.HAZARD_LEVELS) == set(HAZARD_CODES)
    # the table's default severities are the ones policy.severity starts from
    assert {
        k.code: k.default
        for k in hazards_module.KINDS
        if k.code not in hazards_module.CLUSTER_KINDS
    } == p_codes.HAZARD_LEVELS


def test_every_plan_rule_is_documented() -> None:
    text = (ROOT / "docs" / "rules.md").read_text()
    for rule in p_codes.RULES:
        assert f"| {rule.code} | `{rule.name}` | {rule.severity.value} |" in text, rule
        if rule.name in p_codes.CONFIGURABLE:
            assert f"{rule.severity.value}[{rule.code}]" in text, rule  # an example excerpt
    for code in p_codes.HAZARD_LEVELS:
        assert f"hazard {code} (" in text, code


def test_the_plan_schema_lists_exactly_the_hazard_kinds() -> None:
    schema = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
    codes = schema["$defs"]["hazard"]["properties"]["code"]["enum"]
    assert codes == [k.code for k in hazards_module.KINDS]
    text = (ROOT / "docs" / "rules.md").read_text()
    for kind in hazards_module.KINDS:  # one row each in the table of hazards and approvals
        assert f"| `{kind.code}` | " in text, kind.code
