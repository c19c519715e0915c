"""apply: a saved or just-made plan applied to its cluster, after checking it is the plan of
the command's specs (`_same_specs`) and deriving it again under the lock (apply/check/verify.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from reconciler.cluster.evidence import since
from reconciler.cluster.state import ClusterState
from reconciler.errors import PlanMismatch
from reconciler.git_repo import head_commit
from reconciler.planning.changes import DeleteTopic
from reconciler.planning.plan import Plan
from reconciler.workflow.connection import connect
from reconciler.workflow.context import Context
from reconciler.workflow.plan import planned

# Commands that never apply must not pay for loading apply (its modules are imported here)
if TYPE_CHECKING:
    from reconciler.apply import ApplyResult
    from reconciler.apply.cancel import Cancelled
    from reconciler.cluster.evidence import Evidence
    from reconciler.git_repo import Checkout


# Seconds apply's reads keep retrying through a controller or broker outage, beyond the
# request timeout: a controller restart, a broker's rolling upgrade
READ_OUTAGE = 120.0


def apply(
    context: Context,
    cluster: str,
    saved: Plan,
    *,
    checkout: Checkout | None = None,
    fail_fast: bool = False,
    force_unlock: bool = False,
    throttle: int | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> ApplyResult:
    """Apply `saved` (a reviewed plan, or one just made and confirmed) to `cluster`;
    `checkout` (reconciler.git_repo, read once by the command) is what the audit record names.

    The specs come from the command's context (loaded once, or already by the plan this
    command made): for the cluster's connection, and to derive the plan again under the lock
    from them and the state read there, which the saved plan's remaining work
    must equal (reconciler.apply.check.verify: limits, policies and hazards are judged again, so a
    plan file edited after review is refused). reconciler.apply.run lists the steps.
    """
    from reconciler.apply import Options, apply_plan
    from reconciler.apply.check.in_use import diverged_deletes
    from reconciler.apply.check.preflight import check_plan
    from reconciler.apply.check.verify import made_with_prune
    from reconciler.apply.check.verify import verify as verify_plan

    specs = context.specs(cluster)
    _same_specs(context, cluster, saved)

    with connect(specs.cluster, specs.desired) as kafka:

        def since_saved(partitions: Mapping[str, int], _deletes: bool) -> Evidence:
            """The evidence now, each topic's writes counted since the saved plan read its
            log end offsets: any record appended since is a write (cluster/evidence.py); no
            sample of its own, the saved plan's read is the window's start."""
            now = kafka.evidence(partitions)
            before = {
                s.topic: s.evidence
                for c in saved.changes
                for s in c.changes
                if isinstance(s, DeleteTopic) and s.evidence is not None
            }
            topics = {
                name: since(found, before[name]) if name in before else found
                for name, found in now.topics.items()
            }
            return dataclasses.replace(now, topics=topics)

        def derive(state: ClusterState, prune: bool) -> Plan:
            return planned(specs, state, since_saved, prune, saved.targets, scoped=saved.scoped)

        seen: list[ClusterState] = []  # the state read under the lock, for the re-check

        def verified(state: ClusterState) -> None:
            seen.append(state)
            verify_plan(saved, state, derive)

        def in_use_now(topics: Sequence[str]) -> dict[str, str]:
            """Right before the deletes: the topics of `topics` now in use beyond what the
            saved plan showed (apply.in_use), with why."""
            state = seen[-1] if seen else kafka.read_state()
            derived = derive(state, made_with_prune(saved))
            return diverged_deletes(saved, derived, topics)

        kafka.ride_outages(READ_OUTAGE, progress)  # reads, never mutations: retrying is safe
        if not saved.changes:
            # Nothing to lock for, but an emptied plan file is not "no changes" either
            check_plan(saved, specs.cluster.name)
            verify_plan(saved, kafka.read_state(), derive)
        return apply_plan(
            saved,
            kafka,
            checkout=checkout,
            force_unlock=force_unlock,
            options=Options(fail_fast=fail_fast, throttle=throttle),
            progress=progress,
            verify=verified,
            in_use=in_use_now,
        )


def cancel_reassignments(
    context: Context, cluster: str, force_unlock: bool, progress: Callable[[str], None]
) -> Cancelled:
    """`apply --cancel-reassignments`: cancel the partition moves in progress of the topics the
    specs name for `cluster`, under the apply lock (reconciler.apply.cancel)."""
    from reconciler.apply.cancel import cancel

    specs = context.specs(cluster)
    with connect(specs.cluster) as kafka:
        return cancel(kafka, sorted(specs.desired.topics), force_unlock, progress)


def _same_specs(context: Context, cluster: str, saved: Plan) -> None:
    """Refuse a saved plan made from other spec files than the context's (spec/digest.py:
    the digest of the bytes this command loaded), before any connection: reviewers approved
    the plan of those files."""
    if saved.source is None:  # saved before plans recorded it: verify alone judges
        return
    here = context.digest(cluster)
    if here == saved.source.specs:
        return
    made = f"specs {saved.source.specs[:19]}"
    if saved.source.commit is not None:
        made = f"commit {saved.source.commit[:12]}, {made}"
    now = head_commit(context.repo)
    found = f"specs {here[:19]}" + (f" at commit {now[:12]}" if now is not None else "")
    raise PlanMismatch(
        f"the saved plan was made from other spec files ({made}) than these ({found}): the "
        "specs changed after the plan was made (a push after the review, or another merge); "
        "plan again, review the new plan and apply it. Nothing was changed."
    )
