"""Policy changes: the cluster's `policy` (and `policy.severity`) as the reviewed change leaves
it, compared with the base, shown as its own section of the plan.

`policy_changes` lists each setting whose value differs from the base (the policy at
`--changed-since REF`) and each gate this policy turns off, compared with the defaults. A setting
that turns a gate off carries the `policy_gate_off` hazard: a `policy.severity` entry below its
default level (error -> warning or off, warning -> off). `allow_delete: true` is shown when
it changes but is no hazard: each delete is still approved topic by topic (delete, in_use). Its
approval names the setting, its default and its new value, `{policy_gate_off: {key: severity.delete,
from: error, to: off}}`, in the cluster's `policy.acknowledge:` in reconciler.yaml: bound to the
default rather than to the base, so the plan of the pull request and the plan apply derives
on merge (which has no base) ask for the same item.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Severity
from reconciler.planning import p_codes
from reconciler.planning.changes import Hazard, Transition, transition
from reconciler.planning.hazards import compared, entry
from reconciler.spec.model import Acknowledgment, Policy
from reconciler.spec.units import format_duration_ms

POLICY_GATE_OFF = "policy_gate_off"
_RANK = {"off": 0, "warning": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """One setting of the cluster's policy: its value at the base and now."""

    setting: str  # "severity.delete", "allow_delete", "max_deletes", ...
    before: str  # at the base (the defaults when the plan has none)
    after: str
    hazards: tuple[Hazard, ...] = ()  # policy_gate_off, when it turns a gate off


def _settings(policy: Policy) -> dict[str, str]:
    """Every policy setting a reviewer reads, as text; severities at their effective level."""
    found = {
        "allow_delete": "true" if policy.allow_delete else "false",
        "max_deletes": str(policy.max_deletes),
        "min_replication_factor": str(policy.min_replication_factor),
        "max_partitions_per_topic": str(policy.max_partitions_per_topic or "none"),
        "name_pattern": policy.name_pattern or "none",
        "ignore": ", ".join(policy.ignore) or "none",
        "manage": ", ".join(policy.manage) or "every topic",
        "idle_before_delete": format_duration_ms(policy.idle_before_delete_ms),
    }
    for name in p_codes.CONFIGURABLE:
        found[f"severity.{name}"] = p_codes.level(policy, name)
    return found


def _gate_off(setting: str, default: str, after: str) -> bool:
    """A severity below its default level. (allow_delete: true is shown when it changes, but
    is no hazard: deleting is still approved topic by topic, delete and in_use.)"""
    return setting.startswith("severity.") and _RANK[after] < _RANK[default]


def policy_changes(
    policy: Policy, base: Policy | None, approvals: tuple[Acknowledgment, ...] = ()
) -> tuple[PolicyChange, ...]:
    """The settings whose value differs from `base`, and those turning a gate off whatever the
    base (with no base, only these: a standing setting is not news to a reviewer, a gate off
    is), each gate carrying its hazard, settled against `approvals` (the cluster's
    `policy.acknowledge:`) and its message naming the item to write."""
    defaults = _settings(Policy())
    now = _settings(policy)
    then = _settings(base) if base is not None else now
    changes = []
    for setting, after in now.items():
        default = defaults[setting]
        gate = _gate_off(setting, default, after)
        if then[setting] == after and not gate:
            continue
        hazards: tuple[Hazard, ...] = ()
        if gate:
            hazards = (_hazard(setting, default, after, approvals),)
        changes.append(PolicyChange(setting, then[setting], after, hazards))
    return tuple(changes)


def _hazard(
    setting: str, default: str, after: str, approvals: tuple[Acknowledgment, ...]
) -> Hazard:
    name = setting.removeprefix("severity.")
    what = f"policy.{setting} is {after} (default {default})"
    consequence = (
        f"the plan no longer shows or stops {name} on this cluster"
        if after == "off"
        else f"{name} is shown but no longer blocks apply on this cluster"
    )
    return cluster_hazard(
        POLICY_GATE_OFF, f"{what}: {consequence}", transition(default, after, None, setting),
        approvals,
    )  # fmt: skip


def cluster_hazard(
    code: str, message: str, approval: Transition, approvals: tuple[Acknowledgment, ...]
) -> Hazard:
    """A hazard of the cluster rather than of a topic (a gate turned off, a quota lowered),
    approved by `{code: approval}` in the cluster's `policy.acknowledge:`, always an error
    (policy.severity cannot turn off the approval of its own changes)."""
    wanted = compared(approval)
    approved = any(a.code == code and a.value == wanted for a in approvals)
    written = entry(code, approval)
    tail = (
        f"approved by `{written}` in the cluster's policy.acknowledge:"
        if approved
        else f"apply refuses the plan until the cluster's policy approves it with `- {written}` "
        "under `policy.acknowledge:` in reconciler.yaml, in the reviewed change"
    )
    return Hazard(code, f"{message}; {tail}", approved, Severity.ERROR, approval)


def stale_approvals(policy: Policy, hazards: Iterable[Hazard]) -> tuple[Diagnostic, ...]:
    """`policy.acknowledge:` items approving none of the cluster's `hazards` (the gates this
    policy turns off, the quotas the plan lowers): a warning at each (acknowledge_stale), as a
    topic's are: the gate was turned back on, the quota applied, or the item names another
    value; remove it."""
    approved = {(h.code, compared(h.approval)) for h in hazards if h.approval is not None}
    return tuple(
        p_codes.ACKNOWLEDGE_STALE(
            f"policy.acknowledge: `{entry(item.code, item.value)}` approves no "
            f"{_APPROVES.get(item.code, 'change of this plan')}: remove it (it never approves "
            "another one)",
            item.location,
        )
        for item in policy.acknowledge
        if (item.code, item.value) not in approved
    )


_APPROVES = {POLICY_GATE_OFF: "gate this policy turns off"}
