"""The use cases the CLI runs, as functions from inputs to values; the CLI formats and prints.

plan(): load and validate the specs for one cluster -> read the cluster's state (live, batched;
or a snapshot file) -> diff, policies and order (pure) -> a Plan whose `based_on` is the
fingerprint of the state of the topics it touches.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import git

from reconciler.apply import ApplyResult, Options, apply_plan
from reconciler.cluster import adapter
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.snapshot import load_snapshot
from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic
from reconciler.errors import ConfigError, ReconcilerError
from reconciler.planning.drift import DriftReport
from reconciler.planning.drift import drift as find_drift
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import Plan, diagnostic_order, make_plan
from reconciler.spec.loader import load_repo
from reconciler.spec.model import ClusterConfig, DesiredState, RepoConfig
from reconciler.spec.repo_config import load_repo_config


class InvalidSpecs(ReconcilerError):
    """The spec files have error diagnostics; nothing was read from or sent to any cluster."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        errors = sum(1 for d in diagnostics if d.is_error)
        super().__init__(
            f"{errors} error(s) in the spec files; fix them (see `reconciler validate`) and retry"
        )
        self.diagnostics = diagnostics


@dataclass(frozen=True, slots=True)
class Specs:
    cluster: ClusterConfig
    desired: DesiredState
    warnings: tuple[Diagnostic, ...]


def load_specs(repo: Path, cluster: str) -> Specs:
    """Load and validate the repo for one cluster; any error diagnostic raises InvalidSpecs."""
    result = load_repo(repo, cluster)
    if any(d.is_error for d in result.diagnostics) or result.config is None:
        raise InvalidSpecs(result.diagnostics)
    chosen = select_cluster(result.config, cluster)
    return Specs(chosen, result.desired[cluster], result.diagnostics)


def select_cluster(config: RepoConfig, cluster: str) -> ClusterConfig:
    """The named cluster of reconciler.yaml; a ConfigError listing the known ones if absent."""
    if cluster not in config.clusters:
        known = ", ".join(sorted(config.clusters)) or "none"
        raise ConfigError(
            f"unknown cluster '{cluster}': reconciler.yaml defines {known}; pass one of them "
            "with --cluster"
        )
    return config.clusters[cluster]


def connection(cluster: ClusterConfig) -> adapter.Connection:
    return adapter.Connection(cluster.name, cluster.bootstrap, cluster.client)


def read_state(cluster: ClusterConfig, snapshot: Path | None = None) -> ClusterState:
    """The cluster's state: from the snapshot file if given, else live in batched round trips."""
    if snapshot is None:
        return adapter.read_state(connection(cluster))
    name, state = load_snapshot(snapshot)
    if name != cluster.name:
        raise ConfigError(
            f"{snapshot} is a snapshot of cluster '{name}', not '{cluster.name}'; pass the "
            "matching --cluster or snapshot file"
        )
    return state


def cluster_config(repo: Path, cluster: str) -> ClusterConfig:
    """One cluster's settings from reconciler.yaml alone (topic files are not read)."""
    config, found = load_repo_config(Path(repo), os.environ)
    if config is None or any(d.is_error for d in found):
        raise InvalidSpecs(tuple(found))
    return select_cluster(config, cluster)


def plan(
    repo: Path,
    cluster: str,
    snapshot: Path | None = None,
    prune: bool = False,
    changed_since: str | None = None,
) -> Plan:
    """The plan for one cluster; `changed_since` keeps the topics of files changed since a ref."""
    specs = load_specs(repo, cluster)
    only = changed_topics(repo, specs.desired, changed_since) if changed_since else None
    state = read_state(specs.cluster, snapshot)
    draft = make_plan(specs.desired, state, specs.cluster, based_on="", prune=prune)
    if only is not None:
        draft = restrict(draft, only)
    touched = [c.topic for c in draft.changes]
    with_warnings = tuple(sorted({*draft.diagnostics, *specs.warnings}, key=diagnostic_order))
    return dataclasses.replace(
        draft, based_on=fingerprint(state, touched), diagnostics=with_warnings
    )


def restrict(plan: Plan, topics: frozenset[str]) -> Plan:
    """The part of a plan about `topics`: their changes and diagnostics, and those of no topic.

    Unmanaged topics stay listed: they do not depend on which spec files changed.
    """
    return dataclasses.replace(
        plan,
        changes=tuple(c for c in plan.changes if c.topic in topics),
        diagnostics=tuple(d for d in plan.diagnostics if d.topic is None or d.topic in topics),
    )


def changed_topics(repo: Path, desired: DesiredState, ref: str) -> frozenset[str]:
    """Topics declared in spec files that differ from git `ref` (committed, staged, or not).

    A topic whose declaration was removed from a changed file is no longer in `desired`; it
    shows as unmanaged, as in a full plan.
    """
    changed = changed_files(repo, ref)
    return frozenset(name for name, spec in desired.topics.items() if spec.location.file in changed)


def changed_files(repo: Path, ref: str) -> frozenset[str]:
    """Paths relative to `repo` (with `/`) changed since `ref`, plus untracked files."""
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


# ---------------------------------------------------------------------------- apply


def load_plan(path: Path) -> Plan:
    """A saved plan (`plan -o PLAN.json`); ConfigError when the file is not one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        return from_json(document)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{path} is not a saved plan this reconciler can read ({exc}); save one with "
            "`reconciler plan --cluster NAME -o PLAN.json`"
        ) from exc


def apply(
    repo: Path,
    cluster: str,
    saved: Plan,
    *,
    fail_fast: bool = False,
    force_unlock: bool = False,
    throttle: int | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> ApplyResult:
    """Apply `saved` (a reviewed plan, or one just made and confirmed) to `cluster`.

    The specs are loaded again for the cluster's connection and the hazards they acknowledge;
    reconciler.apply.run lists the steps.
    """
    specs = load_specs(repo, cluster)
    return apply_plan(
        saved,
        connection(specs.cluster),
        specs.desired,
        repo,
        force_unlock=force_unlock,
        options=Options(fail_fast=fail_fast, throttle=throttle),
        progress=progress,
    )


# ---------------------------------------------------------------------------- drift


@dataclass(frozen=True, slots=True)
class DriftRun:
    report: DriftReport
    state: ClusterState  # what was read, for --snapshot-out


def drift(repo: Path, cluster: str) -> DriftRun:
    """What differs between the specs and the live cluster: the planner's findings, as drift."""
    specs = load_specs(repo, cluster)
    state = read_state(specs.cluster)
    found = make_plan(specs.desired, state, specs.cluster, fingerprint(state, state.topics))
    return DriftRun(find_drift(found, specs.desired, state), state)
