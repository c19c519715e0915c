"""plan: the specs for one cluster (the command's context) -> the cluster's state (live,
batched; or a snapshot file) -> diff, policies and order (pure) -> a Plan whose `based_on` is
the fingerprint of the state of the topics it touches and whose `source` names the spec bytes
planned; with --changed-since, each change marked as the spec repository's own since a git ref
or as pre-existing drift, and the plan scoped to the former (the latter set apart, unapplied)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.cluster.state import ACLS, QUOTAS, USERS, ClusterState
from reconciler.diagnostics import Diagnostic, Severity
from reconciler.errors import ConfigError
from reconciler.git_repo import head_commit
from reconciler.planning import raw_acl_changes
from reconciler.planning.acl_changes import revoked_reads
from reconciler.planning.acl_derivation import reads_acls
from reconciler.planning.changes import Action
from reconciler.planning.p_codes import (
    ACCESS_NOT_READ,
    IN_USE_NOT_READ,
    KAFKA_REFUSED,
    KAFKA_UNCHECKED,
)
from reconciler.planning.plan import (
    Plan,
    PlanSource,
    deleted_partitions,
    diagnostic_order,
    evidence_topics,
    make_plan,
    mark_causes,
    scope,
)
from reconciler.planning.targeting import scope_targets
from reconciler.spec.repo_config import REPO_CONFIG
from reconciler.workflow.connection import connect, made_by, read_state
from reconciler.workflow.context import Context, Specs

if TYPE_CHECKING:
    from reconciler.apply.check.validate_only import Refusal
    from reconciler.cluster.evidence import Evidence
    from reconciler.cluster.ports import EvidenceReader, TopicWriter
    from reconciler.spec.model import DesiredState


def plan(
    context: Context,
    cluster: str,
    snapshot: Path | None = None,
    prune: bool = False,
    changed_since: str | None = None,
    targets: tuple[str, ...] = (),
    commit: str | None = None,
    whole_plan: bool = False,
    ask_kafka: bool = True,
) -> Plan:
    """The plan for one cluster. With `changed_since` (a git ref) each change of the whole
    plan is marked as the spec repository's own since that ref or as pre-existing drift
    (`caused_by_change`, `mark_causes`), and the plan returned is scoped to the topics the spec
    repository changed, the drift set apart (`scope`); `whole_plan` keeps the whole plan,
    marked. `commit`: the checkout's commit when the caller read it already (apply reads the
    checkout once for its audit record); else git is asked here. `ask_kafka`: a live plan's
    changes are sent validate_only (`kafka_answers`), once, for the whole plan; apply, whose
    pre-flight sends them under the lock, plans without."""
    repo = context.repo
    window = sample_window(os.environ)  # a bad value fails before the cluster is asked
    specs = context.specs(cluster)
    changed = None
    judged: Callable[[Plan], Plan] = _unasked  # a plan from a snapshot asks Kafka nothing
    if changed_since is not None:  # gitpython is loaded only for this
        from reconciler.git_repo import changed_files

        # Git is asked before the cluster, so a ref git does not know fails without a round trip
        changed = changed_files(repo, changed_since)
    if snapshot is not None:  # a snapshot holds no evidence of use: the plan says so
        state = read_state(specs.cluster, snapshot)
        read: EvidenceRead | None = None
    else:  # one connection: the state, the in-use evidence and the creates' visibility
        from reconciler.apply import leftovers

        with connect(specs.cluster, specs.desired) as kafka:
            state = leftovers.observe(kafka, kafka.read_state())
            # the deletes' log end offsets are watched for SAMPLE_MS: a write there is in use;
            # read once, the scoped plan below reuses it (its topics are among these)
            read = _once(sampled(kafka, window))
            whole = planned(specs, state, read, prune, targets, specs.warnings)
            # a topic the principal may not Describe looks absent: say so
            kafka.check_visible([c.topic for c in whole.changes if c.action is Action.CREATE])
            if ask_kafka:
                judged = kafka_answers(kafka, state, whole, specs.desired)

    def made(chosen: tuple[str, ...], scoped: bool) -> Plan:
        if read is not None:
            return planned(specs, state, read, prune, chosen, specs.warnings, scoped)
        offline = make_plan(
            specs.desired,
            state,
            specs.cluster,
            prune=prune,
            warnings=specs.warnings,
            targets=chosen,
            scoped=scoped,
        )
        if deleted := deleted_partitions(offline):
            offline = _with(offline, evidence_not_read(len(deleted)))
        for warning in access_not_read(specs, state):
            offline = _with(offline, warning)
        return offline

    if read is None:
        whole = made(targets, False)
    # Kafka's verdicts on the whole plan's requests, added to the plan returned (whole, or
    # scoped: `scope` then keeps the drift's own apart)
    whole = judged(whole)
    # the digest of the bytes just planned, not of a second read (workflow/context.py)
    source = PlanSource(commit or head_commit(repo), context.digest(cluster))
    whole = dataclasses.replace(whole, source=source, made_by=made_by(snapshot is None))
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
    marked = mark_causes(whole, changed_since, ours)
    if whole_plan:
        return marked
    return scope(marked, judged(made(scope_targets(ours), True)))


def access_not_read(specs: Specs, state: ClusterState) -> list[Diagnostic]:
    """P137 for each access part the specs declare that the snapshot does not hold, with the
    snapshot's reason (the cluster could not answer; a file from before snapshots kept it),
    and for the SCRAM secrets, which no snapshot holds. The parts it holds were planned as a
    live plan plans them (the same state fields, the same planner)."""
    name = specs.cluster.name
    parts = (
        (ACLS, "the specs declare access", state.acls, reads_acls(specs.desired),
         "ACLs: no grant or revoke is shown"),
        (QUOTAS, f"reconciler.yaml declares quotas: for cluster '{name}'", state.quotas,
         specs.cluster.quotas is not None, "client quotas: no quota change is shown"),
        (USERS, f"reconciler.yaml declares users: for cluster '{name}'", state.scram,
         specs.cluster.users is not None, "SCRAM credentials: no user change is shown"),
    )  # fmt: skip
    why = dict(state.unread)
    warnings: list[Diagnostic] = []
    for part, declared, held, asked, missing in parts:
        if asked and held is None:
            reason = why.get(part, "it was not read")
            warnings.append(ACCESS_NOT_READ(
                f"{declared}, but the plan is made from a snapshot that holds no {missing} "
                f"(not read: {reason}); apply reads them live and plans them"
            ))  # fmt: skip
    scram = state.scram
    if specs.cluster.users is not None and scram and scram.credentials and not scram.digests_read:
        warnings.append(ACCESS_NOT_READ(
            f"reconciler.yaml declares users: for cluster '{name}', and a snapshot keeps no "
            "SCRAM secret or digest: whether a secret changed is not shown (users, mechanisms "
            "and iterations are); apply compares the secrets live and plans them"
        ))  # fmt: skip
    return warnings


def _unasked(plan: Plan) -> Plan:
    return plan


def kafka_answers(
    kafka: TopicWriter, state: ClusterState, whole: Plan, desired: DesiredState
) -> Callable[[Plan], Plan]:
    """Kafka's own verdict on the whole plan's requests, sent validate_only now as apply's
    pre-flight sends them (apply/check/validate_only.py), as what adds it to a plan made from
    the same state (the whole plan, or its scoped part: each gets its own topics' verdicts). A
    change Kafka refuses is an error (P135) at its topic's spec, so the pull request fails
    rather than the apply; changes the principal may not send (a read-only plan principal) are
    one warning (P136) saying Kafka did not check them, and apply will, before its first
    change."""
    from reconciler.apply.check import validate_only
    from reconciler.apply.execute.operations import operations

    # A topic the planner already holds back (P102 unreachable, P101 decrease...) is not asked
    # about: Kafka would refuse it for the reason the plan gives, twice said
    held = {d.topic for d in whole.diagnostics if d.severity is Severity.ERROR and d.topic}
    asked = tuple(c for c in whole.changes if c.topic not in held)
    try:
        refusals = validate_only.ask(kafka, state, [op.change for op in operations(asked)])
    except ValueError as exc:  # the Kafka client's own range checks, before sending
        refused = KAFKA_REFUSED(
            f"the Kafka client refuses a planned request before sending it ({exc}): lower the "
            "count in the spec"
        )
        return lambda plan: _with(plan, refused)
    # A request that fails as a whole (the cluster gone, a library's failure) fails the plan in
    # one sentence, as any of its reads does: only Kafka's answers per topic are verdicts
    return lambda plan: _verdicts(plan, refusals, desired)


def _verdicts(plan: Plan, refusals: list[Refusal], desired: DesiredState) -> Plan:
    """`plan` with the refusals of its own topics' changes: P135 each, P136 for the denied."""
    mine = [r for r in refusals if r.topic in {c.topic for c in plan.changes}]
    for refusal in mine:
        if refusal.denied:
            continue
        spec = desired.topics.get(refusal.topic)
        plan = _with(
            plan,
            KAFKA_REFUSED(
                f"Kafka's validate_only check refuses this change: {refusal.sentence}",
                spec.location if spec is not None else None,
                refusal.topic,
            ),
        )
    denied = sorted({r.topic for r in mine if r.denied})
    if denied:
        shown = ", ".join(denied[:5]) + (f" and {len(denied) - 5} more" if len(denied) > 5 else "")
        plan = _with(
            plan,
            KAFKA_UNCHECKED(
                f"Kafka did not check the change(s) of {len(denied)} topic(s) ({shown}): the "
                "principal may not send their requests, even validate_only (plan with the "
                "apply principal's ACLs to have them checked); apply checks them before its "
                "first change"
            ),
        )
    return plan


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


# Overrides the window plan watches the deletes' log end offsets (SAMPLE_MS): milliseconds
SAMPLE_ENV = "RECONCILER_SAMPLE_MS"
_SAMPLE_BOUNDS = (100, 600_000)  # two reads need a window; ten minutes is past any PR's patience


def sample_window(environ: Mapping[str, str]) -> int:
    """The plan's sample window in ms: SAMPLE_MS (cluster/evidence.py), or $RECONCILER_SAMPLE_MS
    (longer to catch rarer writers at plan time; shorter where hundreds of plans run: tests)."""
    from reconciler.cluster.evidence import SAMPLE_MS

    given = environ.get(SAMPLE_ENV, "").strip()
    if not given:
        return SAMPLE_MS
    low, high = _SAMPLE_BOUNDS
    if not (given.isascii() and given.isdigit()) or not low <= int(given) <= high:
        raise ConfigError(
            f"{SAMPLE_ENV}={given!r} is not a whole number of milliseconds from {low} to {high}: "
            f"set it to one (e.g. 5000, the default) or unset it"
        )
    return int(given)


def sampled(kafka: EvidenceReader, window: int) -> EvidenceRead:
    """Plan's evidence reader: when the plan deletes, the log end offsets watched for `window`
    ms (sample_window); otherwise one read."""
    return lambda partitions, deletes: kafka.evidence(partitions, window if deletes else 0)


def _once(read: EvidenceRead) -> EvidenceRead:
    """`read`, asked once: later asks get the first answer (the whole plan's evidence, read
    for a superset of the topics a scoped plan of the same state asks about)."""
    answers: list[Evidence] = []

    def first(partitions: Mapping[str, int], deletes: bool) -> Evidence:
        if not answers:
            answers.append(read(partitions, deletes))
        return answers[0]

    return first


def planned(
    specs: Specs,
    state: ClusterState,
    read_evidence: EvidenceRead,
    prune: bool,
    targets: tuple[str, ...],
    warnings: Iterable[Diagnostic] = (),
    scoped: bool = False,
) -> Plan:
    """The plan the specs give for a live `state`: when it deletes or grows topics, the
    evidence of use of exactly those topics is read now and the plan made again with it (the
    planner stays pure; plan and apply share this one path)."""

    def made(evidence: Evidence | None) -> Plan:
        return make_plan(specs.desired, state, specs.cluster, prune=prune, warnings=warnings,
                         targets=targets, evidence=evidence, scoped=scoped)  # fmt: skip

    first = made(None)
    # and the topics whose Read it revokes: the evidence names the groups that lose it
    losing = (
        *revoked_reads(first.changes),
        *raw_acl_changes.revoked_reads(
            first.acls, state.acls.bindings if state.acls else (), state.topics.keys()
        ),
    )
    revoked = {t: len(state.topics[t].partitions) for t in losing if t in state.topics}  # fmt: skip
    wanted = {**revoked, **evidence_topics(first)}
    if not wanted:
        return first
    return made(read_evidence(wanted, bool(deleted_partitions(first))))


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
