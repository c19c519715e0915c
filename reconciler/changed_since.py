"""What a pull request changed: spec files that differ from a git ref, and the plan changes
they cause (`plan --changed-since REF`).

git is read through reconciler/git_repo.py; a ref git does not know (a shallow CI checkout) is
a ConfigError saying to fetch it.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from reconciler import git_repo
from reconciler.diagnostics import Location
from reconciler.planning.plan import Plan
from reconciler.spec.loader import TOPIC_SUFFIXES, load_repo
from reconciler.spec.model import DesiredState, Policy, TopicSpec
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
    """The topics of `draft` whose change the spec repository made since `ref`, topic by topic:

    - a topic whose spec now differs from its spec at `ref` in anything the plan reads (counts,
      configs, placement, state, dependencies, approvals), or that `ref` did not declare;
    - a topic deleted with no spec naming it now (`--prune`) whose declaration `ref` had.

    Specs are compared as loaded (templates rendered, file defaults applied, symbolic links
    followed), so another topic of an edited file, a comment or a reordering is not the change's
    own, and an edit reached through a linked folder is. When the specs at `ref` cannot be read
    (invalid there, or the cluster not defined yet), every change counts as the change's own:
    a change is called drift only with proof. No spec file changed (`changed`): all is drift.
    """
    if not any(_is_spec_file(Path(name)) for name in changed) and not _linked(repo, desired):
        return frozenset()
    before = specs_at(repo, cluster, ref)
    touched = {c.topic for c in draft.changes}
    if before is None:
        return frozenset(touched)
    return frozenset(
        name
        for name in touched
        if (name in before and name not in desired.topics)  # its declaration was removed
        or (name in desired.topics and _differs(before.get(name), desired.topics[name]))
    )


def _differs(before: TopicSpec | None, now: TopicSpec) -> bool:
    """Whether a topic's spec changed (or is new) in anything the plan reads."""
    return before is None or _as_planned(before) != _as_planned(now)


def _as_planned(spec: TopicSpec) -> TopicSpec:
    """A spec without what the plan does not act on: where it stands, its description."""
    return dataclasses.replace(spec, location=_NOWHERE, description=None)


_NOWHERE = Location("", 0, 0)


def _linked(repo: Path, desired: DesiredState) -> bool:
    """Whether a spec file is reached through a symbolic link (of its own or of a folder): git
    then names it by the path it links to, which `changed` cannot be matched with."""
    root = repo.resolve()
    files = {spec.location.file for spec in desired.topics.values()}
    return any((repo / name).resolve() != root / name for name in files)


def specs_at(repo: Path, cluster: str, ref: str) -> dict[str, TopicSpec] | None:
    """The topic specs the spec repository declared for `cluster` at git `ref`, or None when
    they cannot be told (the specs there have errors, or do not define the cluster).

    The spec files of `ref` (reconciler.yaml, every `*.yaml` / `*.yaml.j2`, and the symbolic
    links that stay inside the repository) are copied out of git into a temporary directory and
    loaded as usual; the work tree and the index are never touched.
    """
    with tempfile.TemporaryDirectory(prefix="reconciler-ref-") as scratch:
        if not git_repo.copy_at(repo, ref, _is_spec_file, Path(scratch)):
            return None  # the spec repository did not exist at `ref`
        loaded = load_repo(Path(scratch), cluster)
    if not loaded.valid or cluster not in loaded.desired:
        return None
    return dict(loaded.desired[cluster].topics)


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
