"""A change to `policy` or `policy.severity` is its own section of the plan (text, JSON,
Markdown); one turning a gate off (a severity below its default) carries policy_gate_off, which
only the cluster's `policy.acknowledge:` approves."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from reconciler.planning.plan import Plan, make_plan
from reconciler.render.json import render_json
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.model import Acknowledgment, ClusterConfig, Policy, Presence
from tests.planning.factories import checked_json, cluster, desired, spec, spread, topic

GATES_OFF = Policy(allow_delete=True, severity=(("delete", "off"), ("in_use", "off")))


def _plan(policy: Policy, base: Policy | None = None) -> Plan:
    state = cluster(topic("t.old", spread(3, 2)))
    specs = desired(spec("t.old", state=Presence.ABSENT))
    config = ClusterConfig("c", "b:9092", policy=policy)
    return make_plan(specs, state, config, "x", base_policy=base)


def _approval(setting: str, default: str, level: str) -> Acknowledgment:
    return Acknowledgment.of({"policy_gate_off": {"key": setting, "from": default, "to": level}})


def test_a_pull_request_turning_gates_off_with_a_delete_is_shown_and_not_applyable() -> None:
    plan = _plan(GATES_OFF, base=Policy(allow_delete=True))
    # the delete itself carries no hazard any more: the gates' own hazards stop it
    assert [h for c in plan.changes for h in c.hazards] == []
    assert [(p.setting, p.before, p.after) for p in plan.policy_changes] == [
        ("severity.delete", "error", "off"),
        ("severity.in_use", "error", "off"),
    ]
    assert not plan.applyable
    [(where, hazard), _] = plan.unacknowledged_hazards
    assert (where, hazard.code) == ("policy", "policy_gate_off")
    assert hazard.approve_with == {
        "policy_gate_off": {"key": "severity.delete", "from": "error", "to": "off"}
    }
    item = '`- {policy_gate_off: {key: severity.delete, from: error, to: "off"}}`'
    assert f"approves it with {item} under `policy.acknowledge:`" in hazard.message

    text = render_text(plan)
    assert "Policy changes (reconciler.yaml):" in text
    assert "~ policy.severity.delete: error -> off" in text
    assert "! hazard policy_gate_off (needs acknowledgment)" in text
    markdown = render_markdown(plan)
    assert "### Policy changes" in markdown and "**Hazard** `policy_gate_off`" in markdown
    data: dict[str, Any] = checked_json(plan)  # validated and round-tripped
    assert data == json.loads(render_json(plan))
    assert [p["setting"] for p in data["policy_changes"]] == ["severity.delete", "severity.in_use"]


def test_the_clusters_policy_acknowledge_approves_exactly_that_gate() -> None:
    approved = dataclasses.replace(
        GATES_OFF,
        acknowledge=(
            _approval("severity.delete", "error", "off"),
            _approval("severity.in_use", "error", "off"),
        ),
    )
    plan = _plan(approved)
    assert plan.applyable and all(h.acknowledged for p in plan.policy_changes for h in p.hazards)
    # an approval of another level (warning) does not approve off
    other = dataclasses.replace(
        GATES_OFF, acknowledge=(_approval("severity.delete", "error", "warning"),)
    )
    assert len(_plan(other).unacknowledged_hazards) == 2


def test_with_no_base_only_gates_off_are_shown_and_with_a_base_every_setting_changed() -> None:
    loose = Policy(allow_delete=True, max_deletes=20)
    assert _plan(loose).policy_changes == ()  # standing settings, no gate off: nothing to show
    changed = _plan(loose, base=Policy(allow_delete=False)).policy_changes
    assert [(p.setting, p.before, p.after, p.hazards) for p in changed] == [
        ("allow_delete", "false", "true", ()),
        ("max_deletes", "5", "20", ()),
    ]
    # a gate off stays shown while the policy keeps it off, base or not
    assert [p.setting for p in _plan(GATES_OFF, base=GATES_OFF).policy_changes] == [
        "severity.delete",
        "severity.in_use",
    ]


def test_a_policy_approval_of_no_gate_is_reported_at_its_place() -> None:
    left = dataclasses.replace(
        Policy(allow_delete=True), acknowledge=(_approval("severity.delete", "error", "off"),)
    )
    [stale] = [d for d in _plan(left).diagnostics if d.rule == "acknowledge_stale"]
    assert "approves no gate this policy turns off: remove it" in stale.message
