"""One apply, start to end.

    1. check the plan: this cluster, applyable (limits and policies hold), hazards acknowledged
    2. take the cluster's lock (breaking a crashed holder's: --force-unlock, or dead on this host)
    3. read the cluster; refuse a stale plan, resume one this plan's interrupted apply left behind
    4. let Kafka validate the creates and partition increases (validate_only)
    5. execute the DAG level by level, waiting for metadata after each
    6. write the audit record to the cluster, release the lock

Steps 1-4 change nothing on the cluster but the lock. Whatever happens in 5, the audit record
is written (best effort) and the lock released.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from reconciler.apply import audit, lock, preflight
from reconciler.apply.execute import Executor, Options
from reconciler.apply.operations import levels, operations
from reconciler.apply.results import ApplyResult, OperationResult
from reconciler.cluster.adapter import Cluster
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
) -> ApplyResult:
    """Apply `plan` to `cluster` (the steps above); `repo` is the spec repository, whose git
    HEAD the audit record names."""
    hash_ = audit.plan_hash(plan)
    preflight.check_plan(plan, cluster.name)
    if not plan.changes:
        return ApplyResult(cluster.name, hash_, (), {})
    who = audit.actor()
    me = lock.Holder.me(who, hash_)
    broken = lock.acquire(cluster, me, force_unlock, progress)
    results: tuple[OperationResult, ...] = ()
    started = time.time()
    outcome = "interrupted"
    resumed: tuple[str, ...] = ()
    record: dict[str, object] = {}
    audit_error: str | None = None
    executor: Executor | None = None
    try:
        state = cluster.read_state()
        fresh = preflight.freshness(plan, state)
        resumed = fresh.resumed
        if resumed:
            progress(
                f"resuming: the cluster already shows part of this plan for {len(resumed)} "
                "topic(s) (an earlier apply of it was interrupted); finished work is not repeated"
            )
        ops = operations(plan.changes)
        preflight.validate(cluster, state, ops)
        executor = Executor(cluster, state, options or Options(), progress)
        results = executor.run(levels(ops))
        outcome = "failed" if any(not r.status.succeeded for r in results) else "succeeded"
    finally:
        try:
            if executor is not None:
                finished = time.time()
                if outcome == "interrupted":
                    results = tuple(executor.results.values())
                record = audit.record(
                    cluster=cluster.name,
                    who=who,
                    git=audit.git_info(repo),
                    plan=plan,
                    hash_=hash_,
                    started=started,
                    finished=finished,
                    results=results,
                    outcome=outcome,
                    resumed=resumed,
                    broken_lock=str(broken) if broken else None,
                )
                try:
                    cluster.write_audit(cluster.name, json.dumps(record, sort_keys=True).encode())
                except ReconcilerError as exc:
                    audit_error = str(exc)
        finally:
            lock.release(cluster)
    return ApplyResult(cluster.name, hash_, results, record, audit_error)
