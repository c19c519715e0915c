"""The plan: one value holding everything `reconciler plan` shows and `apply` executes.

`make_plan` runs the pure steps in order:

1. diff: changes, diagnostics, unmanaged topics (diff.py);
2. hazards: acknowledged or not, at their configured severity (hazards.review);
3. order: phase, dependency DAG, name (order.py);
4. limits: KIP-578 per-broker and cluster-wide counts over the whole plan (limits.py);
5. policies: min replication factor, partitions per topic, names, min.insync.replicas
   headroom, deletes per plan (policies.py);
6. leftovers: the lock another apply holds, throttles an apply left (leftover_warnings.py).
7. min.insync.replicas above a replication factor the cluster decides (R103, insync.py).

Renderers and the JSON form read a `Plan`; nothing else computes from the specs or the cluster
state after this point. A plan is applyable when apply would accept it: no error diagnostic and
no unacknowledged error-severity hazard (`Plan.unacknowledged_hazards`). Every renderer, the JSON
`applyable` and the CLI's exit code read that one property, so a pull-request check never passes
a plan the apply on merge then refuses.

`mark_causes` (for `plan --changed-since REF`) marks each topic change as the pull request's
own (`change`) or pre-existing (`drift`); the marks are for reviewers, apply ignores them.
`scope` then keeps the pull request's own plan (made with `scoped` targets: the topics it
changes and what they depend on) and sets the rest of the whole plan apart as its `drift`:
shown, never applied, never blocking.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from reconciler.cluster.evidence import Evidence
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic, Severity, sort_key
from reconciler.planning import (
    acl_changes,
    acl_shadowing,
    hazards,
    leftover_warnings,
    ownership,
    raw_acl_changes,
    targeting,
)
from reconciler.planning.changes import (
    Action,
    DeleteTopic,
    Hazard,
    IncreasePartitions,
    TopicChange,
)
from reconciler.planning.diff import diff
from reconciler.planning.insync import check_min_insync
from reconciler.planning.limits import BrokerLoad, check_limits
from reconciler.planning.order import order
from reconciler.planning.policies import check_policies
from reconciler.planning.policy_changes import PolicyChange, policy_changes, stale_approvals
from reconciler.planning.quota_changes import QuotaChange, quota_changes
from reconciler.planning.raw_acl_changes import SECTION, RawAclChange
from reconciler.planning.user_changes import UserChange, own_user, user_changes
from reconciler.spec.model import ClusterConfig, DesiredState, Policy


@dataclass(frozen=True, slots=True)
class Summary:
    create: int
    update: int
    delete: int
    errors: int
    warnings: int
    # Topic changes by cause; both 0 unless the plan was made with --changed-since
    from_change: int = 0
    drift: int = 0


@dataclass(frozen=True, slots=True)
class PlanSource:
    """What a plan was made from, so a saved plan is applied only to the specs reviewed with it
    (spec/digest.py computes both; apply compares `specs`)."""

    commit: str | None  # the spec repository's git HEAD at plan time; None outside git
    specs: str  # "sha256:...": reconciler.yaml and every topic file, by path and content


@dataclass(frozen=True, slots=True)
class Drift:
    """What a scoped plan (`plan --changed-since REF`) sets apart: the whole plan's changes to
    topics outside the pull request's scope (each marked `drift`) and what the whole plan reports
    that the scoped one does not (their errors and warnings, limits counted over both). For the
    reviewer: it never makes the plan unapplyable, apply neither makes nor compares it."""

    changes: tuple[TopicChange, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class MadeBy:
    """The tool that made a plan: apply refuses a saved plan of another reconciler version
    (workflow/saved_plan.py) and mentions other client library versions (`reconciler help
    apply`)."""

    reconciler: str  # reconciler's version, e.g. "0.2.0"
    # (name, version) of the client libraries, e.g. ("librdkafka", "2.16.0"), in a fixed order
    libraries: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    cluster: str
    based_on: str  # fingerprint of the cluster state the plan was computed from
    changes: tuple[TopicChange, ...]  # in execution order
    diagnostics: tuple[Diagnostic, ...] = ()  # sorted: place, then code
    unmanaged: tuple[str, ...] = ()  # sorted: topics no spec mentions (internal/ignored left out)
    # Replicas per broker now and after the plan, by broker id; only when the cluster sets
    # limits.max_broker_partitions
    broker_load: tuple[BrokerLoad, ...] = ()
    # The git ref of `plan --changed-since`: every change then carries its cause
    changed_since: str | None = None
    # The id the cluster (or the snapshot) reported: apply refuses the plan on another
    cluster_id: str | None = None
    # `--topic` patterns of a partial plan (planning/targeting.py); () for a whole plan
    targets: tuple[str, ...] = ()
    # The targets are the scope of --changed-since: exact names, () meaning no topic
    scoped: bool = False
    # A scoped plan's pre-existing drift, set apart (empty otherwise)
    drift: Drift = Drift()
    # The commit and spec files the plan was made from; None in a plan made before 0.2 or
    # from a Plan built in memory (tests, apply's own fresh plan)
    source: PlanSource | None = None
    # The cluster's policy against the base (--changed-since) or the defaults: settings
    # changed and gates turned off, the latter with their policy_gate_off hazard
    policy_changes: tuple[PolicyChange, ...] = ()
    # The reconciler (and client libraries) that made the plan; None for a Plan built in memory
    made_by: MadeBy | None = None
    # The cluster's client quota changes (`reconciler help access`), by entity then key; () when
    # its `quotas:` are not declared
    quotas: tuple[QuotaChange, ...] = ()
    # The files' raw `acls:` changes (planning/raw_acl_changes.py); () without `acls:`
    acls: tuple[RawAclChange, ...] = ()
    # The cluster's SCRAM user changes (`reconciler help access`), by user then mechanism; ()
    # when its `users:` are not declared
    users: tuple[UserChange, ...] = ()

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The error diagnostics, in diagnostic order: each one blocks the plan."""
        return tuple(d for d in self.diagnostics if d.is_error)

    @property
    def empty(self) -> bool:
        """No topic, quota, raw ACL or user change: applying it changes nothing."""
        return not self.changes and not self.quotas and not self.acls and not self.users

    @property
    def applyable(self) -> bool:
        """Apply would accept it: no error diagnostic and no unacknowledged hazard. An empty
        plan is applyable: applying it does nothing."""
        return not self.errors and not self.unacknowledged_hazards

    @property
    def unacknowledged_hazards(self) -> tuple[tuple[str, Hazard], ...]:
        """(topic, hazard) for each error-severity hazard the specs do not acknowledge, in
        execution order, then the policy's (topic "policy") and the quotas' (topic "quotas"):
        apply refuses the plan while any is left."""
        ours = tuple((c.topic, h) for c in self.changes for h in c.hazards if h.blocks_apply)
        gates = tuple(
            ("policy", h) for p in self.policy_changes for h in p.hazards if h.blocks_apply
        )
        quotas = tuple(("quotas", h) for q in self.quotas for h in q.hazards if h.blocks_apply)
        acls = tuple((SECTION, h) for a in self.acls for h in a.hazards if h.blocks_apply)
        users = tuple(("users", h) for u in self.users for h in u.hazards if h.blocks_apply)
        return ours + gates + quotas + acls + users

    @property
    def load_near_limit(self) -> bool:
        """Some broker ends at or above 80% of limits.max_broker_partitions: the text and
        Markdown plans then show the load table."""
        return any(row.near_limit for row in self.broker_load)

    @property
    def summary(self) -> Summary:
        actions = [c.action for c in self.changes]
        severities = [d.severity for d in self.diagnostics]
        causes = [c.cause for c in self.changes]
        return Summary(
            create=actions.count(Action.CREATE),
            update=actions.count(Action.UPDATE),
            delete=actions.count(Action.DELETE),
            errors=severities.count(Severity.ERROR),
            warnings=severities.count(Severity.WARNING),
            from_change=causes.count("change"),
            drift=causes.count("drift") + len(self.drift.changes),
        )


def diagnostic_order(d: Diagnostic) -> tuple[tuple[str, int, int, str], str, str, str]:
    """Place and code first (diagnostics.sort_key), then topic, rule and message for ties."""
    return (sort_key(d), d.topic or "", d.rule, d.message)


def make_plan(
    desired: DesiredState,
    state: ClusterState,
    cluster: ClusterConfig,
    based_on: str | None = None,
    prune: bool = False,
    warnings: Iterable[Diagnostic] = (),
    targets: tuple[str, ...] = (),
    evidence: Evidence | None = None,
    base_policy: Policy | None = None,
    scoped: bool = False,
) -> Plan:
    """The plan for `cluster`, built whole.

    `based_on`: None records the fingerprint of the state of the topics the plan touches (what
    apply checks a saved plan against); a caller that means another state (drift: all of it)
    or a fixed value (tests, golden files) passes it. `warnings`: the spec loader's warnings,
    shown with the plan's own diagnostics. `targets`: a partial plan of the topics matching
    these patterns and what they depend on (targeting.py). `evidence`: whether the topics
    the plan deletes are still in use (read for exactly those: `deleted_partitions`), judged
    as the `in_use` hazard; None, not read (a plan from a snapshot). `base_policy`: the
    cluster's policy at the base of the change under review (None: compared with the defaults).
    `scoped`: `targets` are the exact names of --changed-since's scope (targeting.py).
    """
    policy = cluster.policy
    whole = desired
    if targets and not scoped:  # a pattern matching nothing is a typo, not "No changes"
        targeting.check_matched(targets, [*desired.topics, *state.topics], cluster.name)
    desired, outside_scope = ownership.in_scope(desired, policy)
    partial = bool(targets) or scoped
    chosen = targeting.selector(targets, scoped) if partial else None
    if partial:
        desired = targeting.targeted(desired, targets, scoped)
    changes, diagnostics, unmanaged = diff(
        desired, state, policy, prune=prune, evidence=evidence, unmanaged_in=chosen
    )
    # the grants and revokes of the topics' `access:` (only when the cluster's ACLs were read)
    raw = raw_acl_changes.bindings(desired.acls or ())
    changes = acl_changes.with_access(changes, desired, state.acls, evidence, raw)
    reviewed, approvals = hazards.review(changes, desired, policy)
    ordered = order(reviewed)
    broker_load, over_limits = check_limits(ordered, state, desired, cluster.limits, policy)
    found = {
        *diagnostics,
        *over_limits,
        *check_policies(ordered, desired, state, policy),
        *leftover_warnings.diagnostics(state),  # what other applies left: a held lock, throttles
        *check_min_insync(ordered, desired, state, diagnostics),
        *approvals,
        *warnings,
        *outside_scope,
    }
    gates = policy_changes(policy, base_policy, policy.acknowledge)
    # the cluster's quotas: not topics, so neither targeted by --topic nor scoped (only when read)
    quotas = quota_changes(cluster.quotas, state.quotas, policy)
    # the files' raw `acls:`: a section of its own, after the topics' own access changes
    # (--topic keeps those on the topics it selects; --changed-since all: an edit of `acls:`
    # alone is a change under review)
    on_topics = chosen if targets and not scoped else None
    acls = raw_acl_changes.raw_changes(
        desired, state.acls, policy, evidence, on_topics, ordered, state.topics.keys(), whole
    )
    if state.acls is not None:  # once every grant and revoke is decided: what still grants
        ordered, acls, shadowed = acl_shadowing.shadowing(
            ordered, acls, state.acls.bindings, desired
        )
        found.update(shadowed)
    cluster_hazards = [h for c in gates for h in c.hazards] + [h for q in quotas for h in q.hazards]
    cluster_hazards += [h for a in acls for h in a.hazards]
    if state.acls is not None:
        found.update(raw_acl_changes.outside_scope(desired.acls, policy))
    users = user_changes(cluster.users, state.scram, policy, own_user(cluster))
    cluster_hazards += [h for u in users for h in u.hazards]
    found.update(stale_approvals(policy, cluster_hazards))
    if based_on is None:
        based_on = fingerprint(state, [c.topic for c in ordered])
    return Plan(
        cluster=cluster.name,
        based_on=based_on,
        changes=ordered,
        diagnostics=tuple(sorted(found, key=diagnostic_order)),
        unmanaged=unmanaged,
        broker_load=broker_load,
        cluster_id=state.cluster_id,
        targets=targets,
        scoped=scoped,
        policy_changes=gates,
        quotas=quotas,
        acls=acls,
        users=users,
    )


def deleted_partitions(plan: Plan) -> dict[str, int]:
    """The topics the plan deletes, with their partition counts: what the in-use evidence is
    read for (the planner's decision, never derived again)."""
    return {
        step.topic: step.partitions
        for change in plan.changes
        for step in change.changes
        if isinstance(step, DeleteTopic)
    }


def evidence_topics(plan: Plan) -> dict[str, int]:
    """The topics whose evidence of use the plan reads, with their partition counts: those it
    deletes (the in_use gate) and those whose partitions it grows (partition_increase_read
    names the groups reading them)."""
    grown = {
        step.topic: step.current
        for change in plan.changes
        for step in change.changes
        if isinstance(step, IncreasePartitions)
    }
    return {**grown, **deleted_partitions(plan)}


def mark_causes(plan: Plan, ref: str, from_change: frozenset[str]) -> Plan:
    """The whole plan, each topic change marked `change` when its topic is in `from_change`
    (what the spec repository changed since `ref`, decided by the caller from git) and `drift`
    otherwise: the cluster already differed from specs `ref` holds too.

    Nothing is left out: a pull request's plan still shows, and apply still makes, the drift.
    """
    return dataclasses.replace(
        plan,
        changed_since=ref,
        changes=tuple(
            dataclasses.replace(c, cause="change" if c.topic in from_change else "drift")
            for c in plan.changes
        ),
    )


def scope(marked: Plan, own: Plan) -> Plan:
    """The pull request's plan: `own` (made with scoped targets from the same specs and state
    as the whole plan `marked`, already marked by `mark_causes`), each change carrying its mark
    from `marked`, with the rest of `marked` set apart as its `drift`."""
    cause = {c.topic: c.cause for c in marked.changes}
    kept = {c.topic for c in own.changes}
    reported = set(own.diagnostics)
    return dataclasses.replace(
        own,
        changed_since=marked.changed_since,
        source=marked.source,
        made_by=marked.made_by,
        policy_changes=marked.policy_changes,
        changes=tuple(
            dataclasses.replace(c, cause=cause.get(c.topic) or "change") for c in own.changes
        ),
        drift=Drift(
            changes=tuple(c for c in marked.changes if c.topic not in kept),
            diagnostics=tuple(d for d in marked.diagnostics if d not in reported),
        ),
    )
