"""The plan: one value holding everything `reconciler plan` shows and `apply` executes.

`make_plan` runs the pure steps in order: diff (changes, diagnostics, unmanaged topics), then
order (phase, dependency DAG, name). Renderers and the JSON form read a `Plan`; nothing else
computes from the specs or the cluster state after this point.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Severity, sort_key
from reconciler.planning.changes import Action, TopicChange
from reconciler.planning.diff import diff
from reconciler.planning.order import order
from reconciler.spec.model import ClusterConfig, DesiredState


@dataclass(frozen=True, slots=True)
class Summary:
    create: int
    update: int
    delete: int
    errors: int
    warnings: int


@dataclass(frozen=True, slots=True)
class Plan:
    cluster: str
    based_on: str  # fingerprint of the cluster state the plan was computed from
    changes: tuple[TopicChange, ...]  # in execution order
    diagnostics: tuple[Diagnostic, ...] = ()  # sorted: place, then code
    unmanaged: tuple[str, ...] = ()  # sorted: topics no spec mentions (internal/ignored left out)

    @property
    def applyable(self) -> bool:
        """No error diagnostics. An empty plan is applyable: applying it does nothing."""
        return not any(d.is_error for d in self.diagnostics)

    @property
    def summary(self) -> Summary:
        actions = [c.action for c in self.changes]
        severities = [d.severity for d in self.diagnostics]
        return Summary(
            create=actions.count(Action.CREATE),
            update=actions.count(Action.UPDATE),
            delete=actions.count(Action.DELETE),
            errors=severities.count(Severity.ERROR),
            warnings=severities.count(Severity.WARNING),
        )


def diagnostic_order(d: Diagnostic) -> tuple[tuple[str, int, int, str], str, str, str]:
    """Place and code first (diagnostics.sort_key), then topic, rule and message for ties."""
    return (sort_key(d), d.topic or "", d.rule, d.message)


def make_plan(
    desired: DesiredState,
    state: ClusterState,
    cluster: ClusterConfig,
    based_on: str,
    prune: bool = False,
) -> Plan:
    """The plan for `cluster`; `based_on` is the state's fingerprint, computed by the caller."""
    changes, diagnostics, unmanaged = diff(desired, state, cluster.policy, prune=prune)
    return Plan(
        cluster=cluster.name,
        based_on=based_on,
        changes=order(changes),
        diagnostics=tuple(sorted(diagnostics, key=diagnostic_order)),
        unmanaged=unmanaged,
    )
