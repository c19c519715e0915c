"""plan: the specs for one cluster (the command's context) -> the cluster's state (live,
batched; or a snapshot file) -> diff, policies and order (pure) -> a Plan whose `based_on` is
the fingerprint of the state of the topics it touches and whose `source` names the spec bytes
planned; with --changed-since, each change marked as the spec repository's own since a git ref
or as pre-existing drift."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic
from reconciler.git_repo import head_commit
from reconciler.planning.changes import Action
from reconciler.planning.plan import (
    Plan,
    PlanSource,
    deleted_partitions,
    diagnostic_order,
    evidence_topics,
    make_plan,
    mark_causes,
)
from reconciler.planning.rules import IN_USE_NOT_READ
from reconciler.spec.repo_config import REPO_CONFIG
from reconciler.workflow.connection import connect, made_by, read_state
from reconciler.workflow.context import Context, Specs

if TYPE_CHECKING:
    from reconciler.cluster.evidence import Evidence
    from reconciler.cluster.ports import EvidenceReader


def plan(
    context: Context,
    cluster: str,
    snapshot: Path | None = None,
    prune: bool = False,
    changed_since: str | None = None,
    targets: tuple[str, ...] = (),
    commit: str | None = None,
) -> Plan:
    """The plan for one cluster. With `changed_since` (a git ref) the plan is still whole, and
    each change is marked as the spec repository's own since that ref or as pre-existing drift
    (`caused_by_change`, `mark_causes`). `commit`: the checkout's commit when the caller read
    it already (apply reads the checkout once for its audit record); else git is asked here."""
    repo = context.repo
    specs = context.specs(cluster)
    changed = None
    if changed_since is not None:  # gitpython is loaded only for this
        from reconciler.git_repo import changed_files

        # Git is asked before the cluster, so a ref git does not know fails without a round trip
        changed = changed_files(repo, changed_since)
    if snapshot is not None:  # a snapshot holds no evidence of use: the plan says so
        state = read_state(specs.cluster, snapshot)
        whole = make_plan(
            specs.desired,
            state,
            specs.cluster,
            prune=prune,
            warnings=specs.warnings,
            targets=targets,
        )
        if deleted := deleted_partitions(whole):
            whole = _with(whole, evidence_not_read(len(deleted)))
    else:  # one connection: the state, the in-use evidence and the creates' visibility
        from reconciler.apply.check import leftovers

        with connect(specs.cluster) as kafka:
            state = leftovers.observe(kafka, kafka.read_state())
            # the deletes' log end offsets are watched for SAMPLE_MS: a write there is in use
            whole = planned(specs, state, sampled(kafka), prune, targets, specs.warnings)
            # a topic the principal may not Describe looks absent: say so
            kafka.check_visible([c.topic for c in whole.changes if c.action is Action.CREATE])
    # the digest of the bytes just planned, not of a second read (workflow/context.py)
    source = PlanSource(commit or head_commit(repo), context.digest(cluster))
    whole = dataclasses.replace(whole, source=source, made_by=made_by())
    if changed_since is None or changed is None:
        return whole
    from reconciler.changed_since import caused_by_change, policy_at
    from reconciler.planning.policy_changes import policy_changes

    ours = caused_by_change(repo, cluster, specs.desired, whole, changed_since, changed)
    # the policy section compares with the base too, when reconciler.yaml there can be read
    policy = specs.cluster.policy
    base = policy_at(repo, cluster, changed_since)
    whole = dataclasses.replace(
        whole, policy_changes=policy_changes(policy, base, policy.acknowledge)
    )
    return mark_causes(whole, changed_since, ours)


def evidence_not_read(deletes: int) -> Diagnostic:
    """The warning of a plan made from a snapshot that deletes: no evidence of use was read."""
    return IN_USE_NOT_READ(
        f"the plan deletes {deletes} topic(s) but is made from a snapshot, which holds no "
        "evidence of use (consumer groups, newest records), so no in_use hazard is shown; "
        "apply reads that evidence live and refuses a delete of a topic in use"
    )


# An evidence reader: the topics (name -> partition count), and whether the plan deletes any
# of them (the writes sample is for deletes alone: a partition increase needs only the groups)
EvidenceRead = Callable[[Mapping[str, int], bool], "Evidence"]


def sampled(kafka: EvidenceReader) -> EvidenceRead:
    """Plan's evidence reader: when the plan deletes, the log end offsets watched for SAMPLE_MS
    (cluster/evidence.py); otherwise one read."""
    from reconciler.cluster.evidence import SAMPLE_MS

    return lambda partitions, deletes: kafka.evidence(partitions, SAMPLE_MS if deletes else 0)


def planned(
    specs: Specs,
    state: ClusterState,
    read_evidence: EvidenceRead,
    prune: bool,
    targets: tuple[str, ...],
    warnings: Iterable[Diagnostic] = (),
) -> Plan:
    """The plan the specs give for a live `state`: when it deletes or grows topics, the
    evidence of use of exactly those topics is read now and the plan made again with it (the
    planner stays pure; plan and apply share this one path)."""
    first = make_plan(
        specs.desired, state, specs.cluster, prune=prune, warnings=warnings, targets=targets
    )
    wanted = evidence_topics(first)
    if not wanted:
        return first
    evidence = read_evidence(wanted, bool(deleted_partitions(first)))
    return make_plan(
        specs.desired,
        state,
        specs.cluster,
        prune=prune,
        warnings=warnings,
        targets=targets,
        evidence=evidence,
    )


def _with(plan: Plan, diagnostic: Diagnostic) -> Plan:
    found = sorted((*plan.diagnostics, diagnostic), key=diagnostic_order)
    return dataclasses.replace(plan, diagnostics=tuple(found))


def pin_advice(context: Context, cluster: str, reported: str | None) -> str | None:
    """The warning plan and apply show for a cluster reconciler.yaml does not pin, with the
    line to add; None when it is pinned (or the cluster reported no id)."""
    from reconciler.spec.pin_cluster import pin_line

    if reported is None:
        return None
    config = context.cluster_config(cluster)
    if config.cluster_id is not None:
        return None
    line = f" (line {config.location.line})" if config.location is not None else ""
    return (
        f"cluster '{cluster}' has no cluster_id, so its bootstrap may reach any cluster: add "
        f"`{pin_line(reported)}` under `{cluster}:`{line} in {REPO_CONFIG}, and every command "
        "then refuses another cluster"
    )
