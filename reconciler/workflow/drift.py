"""drift: what differs between the specs and the live cluster, the planner's findings as drift."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.state import ClusterState
from reconciler.planning.acl_derivation import reads_acls
from reconciler.planning.drift import DriftReport
from reconciler.planning.drift import drift as find_drift
from reconciler.planning.plan import make_plan
from reconciler.workflow.connection import read_state
from reconciler.workflow.context import Context


@dataclass(frozen=True, slots=True)
class DriftRun:
    report: DriftReport
    state: ClusterState  # what was read, for --snapshot-out


def drift(context: Context, cluster: str) -> DriftRun:
    """What differs between the specs and the live cluster: the planner's findings, as drift."""
    specs = context.specs(cluster)
    state = read_state(specs.cluster, acls=reads_acls(specs.desired))
    found = make_plan(specs.desired, state, specs.cluster, fingerprint(state, state.topics))
    return DriftRun(find_drift(found, specs.desired, state), state)
