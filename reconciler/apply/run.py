"""One apply, start to end.

    1. check the plan: this cluster (its name and the id its brokers report), applyable
       (limits and policies hold), hazards acknowledged
    2. take the cluster's lock (breaking a holder only when it is certainly gone: lock.py) and
       start renewing its lease
    3. read the cluster; refuse a stale plan, resume one this plan's interrupted apply left behind
       (said only when an unfinished audit record of this plan exists)
    4. for the operations the cluster does not show done (preflight.remaining) only: check the
       permissions and let Kafka validate every request step 6 sends (validate_only), all
       before any change
    5. close the audit records of earlier applies that never finished; if every change already
       shows and no recorded throttle is left, stop here: the plan is already applied. Else
       start this apply's record (journal.py): no change is made unless that record is on the
       cluster; then remove the throttles earlier applies left (leftovers.py)
    6. execute the DAG level by level, waiting for metadata after each, checking the lease
       before and journaling the results after each level; before the first delete level, read
       the in-use evidence again (a delete now in use beyond the plan is Diverged, not run)
    7. write the final audit record, release the lock

Steps 1-4 change nothing on the cluster but the lock. A SIGINT or SIGTERM
(reconciler/stopping.py) stops the apply before the lock, before the audit record starts or,
during 6, after the request in flight: the rest is reported as skipped. Whatever happens in 6,
every planned change is accounted for (interrupted.py: an interrupted apply reports what the
cluster shows), the final record is written (best effort: else the next apply closes it) and
the lock released.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from reconciler import stopping
from reconciler.apply import leftovers, lock
from reconciler.apply.check import access, preflight
from reconciler.apply.execute import acl_steps, quota_steps, user_steps
from reconciler.apply.execute.levels import Executor, InUse, Options
from reconciler.apply.execute.operations import Level, levels, operations
from reconciler.apply.record import content, interrupted, journal
from reconciler.apply.record.audit_record import AccessOutcome, Finished, Started
from reconciler.apply.record.outcome import OperationResult, Status
from reconciler.apply.record.results import ApplyResult
from reconciler.cluster.ports import ApplyTarget
from reconciler.cluster.state import ClusterState
from reconciler.errors import ReconcilerError
from reconciler.git_repo import Checkout
from reconciler.planning.plan import Plan

Progress = Callable[[str], None]


def apply_plan(
    plan: Plan,
    cluster: ApplyTarget,
    *,
    checkout: Checkout | None = None,
    force_unlock: bool = False,
    options: Options | None = None,
    progress: Progress = lambda _: None,
    verify: Callable[[ClusterState], None] | None = None,
    in_use: InUse | None = None,
) -> ApplyResult:
    """Apply `plan` to `cluster` (the steps above); `checkout` is the spec repository's git
    checkout (reconciler.git_repo, read once by the command), which the audit record names.
    `verify` (apply.verify, for a saved plan) judges the plan
    again against the state read under the lock and raises to refuse it. `in_use` reads the
    in-use evidence again right before the deletes (apply.in_use, execute.py)."""
    hash_ = content.plan_hash(plan)
    preflight.check_plan(plan, cluster.name)
    preflight.check_cluster_id(plan, cluster)
    if plan.empty and not leftovers.reported(plan):
        return ApplyResult(cluster.name, hash_, (), None)
    who = content.actor()
    me = lock.Holder.me(who, hash_)
    stopping.check("taking the lock")
    broken = lock.acquire(cluster, me, force_unlock, progress)
    renewal = lock.Lease(cluster, me).start()
    results: tuple[OperationResult, ...] = ()
    started = time.time()
    outcome = "interrupted"
    resumed: tuple[str, ...] = ()
    record: Finished | None = None
    audit_error: str | None = None
    executor: Executor | None = None
    log: journal.Journal | None = None
    header: Started | None = None
    accounted = False  # every planned operation has a result
    besides, refused = 0, list[str]()  # ACL and quota changes sent, and Kafka's refusals
    already_applied = False  # the cluster showed every planned change before this apply
    try:
        stopping.test_point("locked")
        state = cluster.read_state()
        if verify is not None:
            verify(state)
        fresh = preflight.freshness(plan, state)
        ops = operations(plan.changes)
        left = preflight.remaining(ops, state)  # pre-flight judges only what is left to do
        todo = left.todo
        tail = journal.read_tail(cluster)  # unfinished applies, throttles left recorded
        earlier = tail.unfinished
        # "Interrupted" only of an apply of this plan whose audit record never finished
        resumed = fresh.resumed if journal.started_for(earlier, hash_) else ()
        if resumed:
            progress(
                f"resuming: the cluster already shows part of this plan for {len(resumed)} "
                "topic(s) (an earlier apply of it was interrupted); finished work is not repeated"
            )
        elif todo and len(todo) < len(ops):
            progress(
                f"the cluster already shows {len(ops) - len(todo)} of this plan's "
                f"{len(ops)} operation(s) done; they are not repeated"
            )
        acl_work = acl_steps.remaining(plan.changes, state.acls, plan.acls)
        quota_work = quota_steps.remaining(plan.quotas, state.quotas)
        user_work = user_steps.remaining(plan.users, state.scram)
        besides_needs = access.access_needs(
            len(acl_work.revokes) + len(acl_work.grants), len(quota_work), len(user_work)
        )
        access.check(cluster, state, todo, besides_needs)  # every ACL the changes need, or refuse
        preflight.validate(cluster, state, todo)
        apply_id = str(uuid.uuid4())
        git = checkout.to_json() if checkout is not None else None
        header = Started.of(apply_id, plan, hash_, who, git, started,
                            resumed, str(broken) if broken else None)  # fmt: skip
        # Unfinished records are a dead apply's only while the lock is ours: check it first
        renewal.check("closing unfinished audit records", confirm=True)
        stopping.check("the first change")
        journal.close_unfinished(cluster, state, apply_id, progress, earlier, tail.throttles)
        already_applied = bool(ops) and not todo
        if not (todo or tail.throttles or acl_work or quota_work or user_work):  # no journal
            results = tuple(OperationResult(op, Status.UNCHANGED, left.done[op.id]) for op in ops)
            return ApplyResult(cluster.name, hash_, results, None, already_applied=already_applied)
        log = journal.Journal.open(cluster, header, progress, tail.throttles)
        opts = options or Options()
        # throttles earlier applies left, once the moves they throttle are done
        leftovers.remove(cluster, log, progress, opts.reassignment_timeout, opts.poll_interval)

        in_flight: set[int] = set()  # the operations of the level under way

        def before(number: int, level: Level) -> None:
            renewal.check(f"level {number} ({level.name})")
            in_flight.clear()
            in_flight.update(op.id for op in level.operations)

        executor = Executor(
            cluster, state, opts, progress, before, log.level, ledger=log,
            in_use=in_use,
        )  # fmt: skip
        try:
            # revokes before every topic level (so before any delete), grants after them all
            refused = acl_steps.run(cluster, acl_work.revokes, False, progress)
            results = executor.run(levels(ops))
            refused += acl_steps.run(cluster, acl_work.grants, True, progress)
            refused += quota_steps.run(cluster, quota_work, progress)
            refused += user_steps.run(cluster, user_work, progress)
            besides = len(acl_work.revokes) + len(acl_work.grants) + len(quota_work)
            besides += len(user_work)
            undone = bool(refused) or any(not r.status.succeeded for r in results)
            outcome = ("interrupted" if stopping.asked() else "failed") if undone else "succeeded"
            accounted = True
        except ReconcilerError as exc:
            # Report every planned change as the cluster shows it, rather than stop with the error
            progress(f"apply interrupted: {exc}")
            results, accounted = interrupted.account(
                cluster, state, ops, executor.results, in_flight, str(exc)
            )
    finally:
        stopping.test_point("finishing")
        try:
            if log is not None and header is not None:
                if not results and executor is not None:  # Ctrl-C and the like: no time to read
                    results = tuple(executor.results.values())
                sent = AccessOutcome(besides, tuple(refused))
                record = Finished.of(header, started, time.time(), results, outcome, sent)
                if accounted:
                    audit_error = log.finish(record)
                else:
                    audit_error = "the apply did not finish; the next apply closes its record"
        finally:
            renewal.stop()
            lock.release(cluster, me, progress)
    return ApplyResult(cluster.name, hash_, results, record, audit_error, already_applied,
                       besides, tuple(refused))  # fmt: skip
