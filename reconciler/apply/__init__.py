"""Apply: pre-flight, lock, DAG execution level by level, audit.

operations.py   the plan as a DAG of operations, cut into levels (pure)
preflight.py    plan checks, stale-plan refusal, Kafka's validate_only
lock.py         the per-cluster lock's holder, taking and breaking it
execute.py      one request per kind per level, convergence, waiting for metadata
sentences.py    Kafka error codes as sentences
audit.py        the audit record
results.py      what each operation and the whole apply did
run.py          one apply, start to end
"""

from reconciler.apply.execute import Options
from reconciler.apply.lock import LockHeld
from reconciler.apply.operations import Level, Operation, Step, levels, operations
from reconciler.apply.preflight import ApplyRefused, StalePlan
from reconciler.apply.results import ApplyResult, OperationResult, Status
from reconciler.apply.run import apply_plan

__all__ = [
    "ApplyRefused",
    "ApplyResult",
    "Level",
    "LockHeld",
    "Operation",
    "OperationResult",
    "Options",
    "StalePlan",
    "Status",
    "Step",
    "apply_plan",
    "levels",
    "operations",
]
