"""The spec repository's git, read through GitPython: the checkout an apply records (its audit
record's `git`, and the warning of uncommitted changes), what `plan --changed-since REF`
compares with, the commit a saved plan was made at, and the branch `reconciler init` wires
into the apply workflow. The work tree and the index are never
touched.

Each command reads git once: `checkout` is called by the CLI's apply and its value passed along
to the audit record. GitPython is imported on first use, so only a command that reads git pays
for its import, and a machine without a git executable (GitPython's import then fails) applies
all the same, with no checkout recorded.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.errors import ConfigError

if TYPE_CHECKING:
    import git

_TIMEOUT = 10.0  # seconds for one git command (a hung hook or lock must not hold apply)


@dataclass(frozen=True, slots=True)
class Checkout:
    """The spec repository's HEAD, and what of the work tree differs from it."""

    commit: str
    author: str | None  # `Name <email>`
    message: str | None  # the whole message, surrounding blank lines stripped
    # Paths relative to the spec repository, sorted; untracked files count, since a new topic
    # file not yet committed is applied all the same
    changed_files: tuple[str, ...]

    @property
    def dirty(self) -> bool:
        return bool(self.changed_files)

    def to_json(self) -> dict[str, Any]:
        """The audit record's `git`."""
        return {
            "commit": self.commit,
            "author": self.author,
            "message": self.message,
            "dirty": self.dirty,
            "changed_files": list(self.changed_files),
        }


def checkout(repo: Path) -> Checkout | None:
    """The checkout holding `repo`; None outside a git work tree, before its first commit, or
    without git."""
    try:
        import git
    except ImportError:  # GitPython finds no git executable
        return None
    try:
        head = git.Repo(repo, search_parent_directories=True).head.commit
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        return None  # ValueError: HEAD names no commit yet
    here = git.Git(str(repo))
    changed = _lines(here, "diff", "--name-only", "--relative", "HEAD", "--", ".")
    changed += _lines(here, "ls-files", "--others", "--exclude-standard", "--", ".")
    message = head.message if isinstance(head.message, str) else head.message.decode()
    return Checkout(
        commit=head.hexsha,
        author=f"{head.author.name} <{head.author.email}>",
        message=message.strip(),
        changed_files=tuple(sorted(set(changed))),
    )


def head_commit(repo: Path) -> str | None:
    """The commit checked out at `repo` (a saved plan's `source`, spec/digest.py); None
    outside a git work tree, before the first commit, or without git. One `git rev-parse`
    rather than GitPython: every plan asks, and importing GitPython would cost plan more than
    the whole answer."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--verify", "HEAD"],
            capture_output=True, text=True, timeout=_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def changed_files(repo: Path, ref: str) -> frozenset[str]:
    """Paths relative to `repo` (with `/`) changed since `ref`, plus untracked files."""
    repository = _at(repo, ref)
    top = Path(repository.working_dir)
    names = repository.git.diff("--name-only", "--no-renames", ref, "--").splitlines()
    names += repository.untracked_files
    here = Path(repo).absolute().resolve()
    found: set[str] = set()
    for name in names:
        path = (top / name).resolve()
        if path.is_relative_to(here):
            found.add(path.relative_to(here).as_posix())
    return frozenset(found)


def copy_at(repo: Path, ref: str, wanted: Callable[[Path], bool], into: Path) -> bool:
    """Copy the files under `repo` that git `ref` holds and `wanted` accepts (given their path
    relative to `repo`) into `into`, at the same relative paths, and every symbolic link whose
    target stays inside `repo` (a linked folder of specs: the loader follows it, and refuses a
    link escaping the repository); False when `repo`'s directory did not exist at `ref`.
    Submodules are left out."""
    import git

    repository = _at(repo, ref)
    here = Path(repo).absolute().resolve()
    prefix = here.relative_to(Path(repository.working_dir).resolve()).as_posix()
    tree = repository.commit(ref).tree
    try:
        root = tree if prefix == "." else tree / prefix
    except KeyError:
        return False
    for item in root.traverse():
        if not isinstance(item, git.Blob):
            continue
        rel = Path(item.path).relative_to(root.path) if root.path else Path(item.path)
        if item.mode == git.Blob.link_mode:
            _link(into, rel, item.data_stream.read().decode("utf-8", "replace"))
            continue
        if not wanted(rel):
            continue
        target = Path(into, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(item.data_stream.read())
    return True


def _link(into: Path, rel: Path, target: str) -> None:
    """Recreate the link `rel` -> `target` under `into` if it points inside `into`."""
    path = Path(into, rel)
    inside = os.path.normpath(os.path.join(into, rel.parent, target))
    if os.path.isabs(target) or not inside.startswith(os.path.join(os.path.normpath(into), "")):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _at(repo: Path, ref: str) -> git.Repo:
    """The git repository holding `repo`, once `ref` is known to name a commit in it."""
    import git

    try:
        repository = git.Repo(repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ConfigError(
            f"--changed-since needs a git repository, and {repo} is not in one"
        ) from exc
    try:
        repository.commit(ref)
    except (git.BadName, ValueError) as exc:
        raise ConfigError(
            f"--changed-since: '{ref}' is not a commit, branch or tag of {repository.working_dir}; "
            "fetch it first (CI checkouts are often shallow: fetch-depth 0)"
        ) from exc
    return repository


def _lines(here: git.Git, *args: str) -> list[str]:
    """A git command's output lines; none when git fails or times out (no answer, as for a
    command git does not know)."""
    import git

    try:
        out = here.execute(["git", *args], kill_after_timeout=_TIMEOUT)
    except (git.GitCommandError, OSError):
        return []
    return str(out).splitlines()


def _answer(*args: str, cwd: Path | None = None) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):  # no git here: nothing to detect
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and answer else None


def default_branch(directory: Path) -> tuple[str, str] | None:
    """The branch the apply workflow `reconciler init` writes applies merges to, as (branch,
    how it was found), or None when git says neither: the branch of the git repository
    `directory` already is (even before its first commit: `git init` then `reconciler init`
    is what the README shows), else git's `init.defaultBranch` setting (what a later
    `git init` makes). The CLI then asks on a terminal, or takes `main` and says so."""
    where = next((p for p in (directory, *directory.parents) if p.is_dir()), None)
    if where is not None and directory.is_dir():
        inside = _answer("rev-parse", "--show-toplevel", cwd=directory)
        current = _answer("symbolic-ref", "--short", "HEAD", cwd=directory) if inside else None
        if current:
            return current, f"the current branch of the git repository {inside}"
    configured = _answer("config", "--get", "init.defaultBranch", cwd=where)
    if configured:
        return configured, "git's init.defaultBranch setting"
    return None
