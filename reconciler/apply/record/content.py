"""The audit record of one apply: who, from which commit, which plan, and what each change did.

Written as one JSON record to the cluster's audit topic (adapter.audit) and returned to the CLI,
which prints it on request (--audit-json).
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from reconciler.apply.record.results import OperationResult, Status
from reconciler.planning.json_plan import to_json
from reconciler.planning.plan import Plan


def plan_hash(plan: Plan) -> str:
    """`sha256:` of the plan's canonical JSON: the same reviewed plan always has the same hash."""
    text = json.dumps(to_json(plan), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def actor() -> str:
    """Who runs the apply: the CI's actor if there is one, else the local user, @host."""
    user = os.environ.get("RECONCILER_ACTOR") or os.environ.get("GITHUB_ACTOR")
    if not user:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "unknown"
    return f"{user}@{socket.gethostname()}"


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")


def record(
    *,
    cluster: str,
    who: str,
    git: dict[str, Any] | None,
    plan: Plan,
    hash_: str,
    started: float,
    finished: float,
    results: Sequence[OperationResult],
    outcome: str,
    resumed: Sequence[str] = (),
    broken_lock: str | None = None,
) -> dict[str, Any]:
    counts = {s.value: sum(1 for r in results if r.status is s) for s in Status}
    return {
        "format_version": 1,
        "cluster": cluster,
        "cluster_id": plan.cluster_id,  # apply refuses a plan of another id: the cluster's
        "who": who,
        "git": git,
        "plan_hash": hash_,
        "based_on": plan.based_on,
        "started": iso(started),
        "finished": iso(finished),
        "seconds": round(finished - started, 3),
        "outcome": outcome,
        "counts": counts,
        "resumed": list(resumed),
        "broken_lock": broken_lock,
        "changes": [r.to_json() for r in results],
    }
