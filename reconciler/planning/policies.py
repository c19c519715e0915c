"""Policies: each cluster's rules about what a plan may do, one small named unit per rule.

A policy reads the ordered changes, the specs and the cluster state (all frozen) and returns
findings; `check_policies` turns them into diagnostics at the severity `policy.severity` gives
the rule (error, warning, or off: not evaluated). Policies judge what the plan *changes*, as
Kafka's CreateTopicPolicy and AlterConfigPolicy judge requests, so a topic that already breaks
a rule does not block plans that leave that part of it alone:

| policy                        | looks at                                                  |
|-------------------------------|-----------------------------------------------------------|
| min_replication_factor        | creates and replication-factor changes                    |
| max_partitions_per_topic      | creates and partition increases                           |
| name_pattern                  | creates (renaming an existing topic means migrating it)   |
| min_insync_replicas_headroom  | creates, replication-factor changes, changes of           |
|                               | min.insync.replicas                                       |
| max_deletes                   | the number of deletes in the plan                         |

Counts a spec omits are the broker defaults a create resolves to (KIP-464).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Location, Rule
from reconciler.patterns import UserPattern, problem
from reconciler.planning import p_codes
from reconciler.planning.changes import (
    Action,
    AlterTopicConfig,
    CreateTopic,
    IncreasePartitions,
    ReassignReplicas,
    TopicChange,
)
from reconciler.planning.insync import (
    MIN_INSYNC_REPLICAS,
    cluster_brokers,
    create_rf,
    replication_factor_after,
)
from reconciler.spec.model import DesiredState, Policy, partitions_of


@dataclass(frozen=True, slots=True)
class Context:
    """What every policy may read."""

    changes: tuple[TopicChange, ...]  # in execution order
    desired: DesiredState
    state: ClusterState
    policy: Policy

    def location(self, topic: str) -> Location | None:
        spec = self.desired.topics.get(topic)
        return spec.location if spec is not None else None


@dataclass(frozen=True, slots=True)
class Finding:
    message: str
    topic: str | None = None
    location: Location | None = None


@dataclass(frozen=True, slots=True)
class PolicyRule:
    rule: Rule
    check: Callable[[Context], Iterator[Finding]]


def check_policies(
    changes: tuple[TopicChange, ...], desired: DesiredState, state: ClusterState, policy: Policy
) -> tuple[Diagnostic, ...]:
    """Every policy's findings as diagnostics, at each rule's configured severity."""
    context = Context(changes, desired, state, policy)
    found: list[Diagnostic] = []
    for unit in POLICIES:
        severity = p_codes.severity(policy, unit.rule.name)
        if severity is None:
            continue
        found.extend(
            unit.rule(f.message, topic=f.topic, location=f.location, severity=severity)
            for f in unit.check(context)
        )
    return tuple(found)


def _creates(context: Context) -> Iterator[CreateTopic]:
    for topic_change in context.changes:
        for change in topic_change.changes:
            if isinstance(change, CreateTopic):
                yield change


def _create_partitions(change: CreateTopic) -> tuple[int | None, str]:
    count = partitions_of(change.partitions, change.assignments)
    if count is not None:
        return count, ""
    return change.default_partitions, " (the broker's num.partitions)"


# --- min_replication_factor -------------------------------------------------------------------


def min_replication_factor(context: Context) -> Iterator[Finding]:
    minimum = context.policy.min_replication_factor
    brokers = cluster_brokers(context.state)
    # Never advise more replicas than the cluster has brokers (down ones counted)
    fix = f"set replication_factor: {minimum} or more"
    if brokers is not None and minimum > brokers:
        fix = (
            f"the cluster's {brokers} broker(s) cannot hold {minimum} replicas: add brokers, "
            "or lower policy.min_replication_factor for this cluster"
        )
    for topic_change in context.changes:
        for change in topic_change.changes:
            match change:
                case CreateTopic():
                    rf, source = create_rf(change)
                case ReassignReplicas():
                    rf, source = change.desired_rf, ""
                case _:
                    continue
            if rf is not None and rf < minimum:
                yield Finding(
                    f"{change.topic}: replication factor {rf}{source} is below this cluster's "
                    f"policy.min_replication_factor {minimum}; {fix}",
                    change.topic,
                    context.location(change.topic),
                )


# --- max_partitions_per_topic -----------------------------------------------------------------


def max_partitions_per_topic(context: Context) -> Iterator[Finding]:
    maximum = context.policy.max_partitions_per_topic
    if maximum is None:
        return
    for topic_change in context.changes:
        for change in topic_change.changes:
            match change:
                case CreateTopic():
                    count, source = _create_partitions(change)
                case IncreasePartitions():
                    count, source = change.desired, ""
                case _:
                    continue
            if count is not None and count > maximum:
                yield Finding(
                    f"{change.topic}: {count} partitions{source} is more than this cluster's "
                    f"policy.max_partitions_per_topic {maximum}; set partitions: {maximum} or "
                    "fewer (partitions never shrink, so choose before creating)",
                    change.topic,
                    context.location(change.topic),
                )


# --- name_pattern -----------------------------------------------------------------------------


def name_pattern(context: Context) -> Iterator[Finding]:
    pattern = context.policy.name_pattern
    if pattern is None:
        return
    error = problem(pattern)
    if error is not None:
        yield Finding(
            f"policy.name_pattern {pattern!r} is not a valid regular expression ({error}); "
            "fix it in reconciler.yaml"
        )
        return
    # Bounded (reconciler/patterns.py); validate already matched it against every declared name
    compiled = UserPattern(pattern, context.policy.pattern_source("name_pattern", pattern))
    for change in _creates(context):
        if not compiled.search(change.topic):
            yield Finding(
                f"{change.topic} does not match this cluster's policy.name_pattern "
                f"{pattern!r}; rename the topic before it is created",
                change.topic,
                context.location(change.topic),
            )


# --- min_insync_replicas_headroom -------------------------------------------------------------


def min_insync_replicas_headroom(context: Context) -> Iterator[Finding]:
    brokers = cluster_brokers(context.state)
    for topic_change in context.changes:
        if topic_change.action is Action.DELETE:
            continue
        rf, _ = replication_factor_after(topic_change.topic, (topic_change,), context.state)
        touched = any(
            isinstance(c, CreateTopic | ReassignReplicas)
            or (
                isinstance(c, AlterTopicConfig)
                and any(e.key == MIN_INSYNC_REPLICAS for e in c.entries)
            )
            for c in topic_change.changes
        )
        if not touched or rf is None or rf < 2:
            continue  # a single replica tolerates no broker down anyway: min_replication_factor
        mis, source = _min_insync_after(topic_change.topic, context)
        if mis is None or mis < rf or (mis > rf and not source):
            continue  # above a factor the spec's own value: R103 (validate, or insync.py)
        consequence = (
            "with one broker down, producers using acks=all cannot write"
            if mis == rf
            else "producers using acks=all can never write"
        )
        # Never advise more replicas than the cluster has brokers (down ones counted)
        raise_rf = (
            f" or raise replication_factor to {mis + 1}"
            if brokers is None or mis + 1 <= brokers
            else ""
        )
        yield Finding(
            f"{topic_change.topic}: min.insync.replicas {mis}{source} is not below the "
            f"replication factor {rf}: {consequence}; set min.insync.replicas to {rf - 1}"
            f"{raise_rf}",
            topic_change.topic,
            context.location(topic_change.topic),
        )


def _min_insync_after(topic: str, context: Context) -> tuple[int | None, str]:
    """min.insync.replicas in effect after the plan: the spec's override, else inherited."""
    spec = context.desired.topics.get(topic)
    value = spec.config_map.get(MIN_INSYNC_REPLICAS) if spec is not None else None
    source = ""
    if value is None:
        current = context.state.topics.get(topic)
        value = current.inherited(MIN_INSYNC_REPLICAS) if current is not None else None
        if value is None:
            value = context.state.broker_defaults.get(MIN_INSYNC_REPLICAS)
        source = " (inherited from the broker)"
    try:
        return (int(value), source) if value is not None else (None, source)
    except ValueError:
        return None, source


# --- max_deletes ------------------------------------------------------------------------------


def max_deletes(context: Context) -> Iterator[Finding]:
    deletes = sorted(c.topic for c in context.changes if c.action is Action.DELETE)
    limit = context.policy.max_deletes
    if len(deletes) > limit:
        yield Finding(
            f"the plan deletes {len(deletes)} topics ({', '.join(deletes)}) but this cluster's "
            f"policy allows at most {limit} per plan; spread the deletes over several reviewed "
            "changes (fewer tombstones each, or no --prune), or raise policy.max_deletes"
        )


POLICIES: tuple[PolicyRule, ...] = (
    PolicyRule(p_codes.MIN_REPLICATION_FACTOR, min_replication_factor),
    PolicyRule(p_codes.MAX_PARTITIONS_PER_TOPIC, max_partitions_per_topic),
    PolicyRule(p_codes.NAME_PATTERN, name_pattern),
    PolicyRule(p_codes.MIN_INSYNC_REPLICAS_HEADROOM, min_insync_replicas_headroom),
    PolicyRule(p_codes.MAX_DELETES, max_deletes),
)
