"""What the audit record says of an apply beyond its results: who, from which commit, which
plan (its hash), when. The record itself is audit_record.py's.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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


def git_info(repo: Path) -> dict[str, Any] | None:
    """The spec repository's HEAD (commit, author, message) and whether the work tree differs
    from it (`dirty`, with the changed paths), when it is a git work tree."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *args],
                capture_output=True, text=True, timeout=10, check=False,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    # Paths relative to the spec repository; untracked files count, since a new topic file not
    # yet committed is applied all the same.
    changed = (git("diff", "--name-only", "--relative", "HEAD", "--", ".") or "").splitlines()
    changed += (git("ls-files", "--others", "--exclude-standard", "--", ".") or "").splitlines()
    return {
        "commit": commit,
        "author": git("log", "-1", "--format=%an <%ae>"),
        "message": git("log", "-1", "--format=%B"),
        "dirty": bool(changed),
        "changed_files": sorted(set(changed)),
    }


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
