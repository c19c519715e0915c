"""What a pull request changed: spec files that differ from a git ref, and the plan changes
they cause (`plan --changed-since REF`).

GitPython reads the repository; the work tree and the index are never touched. A ref git does
not know (a shallow CI checkout) is a ConfigError saying to fetch it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import git

from reconciler.errors import ConfigError
from reconciler.planning.plan import Plan
from reconciler.spec.loader import TEMPLATE_SUFFIX, TOPIC_SUFFIXES, load_repo
from reconciler.spec.model import DesiredState
from reconciler.spec.repo_config import REPO_CONFIG


def caused_by_change(
    repo: Path,
    cluster: str,
    desired: DesiredState,
    draft: Plan,
    ref: str,
    changed: frozenset[str],
) -> frozenset[str]:
    """The topics of `draft` whose change the spec repository made since `ref`:

    - a topic declared in a spec file changed since `ref` (`changed`), and a topic of a
      template (`*.yaml.j2`) when reconciler.yaml, which holds its `vars`, changed;
    - a topic deleted with no spec naming it now (`--prune`) whose declaration `ref` had: it was
      removed since. When the specs at `ref` cannot be read (invalid there, or the cluster not
      defined yet), every such delete counts as the change's own: a delete is called drift only
      when the topic was unmanaged at `ref` too.

    Every other change is drift: the cluster already differed from specs `ref` holds unchanged.
    """
    config_changed = REPO_CONFIG in changed
    ours = {
        name
        for name, spec in desired.topics.items()
        if spec.location.file in changed
        or (config_changed and spec.location.file.endswith(TEMPLATE_SUFFIX))
    }
    orphans = [c.topic for c in draft.changes if c.topic not in desired.topics]
    if orphans:
        before = declared_at(repo, cluster, ref)
        ours.update(t for t in orphans if before is None or t in before)
    return frozenset(ours)


def declared_at(repo: Path, cluster: str, ref: str) -> frozenset[str] | None:
    """The topics the spec repository declared for `cluster` at git `ref`, or None when they
    cannot be told (the specs there have errors, or do not define the cluster).

    The spec files of `ref` (reconciler.yaml and every `*.yaml` / `*.yaml.j2`) are copied out
    of git into a temporary directory and loaded as usual; the work tree and the index are
    never touched.
    """
    git_repo = _git_repo(repo, ref)
    here = Path(repo).absolute().resolve()
    prefix = here.relative_to(Path(git_repo.working_dir).resolve()).as_posix()
    tree = git_repo.commit(ref).tree
    try:
        root = tree if prefix == "." else tree / prefix
    except KeyError:
        return None  # the spec repository did not exist at `ref`
    with tempfile.TemporaryDirectory(prefix="reconciler-ref-") as scratch:
        for item in root.traverse():
            if not isinstance(item, git.Blob) or item.mode == git.Blob.link_mode:
                continue  # directories, submodules; symlinks (the loader refuses escapes)
            rel = Path(item.path).relative_to(root.path) if root.path else Path(item.path)
            if rel.as_posix() != REPO_CONFIG and not rel.name.endswith(TOPIC_SUFFIXES):
                continue
            target = Path(scratch, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(item.data_stream.read())
        loaded = load_repo(Path(scratch), cluster)
    if not loaded.valid or cluster not in loaded.desired:
        return None
    return frozenset(loaded.desired[cluster].topics)


def changed_files(repo: Path, ref: str) -> frozenset[str]:
    """Paths relative to `repo` (with `/`) changed since `ref`, plus untracked files."""
    git_repo = _git_repo(repo, ref)
    top = Path(git_repo.working_dir)
    names = git_repo.git.diff("--name-only", "--no-renames", ref, "--").splitlines()
    names += git_repo.untracked_files
    here = Path(repo).absolute().resolve()
    found: set[str] = set()
    for name in names:
        path = (top / name).resolve()
        if path.is_relative_to(here):
            found.add(path.relative_to(here).as_posix())
    return frozenset(found)


def _git_repo(repo: Path, ref: str) -> git.Repo:
    """The git repository holding `repo`, once `ref` is known to name a commit in it."""
    try:
        git_repo = git.Repo(repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ConfigError(
            f"--changed-since needs a git repository, and {repo} is not in one"
        ) from exc
    try:
        git_repo.commit(ref)
    except (git.BadName, ValueError) as exc:
        raise ConfigError(
            f"--changed-since: '{ref}' is not a commit, branch or tag of {git_repo.working_dir}; "
            "fetch it first (CI checkouts are often shallow: fetch-depth 0)"
        ) from exc
    return git_repo
