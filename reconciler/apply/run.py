"""One apply, start to end.

    1. check the plan: this cluster (its name and the id its brokers report), applyable
       (limits and policies hold), hazards acknowledged
    2. take the cluster's lock (breaking a holder only when it is certainly gone: lock.py) and
       start renewing its lease
    3. read the cluster; refuse a stale plan, resume one this plan's interrupted apply left behind
    4. let Kafka validate the creates and partition increases (validate_only)
    5. close the audit records of earlier applies that never finished, then start this apply's
       (journal.py): no change is made unless that record is on the cluster
    6. execute the DAG level by level, waiting for metadata after each, checking the lease
       before and journaling the results after each level
    7. write the final audit record, release the lock

Steps 1-4 change nothing on the cluster but the lock. Whatever happens in 6, every planned
change is accounted for (interrupted.py: an interrupted apply reports what the cluster shows),
the final record is written (best effort: else the next apply closes it) and the lock released.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reconciler.apply import audit, interrupted, journal, lock, permissions, preflight
from reconciler.apply.execute import Executor, Options
from reconciler.apply.operations import Level, levels, operations
from reconciler.apply.results import ApplyResult, OperationResult
from reconciler.cluster.adapter import Cluster
from reconciler.cluster.state import ClusterState
from reconciler.errors import ReconcilerError
from reconciler.planning.plan import Plan

Progress = Callable[[str], None]


def apply_plan(
    plan: Plan,
    cluster: Cluster,
    repo: Path,
    *,
    force_unlock: bool = False,
    options: Options | None = None,
    progress: Progress = lambda _: None,
    verify: Callable[[ClusterState], None] | None = None,
) -> ApplyResult:
    """Apply `plan` to `cluster` (the steps above); `repo` is the spec repository, whose git
    HEAD the audit record names. `verify` (apply.verify, for a saved plan) judges the plan
    again against the state read under the lock and raises to refuse it."""
    hash_ = audit.plan_hash(plan)
    preflight.check_plan(plan, cluster.name)
    preflight.check_cluster_id(plan, cluster)
    if not plan.changes:
        return ApplyResult(cluster.name, hash_, (), {})
    who = audit.actor()
    me = lock.Holder.me(who, hash_)
    broken = lock.acquire(cluster, me, force_unlock, progress)
    lease = lock.Lease(cluster, me).start()
    results: tuple[OperationResult, ...] = ()
    started = time.time()
    outcome = "interrupted"
    resumed: tuple[str, ...] = ()
    record: dict[str, object] = {}
    audit_error: str | None = None
    executor: Executor | None = None
    log: journal.Journal | None = None
    accounted = False  # every planned operation has a result
    git: dict[str, Any] | None = None
    try:
        state = cluster.read_state()
        if verify is not None:
            verify(state)
        fresh = preflight.freshness(plan, state)
        resumed = fresh.resumed
        if resumed:
            progress(
                f"resuming: the cluster already shows part of this plan for {len(resumed)} "
                "topic(s) (an earlier apply of it was interrupted); finished work is not repeated"
            )
        ops = operations(plan.changes)
        permissions.check(cluster, state, ops)  # every ACL the operations need, or refuse
        preflight.validate(cluster, state, ops)
        git = audit.git_info(repo)
        header: dict[str, object] = {"cluster": cluster.name,
                  "cluster_id": plan.cluster_id, "who": who, "git": git,
                  "plan_hash": hash_, "started": audit.iso(started), "resumed": list(resumed),
                  "broken_lock": str(broken) if broken else None}  # fmt: skip
        apply_id = str(uuid.uuid4())
        # Unfinished records are a dead apply's only while the lock is ours: check it first
        lease.check("closing unfinished audit records", confirm=True)
        journal.close_unfinished(cluster, state, apply_id, progress)
        log = journal.Journal.open(cluster, apply_id, header, plan, progress)

        in_flight: set[int] = set()  # the operations of the level under way

        def before(number: int, level: Level) -> None:
            lease.check(f"level {number} ({level.name})")
            in_flight.clear()
            in_flight.update(op.id for op in level.operations)

        executor = Executor(cluster, state, options or Options(), progress, before, log.level)
        try:
            results = executor.run(levels(ops))
            outcome = "failed" if any(not r.status.succeeded for r in results) else "succeeded"
            accounted = True
        except ReconcilerError as exc:
            # Report every planned change as the cluster shows it, rather than stop with the error
            progress(f"apply interrupted: {exc}")
            results, accounted = interrupted.account(
                cluster, state, ops, executor.results, in_flight, str(exc)
            )
    finally:
        try:
            if executor is not None and log is not None:
                finished = time.time()
                if not results:  # Ctrl-C and the like: no time to read the cluster
                    results = tuple(executor.results.values())
                record = audit.record(
                    cluster=cluster.name,
                    who=who,
                    git=git,
                    plan=plan,
                    hash_=hash_,
                    started=started,
                    finished=finished,
                    results=results,
                    outcome=outcome,
                    resumed=resumed,
                    broken_lock=str(broken) if broken else None,
                )
                record["apply_id"] = log.apply_id
                if accounted:
                    audit_error = log.finish(record)
                else:
                    audit_error = "the apply did not finish; the next apply closes its record"
        finally:
            lease.stop()
            lock.release(cluster, me, progress)
    return ApplyResult(cluster.name, hash_, results, record, audit_error)
