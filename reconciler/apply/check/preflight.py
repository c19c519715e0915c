"""Pre-flight: everything apply checks before the first mutation.

check_plan      the plan is for this cluster, applyable (no error diagnostic: limits and
                policies hold) and every hazard is acknowledged
check_cluster_id the plan was made on the cluster whose brokers answer (the id they report)
freshness       the plan's fingerprint against a fresh read; a stale plan is refused with
                what changed, unless every difference is the plan's own work (an
                interrupted apply of this very plan), which is resumed
refuse_diverged what freshness refuses whatever the fingerprint says: a planned change the
                cluster shows otherwise (apply.verify runs it before its comparison)
validate        Kafka's own validate_only for every mutating request still to send
                (CreateTopics, IncrementalAlterConfigs, CreatePartitions), all before the
                first change (and the Kafka client's own range checks, as a refusal)
remaining       the operations the cluster does not show done yet (status.judge): the only
                ones any pre-flight judges (permissions, validate_only, in-use evidence)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn, assert_never

from reconciler.apply.check import validate_only
from reconciler.apply.execute.operations import Operation
from reconciler.apply.execute.verdict import Diverged, Done, NotStarted, Partly, judge
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.ports import TopicReader, TopicWriter
from reconciler.cluster.state import ClusterState
from reconciler.errors import ApplyRefused, StalePlan
from reconciler.planning.changes import (
    TopicChange,
)
from reconciler.planning.plan import Plan
from reconciler.planning.refusal import refusal


def check_plan(plan: Plan, cluster: str) -> None:
    if plan.cluster != cluster:
        raise ApplyRefused(
            f"the plan is for cluster '{plan.cluster}', not '{cluster}'; pass --cluster "
            f"{plan.cluster} or plan again for {cluster}. Nothing was changed."
        )
    # The plan's own verdict, word for word (planning/refusal.py): errors to fix, approval
    # items to add; a refusal is said once, here, however apply was started
    clause = refusal(plan)
    if clause is not None:
        raise ApplyRefused(f"apply refuses this plan: {clause}. Nothing was changed.")


def check_cluster_id(plan: Plan, cluster: TopicReader) -> None:
    """Refuse a plan made on another cluster id (or on none: a plan file without one)."""
    reported = cluster.cluster_id()
    if plan.cluster_id != reported:
        made = f"cluster id {plan.cluster_id}" if plan.cluster_id else "no cluster id"
        raise ApplyRefused(
            f"the plan was made on {made}, but the brokers of '{cluster.name}' at "
            f"{cluster.connection.bootstrap} report cluster id {reported}; plan again against "
            "this cluster and apply that. Nothing was changed."
        )


@dataclass(frozen=True, slots=True)
class Freshness:
    current: bool  # the fingerprint matches
    resumed: tuple[str, ...] = ()  # topics whose planned changes the cluster already shows (some)


def freshness(plan: Plan, state: ClusterState) -> Freshness:
    """Compare the plan with a fresh read; raise StalePlan with what changed if it is stale."""
    touched = [c.topic for c in plan.changes]
    if fingerprint(state, touched) == plan.based_on:
        return Freshness(True)
    reasons, progressed = _differences(plan, state)
    if reasons or not progressed:
        _stale(reasons)
    return Freshness(False, tuple(progressed))


def refuse_diverged(plan: Plan, state: ClusterState) -> None:
    """StalePlan naming what differs when the cluster shows, for some planned change, something
    the plan neither saw nor makes (status.Diverged), whatever the fingerprint says."""
    reasons, _ = _differences(plan, state)
    if reasons:
        _stale(reasons)


def _differences(plan: Plan, state: ClusterState) -> tuple[list[str], list[str]]:
    """(what differs beyond the plan's own work, topics some of whose work is there)."""
    reasons: list[str] = []
    progressed: list[str] = []
    for change in plan.changes:
        why, moved = _topic_difference(change, state)
        reasons.extend(why)
        if moved:
            progressed.append(change.topic)
    return reasons, progressed


def stale(reasons: list[str]) -> NoReturn:
    """Refuse the plan as stale (StalePlan), naming what the cluster shows instead."""
    _stale(reasons)


def _stale(reasons: list[str]) -> NoReturn:
    detail = "; ".join(reasons) or (
        "its based_on is not the fingerprint of the cluster now: the brokers, their racks, the "
        "broker defaults or a topic setting the plan does not mention changed, or based_on was "
        "edited"
    )
    raise StalePlan(
        f"the plan is stale: the cluster changed since it was made ({detail}). Plan again "
        "and review the new plan. Nothing was changed."
    )


def _topic_difference(change: TopicChange, state: ClusterState) -> tuple[list[str], bool]:
    """(differences that are not the plan's own work, whether some of its work is there)."""
    topic = state.topics.get(change.topic)
    reasons: list[str] = []
    moved = False
    for step in change.changes:
        verdict = judge(step, topic, state.reassignments)
        match verdict:
            case Diverged(reason):
                reasons.append(reason)
            case Done() | Partly():
                moved = True
            case NotStarted():
                pass
            case _:
                assert_never(verdict)
    return reasons, moved


def validate(cluster: TopicWriter, state: ClusterState, ops: Sequence[Operation]) -> None:
    """Kafka's validate_only for every request apply will send for what is left: creates,
    config updates and partition increases, all of them before the first real change, so
    one refusal refuses the plan with nothing changed (a conflict between two keys, say
    min.compaction.lag.ms above max.compaction.lag.ms, is Kafka's to judge, not ours).
    `ops` are the remaining ones (`remaining`): finished work was judged there, once."""
    try:
        problems = [
            r.sentence for r in validate_only.ask(cluster, state, [op.change for op in ops])
        ]
    except ValueError as exc:
        # The Kafka client checks counts itself before sending (librdkafka caps a topic's
        # partitions at 100,000, and replication factors too): a count within Kafka's int32 but
        # beyond the client's limits is refused here, before the first mutation, not a crash.
        raise ApplyRefused(
            f"the Kafka client refused a planned request before sending it ({exc}); lower the "
            "count in the spec, plan again and apply. Nothing was changed."
        ) from exc
    if problems:
        listed = "\n  ".join(problems[:10])
        if len(problems) > 10:
            listed += f"\n  ... and {len(problems) - 10} more"
        raise ApplyRefused(
            f"Kafka's validate_only check refused {len(problems)} change(s):\n  {listed}\n"
            "Nothing was changed."
        )


@dataclass(frozen=True, slots=True)
class Remaining:
    todo: tuple[Operation, ...]  # what the cluster does not show done yet, in plan order
    done: dict[int, str]  # operation id -> how the cluster shows it done (status.Done's note)


def remaining(ops: Sequence[Operation], state: ClusterState) -> Remaining:
    """The operations whose change the cluster does not show done (status.judge, once each). A
    re-run asks Kafka nothing about finished work: a deleted topic's ACLs, for one, are not
    there to be asked about, and a cluster without an authorizer would seem to deny them."""
    todo: list[Operation] = []
    done: dict[int, str] = {}
    for op in ops:
        verdict = judge(op.change, state.topics.get(op.topic), state.reassignments)
        if isinstance(verdict, Done):
            done[op.id] = verdict.note
        else:
            todo.append(op)
    return Remaining(tuple(todo), done)
