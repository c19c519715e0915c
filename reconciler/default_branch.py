"""The branch the apply workflow `reconciler init` writes applies merges to: the one git will
use for the new spec repository.

Asked of git, in this order: the branch of the git repository DIR already is (even before its
first commit: `git init` then `reconciler init` is what the README shows), else git's
`init.defaultBranch` setting (what a later `git init` makes). None when git says neither: the
CLI then asks on a terminal, or takes `main` and says so.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(*args: str, cwd: Path | None = None) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):  # no git here: nothing to detect
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and answer else None


def detect(directory: Path) -> tuple[str, str] | None:
    """(branch, how it was found) for a spec repository in `directory`, or None."""
    where = next((p for p in (directory, *directory.parents) if p.is_dir()), None)
    if where is not None and directory.is_dir():
        inside = _git("rev-parse", "--show-toplevel", cwd=directory)
        current = _git("symbolic-ref", "--short", "HEAD", cwd=directory) if inside else None
        if current:
            return current, f"the current branch of the git repository {inside}"
    configured = _git("config", "--get", "init.defaultBranch", cwd=where)
    if configured:
        return configured, "git's init.defaultBranch setting"
    return None
