"""Pre-flight: everything apply checks before the first mutation.

check_plan      the plan is for this cluster, applyable (no error diagnostic: limits and
                policies hold) and every hazard is acknowledged
freshness       the plan's fingerprint against a fresh read; a stale plan is refused with
                what changed, unless every difference is the plan's own work (an
                interrupted apply of this very plan), which is resumed
validate        Kafka's own validate_only CreateTopics and CreatePartitions for what is left
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.apply.execute import (
    MAX_PARTITIONS_PER_REQUEST,
    MAX_RECORDS_PER_REQUEST,
    already_done,
    batches,
    create_weight,
    new_topic,
    partitions_request,
)
from reconciler.apply.operations import Operation, Step
from reconciler.apply.sentences import sentence
from reconciler.cluster import adapter
from reconciler.cluster.adapter import Connection
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.state import ClusterState
from reconciler.errors import ReconcilerError
from reconciler.planning.changes import (
    AlterTopicConfig,
    CreateTopic,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.plan import Plan


class ApplyRefused(ReconcilerError):
    """Pre-flight refused the apply; nothing was changed on the cluster."""


class StalePlan(ApplyRefused):
    """The cluster changed since the saved plan was made."""


def check_plan(plan: Plan, cluster: str) -> None:
    if plan.cluster != cluster:
        raise ApplyRefused(
            f"the plan is for cluster '{plan.cluster}', not '{cluster}'; pass --cluster "
            f"{plan.cluster} or plan again for {cluster}. Nothing was changed."
        )
    if not plan.applyable:
        errors = [d for d in plan.diagnostics if d.is_error]
        listed = "; ".join(d.message for d in errors[:5]) + (" ..." if len(errors) > 5 else "")
        raise ApplyRefused(
            f"the plan has {len(errors)} error(s) (limits or policies do not hold): {listed}. "
            "Fix them and plan again. Nothing was changed."
        )
    missing = unacknowledged(plan)
    if missing:
        listed = "; ".join(f"{topic}: {h.code}" for topic, h in missing)
        raise ApplyRefused(
            f"{len(missing)} hazard(s) not acknowledged: {listed}. Add the codes to the "
            "topic's `acknowledge:` in the reviewed change (prune deletes: pass --prune), plan "
            "again and apply. Nothing was changed."
        )


def unacknowledged(plan: Plan) -> tuple[tuple[str, Hazard], ...]:
    """Error-severity hazards nobody acknowledged (the topic's `acknowledge:`, or --prune for a
    prune delete): the planner decides, apply refuses while any is left."""
    return plan.unacknowledged_hazards


@dataclass(frozen=True, slots=True)
class Freshness:
    current: bool  # the fingerprint matches
    resumed: tuple[str, ...] = ()  # topics whose planned changes the cluster already shows (some)


def freshness(plan: Plan, state: ClusterState) -> Freshness:
    """Compare the plan with a fresh read; raise StalePlan with what changed if it is stale."""
    touched = [c.topic for c in plan.changes]
    if fingerprint(state, touched) == plan.based_on:
        return Freshness(True)
    reasons: list[str] = []
    progressed: list[str] = []
    for change in plan.changes:
        why, moved = _topic_difference(change, state)
        reasons.extend(why)
        if moved:
            progressed.append(change.topic)
    if reasons or not progressed:
        detail = "; ".join(reasons) or (
            "the brokers, their racks, the broker defaults or a topic setting the plan does not "
            "mention changed"
        )
        raise StalePlan(
            f"the plan is stale: the cluster changed since it was made ({detail}). Plan again "
            "and review the new plan. Nothing was changed."
        )
    return Freshness(False, tuple(progressed))


def _topic_difference(change: TopicChange, state: ClusterState) -> tuple[list[str], bool]:
    """(differences that are not the plan's own work, whether some of its work is there)."""
    topic = state.topics.get(change.topic)
    name = change.topic
    reasons: list[str] = []
    moved = False
    for step in change.changes:
        match step:
            case CreateTopic():
                if topic is not None:
                    probe = Operation(0, name, Step.CREATE, step)
                    if already_done(probe, state) is None:
                        reasons.append(f"{name} was created with other settings")
                    else:
                        moved = True
            case DeleteTopic():
                if topic is None:
                    moved = True
                elif len(topic.partitions) != step.partitions:
                    reasons.append(f"{name}: partition count changed")
            case AlterTopicConfig():
                if topic is None:
                    reasons.append(f"{name} was deleted")
                    continue
                overrides = topic.overrides
                for entry in step.entries:
                    now = overrides.get(entry.key)
                    if now == entry.desired:
                        moved = moved or now != entry.current
                    elif now != entry.current:
                        reasons.append(
                            f"{name}: {entry.key} is now {now!r} (the plan saw {entry.current!r})"
                        )
            case IncreasePartitions():
                if topic is None:
                    reasons.append(f"{name} was deleted")
                    continue
                count = len(topic.partitions)
                if count == step.desired:
                    moved = True
                elif count != step.current:
                    reasons.append(
                        f"{name} now has {count} partitions (the plan saw {step.current})"
                    )
            case ReassignReplicas():
                if topic is None:
                    reasons.append(f"{name} was deleted")
                    continue
                placed = [set(p.replicas) for p in topic.partitions]
                target = [set(t) for t in step.target]
                before = [set(c) for c in step.current]
                moving = {r.partition for r in state.reassignments if r.topic == name}
                for index, replicas in enumerate(placed):
                    if index in moving or (index < len(target) and replicas == target[index]):
                        moved = True
                    elif index < len(before) and replicas != before[index]:
                        reasons.append(f"{name}: the replicas of partition {index} moved")
                        break
    return reasons, moved


def validate(connection: Connection, state: ClusterState, ops: Sequence[Operation]) -> None:
    """Kafka's validate_only for the creates and partition increases still to do."""
    admin = connection.admin()
    creates = [
        op.change
        for op in ops
        if isinstance(op.change, CreateTopic) and already_done(op, state) is None
    ]
    increases = [
        op.change
        for op in ops
        if isinstance(op.change, IncreasePartitions) and already_done(op, state) is None
    ]
    problems: list[str] = []
    for batch in batches(creates, lambda c: create_weight(c, state), MAX_RECORDS_PER_REQUEST):
        answers = adapter.create_topics(
            connection, admin, [new_topic(c) for c in batch], validate_only=True
        )
        problems += [sentence(f, t, "create") for t, f in sorted(answers.items()) if f]
    for group in batches(increases, lambda c: c.desired - c.current, MAX_PARTITIONS_PER_REQUEST):
        answers = adapter.create_partitions(
            connection, admin, [partitions_request(c) for c in group], validate_only=True
        )
        problems += [sentence(f, t, "partitions") for t, f in sorted(answers.items()) if f]
    if problems:
        listed = "\n  ".join(problems[:10])
        if len(problems) > 10:
            listed += f"\n  ... and {len(problems) - 10} more"
        raise ApplyRefused(
            f"Kafka's validate_only check refused {len(problems)} change(s):\n  {listed}\n"
            "Nothing was changed."
        )
