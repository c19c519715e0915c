"""The command context: the spec repository as one command sees it, read once.

Made once per command (the CLI's `Ctx.context`) and handed to every use case. reconciler.yaml
and the topic files are opened once (their bytes kept in `files`: spec/spec_files.py), a load
for one cluster and settings is made once, and the saved plan's digest is computed from that
load's bytes: the digest names the bytes that were planned, even when a file changes on disk
during the command. A later load of the same command (import's plan over the files it wrote,
apply after plan) reads the kept bytes, never the disk again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reconciler.diagnostics import Diagnostic
from reconciler.errors import InvalidSpecs
from reconciler.spec.digest import specs_digest
from reconciler.spec.loader import LoadResult, load_repo
from reconciler.spec.model import ClusterConfig, DesiredState, RepoConfig
from reconciler.spec.repo_config import load_repo_config, select_cluster
from reconciler.spec.settings_scope import EVERY, Settings
from reconciler.spec.spec_files import SpecFiles


@dataclass(frozen=True, slots=True)
class Specs:
    cluster: ClusterConfig
    desired: DesiredState
    warnings: tuple[Diagnostic, ...]


class Context:
    """One command's view of the spec repository at `repo`."""

    def __init__(self, repo: Path) -> None:
        self.repo = Path(repo)
        self.files = SpecFiles()
        self._loads: dict[tuple[str | None, Settings], LoadResult] = {}
        self._configs: dict[Settings, tuple[RepoConfig | None, tuple[Diagnostic, ...]]] = {}

    def load(self, cluster: str | None, settings: Settings | None = None) -> LoadResult:
        """The repository loaded for `cluster` (None: every cluster) with `settings`' clusters'
        settings read (loader.load_repo's defaults); made once per command."""
        if settings is None:
            settings = EVERY if cluster is None else Settings.of(cluster)
        key = (cluster, settings)
        if key not in self._loads:
            self._loads[key] = load_repo(self.repo, cluster, settings=settings, files=self.files)
        return self._loads[key]

    def reload(self, cluster: str) -> LoadResult:
        """`load` again after the command wrote spec files (`files.wrote`): their new bytes,
        the others' as first read."""
        self._loads.pop((cluster, Settings.of(cluster)), None)
        return self.load(cluster)

    def valid(self, cluster: str | None, settings: Settings | None = None) -> LoadResult:
        """`load`, raising InvalidSpecs on any error diagnostic."""
        loaded = self.load(cluster, settings)
        if not loaded.valid:
            raise InvalidSpecs(loaded.diagnostics)
        return loaded

    def specs(self, cluster: str) -> Specs:
        """The specs for one cluster, validated; any error diagnostic raises InvalidSpecs."""
        loaded = self.valid(cluster)
        assert loaded.config is not None  # valid
        chosen = select_cluster(loaded.config, cluster)
        return Specs(chosen, loaded.desired[cluster], loaded.diagnostics)

    def digest(self, cluster: str) -> str:
        """The digest a saved plan for `cluster` records (spec/digest.py), of the bytes its
        specs were loaded from."""
        return specs_digest(self.valid(cluster), self.files)

    def config(self, settings: Settings) -> tuple[RepoConfig | None, tuple[Diagnostic, ...]]:
        """reconciler.yaml alone, with `settings`' clusters' settings read (topic files are not
        read); a valid load already made for those settings answers without parsing again."""
        for (_, read), loaded in self._loads.items():
            if read == settings and loaded.valid:
                return loaded.config, ()
        if settings not in self._configs:
            config, found = load_repo_config(self.repo, os.environ, settings, self.files)
            self._configs[settings] = config, tuple(found)
        return self._configs[settings]

    def cluster_config(self, cluster: str) -> ClusterConfig:
        """One cluster's settings from reconciler.yaml (topic files are not read for it)."""
        config, found = self.config(Settings.of(cluster))
        if config is None or any(d.is_error for d in found):
            raise InvalidSpecs(found)
        return select_cluster(config, cluster)
