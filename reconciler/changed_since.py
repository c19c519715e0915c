"""What a pull request changed: spec files that differ from a git ref, and the plan changes
they cause (`plan --changed-since REF`).

git is read through reconciler/git_repo.py; a ref git does not know (a shallow CI checkout) is
a ConfigError saying to fetch it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from reconciler import git_repo
from reconciler.planning.plan import Plan
from reconciler.spec.loader import TEMPLATE_SUFFIX, TOPIC_SUFFIXES, load_repo
from reconciler.spec.model import DesiredState, Policy
from reconciler.spec.repo_config import REPO_CONFIG, load_repo_config
from reconciler.spec.settings_scope import NONE


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
    with tempfile.TemporaryDirectory(prefix="reconciler-ref-") as scratch:
        if not git_repo.copy_at(repo, ref, _is_spec_file, Path(scratch)):
            return None  # the spec repository did not exist at `ref`
        loaded = load_repo(Path(scratch), cluster)
    if not loaded.valid or cluster not in loaded.desired:
        return None
    return frozenset(loaded.desired[cluster].topics)


def policy_at(repo: Path, cluster: str, ref: str) -> Policy | None:
    """`cluster`'s policy in reconciler.yaml at git `ref` (the base the plan's policy section
    compares with); None when reconciler.yaml there cannot be read or lacks the cluster."""
    with tempfile.TemporaryDirectory(prefix="reconciler-ref-") as scratch:
        if not git_repo.copy_at(repo, ref, _is_repo_config, Path(scratch)):
            return None
        # the policy alone: no cluster's bootstrap or client: is read or expanded
        config, found = load_repo_config(Path(scratch), os.environ, NONE)
    if config is None or any(d.is_error for d in found):
        return None
    chosen = config.clusters.get(cluster)
    return chosen.policy if chosen is not None else None


def _is_repo_config(rel: Path) -> bool:
    return rel.as_posix() == REPO_CONFIG


def _is_spec_file(rel: Path) -> bool:
    return rel.as_posix() == REPO_CONFIG or rel.name.endswith(TOPIC_SUFFIXES)
