"""Apply: pre-flight, lock, DAG execution level by level, audit.

run.py                    one apply, start to end (lists the steps)
lock.py                   the per-cluster lock: holder identity, its lease (renewed while
                          applying), breaking only a certain-dead holder
leftovers.py              what other applies left: the lock's holder and recorded throttles
                          (read for plan and drift); removing those throttles (apply)

check/      before anything changes
  preflight.py            plan checks, stale-plan refusal or resume, Kafka's validate_only
  verify.py               a saved plan against the plan derived again from specs and cluster
  in_use.py               a delete now in use beyond what the saved plan showed is Diverged
  access.py               every ACL the operations need, before any change
execute/    sending the changes
  operations.py           the plan as a DAG of operations, cut into levels (pure)
  levels.py               the level loop: skip, judge, send, wait; one result per operation
  verdict.py              is a planned change on the cluster: Done, Partly, NotStarted,
                          Diverged (pure)
  batching.py             the requests a level sends, cut where Kafka's limits demand (pure)
  dispatch.py             one request per kind per level, and what each answer means
  reassign.py             replication-factor changes: start every move of a level, follow them
  throttling.py           --throttle: the replication throttle around a level's reassignments
  wait.py                 waiting until metadata shows what Kafka accepted
  sentences.py            Kafka error codes as sentences
record/     what an apply did
  audit_record.py         the audit record's kinds (started, progress, finished, closed) as
                          frozen values, built and parsed only here; stable operation ids
  content.py              who applies, from which git HEAD, the plan hash
  journal.py              the audit record as a write-ahead log; closing applies that never
                          finished
  interrupted.py          an interrupted apply's every change, as the cluster shows it
  outcome.py              what each operation did (its Status, unknown included)
  results.py              what the whole apply did, with its audit record

The cluster is reached only through the Protocols of reconciler.cluster.ports, each function
taking the narrowest (reconciler.cluster.adapter.Cluster implements them all) and speaking the
values of reconciler.cluster.protocol; its errors, and apply's own refusals (ApplyRefused,
StalePlan, PlanMismatch, LockHeld), are in reconciler.errors; a stop asked by SIGINT/SIGTERM is
reconciler.stopping's.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reconciler.apply.execute.levels import Options
    from reconciler.apply.execute.operations import Level, Operation, Step, levels, operations
    from reconciler.apply.record.outcome import OperationResult, Status
    from reconciler.apply.record.results import ApplyResult
    from reconciler.apply.run import apply_plan

# Imported on first use: `plan` and `drift` read what other applies left (apply/leftovers.py)
# and must not load the whole apply machinery for it.
_FROM = {
    "Options": "reconciler.apply.execute.levels",
    "Level": "reconciler.apply.execute.operations",
    "Operation": "reconciler.apply.execute.operations",
    "Step": "reconciler.apply.execute.operations",
    "levels": "reconciler.apply.execute.operations",
    "operations": "reconciler.apply.execute.operations",
    "ApplyResult": "reconciler.apply.record.results",
    "OperationResult": "reconciler.apply.record.outcome",
    "Status": "reconciler.apply.record.outcome",
    "apply_plan": "reconciler.apply.run",
}


def __getattr__(name: str) -> object:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_FROM[name]), name)


__all__ = [
    "ApplyResult",
    "Level",
    "Operation",
    "OperationResult",
    "Options",
    "Status",
    "Step",
    "apply_plan",
    "levels",
    "operations",
]
