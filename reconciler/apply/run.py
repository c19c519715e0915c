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
from reconciler.cluster import adapter
from reconciler.cluster.adapter import Connection
from reconciler.errors import ReconcilerError
from reconciler.planning.plan import Plan
from reconciler.spec.model import DesiredState

Progress = Callable[[str], None]


def apply_plan(
    plan: Plan,
    connection: Connection,
    desired: DesiredState,
    repo: Path,
    *,
    force_unlock: bool = False,
    options: Options | None = None,
    progress: Progress = lambda _: None,
) -> ApplyResult:
    hash_ = audit.plan_hash(plan)
    preflight.check_plan(plan, connection.name)
    if not plan.changes:
        return ApplyResult(connection.name, hash_, (), {})
    who = audit.actor()
    me = lock.Holder.me(who, hash_)
    broken = lock.acquire(connection, me, force_unlock, progress)
    results: tuple[OperationResult, ...] = ()
    started = time.time()
    outcome = "interrupted"
    resumed: tuple[str, ...] = ()
    record: dict[str, object] = {}
    audit_error: str | None = None
    executed = False
    try:
        state = adapter.read_state(connection)
        fresh = preflight.freshness(plan, state)
        resumed = fresh.resumed
        if resumed:
            progress(
                f"resuming: the cluster already shows part of this plan for {len(resumed)} "
                "topic(s) (an earlier apply of it was interrupted); finished work is not repeated"
            )
        ops = operations(plan.changes)
        preflight.validate(connection, state, ops)
        executor = Executor(connection, state, options or Options(), progress)
        executed = True
        results = executor.run(levels(ops))
        outcome = "failed" if any(not r.status.succeeded for r in results) else "succeeded"
    finally:
        try:
            if executed:
                finished = time.time()
                if outcome == "interrupted":
                    results = tuple(executor.results.values())
                record = audit.record(
                    cluster=connection.name,
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
                    adapter.write_audit(
                        connection, connection.name, json.dumps(record, sort_keys=True).encode()
                    )
                except ReconcilerError as exc:
                    audit_error = str(exc)
        finally:
            lock.release(connection)
    return ApplyResult(connection.name, hash_, results, record, audit_error)
