"""What the audit record says of an apply beyond its results: who, from which commit, which
plan (its hash), when. The record itself is audit_record.py's.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
from datetime import UTC, datetime

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
