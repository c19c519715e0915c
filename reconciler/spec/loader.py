"""load_repo: the spec repository read, rendered and validated into desired state per cluster.

The orchestration only; each step is a module of its own, and every step returns its
diagnostics rather than stopping, so one run reports every problem:

1. reconciler.yaml: read safely, schema, env expansion of the selected clusters' settings
   (settings_scope.py: another cluster's variables are not looked up), regexes
   (repo_config.py).
2. Find the topic files (discovery.py): `topics/**/*.yaml` and `topics/**/*.yaml.j2`, sorted,
   and everything not loaded; what could hold topics goes into every DesiredState (`unread`),
   so the planner refuses deletes while it is there.
3. Read each file's text safely: size cap, NUL bytes, UTF-8, symlinks (source.py).
4. Templates (`*.yaml.j2`): compile once, render per selected cluster with `vars` and
   `cluster` (templates.py); the rendered YAML's locations map back to template lines.
5. Parse YAML 1.2 with locations (yaml_reader.py).
6. Read each file's topics (topic_reader.py): JSON Schema, the file's defaults merged in,
   configs normalised through the catalog (configs.py), Kafka's rules for one topic
   (kafka_rules.py).
7. Per cluster, the cross-file rules over the topics that cluster gets (cross_file.py):
   duplicates, `.`/`_` collisions, depends_on, cycles; and the cluster's policy patterns
   tried on every name it gets, under their bound (pattern_bounds.py).
8. Frozen TopicSpecs per cluster (a topic with `clusters:` only in those), and the diagnostics
   sorted. A plain file is the same for every cluster, so its diagnostics appear once; a
   diagnostic that only some clusters produce says which ("(for cluster prod)").

Nothing here raises for bad input; every problem is a Diagnostic.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler import gcpause
from reconciler.diagnostics import Diagnostic, Location, sort_key
from reconciler.spec import plain_files
from reconciler.spec.cross_file import cross_file
from reconciler.spec.discovery import (
    TEMPLATE_SUFFIX,
    TOPIC_SUFFIXES,
    NotRead,
    find_topic_files,
)
from reconciler.spec.model import DesiredState, RepoConfig, TopicSpec
from reconciler.spec.pattern_bounds import check_pattern_bounds
from reconciler.spec.raw_acls import RawAcl, repeated
from reconciler.spec.repo_config import load_repo_config
from reconciler.spec.settings_scope import EVERY, Settings
from reconciler.spec.source import Source, read_source, real_path
from reconciler.spec.spec_files import SpecFiles
from reconciler.spec.topic_reader import Topic, read_topic_file
from reconciler.spec.yaml_reader import parse_yaml

if TYPE_CHECKING:  # Jinja2 is imported only for a repository that has templates
    from reconciler.spec import templates

# Callers find topic files by these names; they belong to discovery.py.
__all__ = ["TEMPLATE_SUFFIX", "TOPIC_SUFFIXES", "LoadResult", "load_repo"]


@dataclass(frozen=True, slots=True)
class LoadResult:
    config: RepoConfig | None  # None when reconciler.yaml is missing or unreadable
    desired: dict[str, DesiredState]  # per selected cluster
    diagnostics: tuple[Diagnostic, ...]  # sorted by file, line, column, code
    files: int  # spec files read: reconciler.yaml and topic files
    # Every file and folder under the topics directory that is not loaded, with the reason
    # (discovery.py); those that could hold topics are R013 warnings and stop every delete
    not_read: tuple[NotRead, ...] = ()
    paths: tuple[Path, ...] = ()  # the topic files discovery found, in order (digest.py)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors

    @property
    def valid(self) -> bool:
        """No error diagnostic (warnings alone do not make a repository invalid)."""
        return self.config is not None and self.errors == 0

    @property
    def topic_names(self) -> frozenset[str]:
        """Every topic declared for any selected cluster."""
        return frozenset(name for state in self.desired.values() for name in state.topics)


def load_repo(
    root: Path,
    cluster: str | None = None,
    env: Mapping[str, str] | None = None,
    settings: Settings | None = None,
    files: SpecFiles | None = None,
) -> LoadResult:
    """Load and validate the spec repository at `root`, for one cluster or (None) all of them.

    A `cluster` reconciler.yaml does not define selects nothing: `desired` is then empty and
    the caller says so (the repository itself is not wrong). `env` defaults to os.environ.
    `settings`: whose `bootstrap` and `client:` are read; by default the selected cluster's, or
    with no cluster every one's (an unset variable then a warning: settings_scope.py). `files`:
    the command's reads (spec_files.py): a file another load of the command read is not opened
    again, and the digest names these bytes.
    """
    if settings is None:
        settings = EVERY if cluster is None else Settings.of(cluster)
    with gcpause.paused():
        return _load_repo(root, cluster, env, settings, files or SpecFiles())


def _load_repo(
    root: Path,
    cluster: str | None,
    env: Mapping[str, str] | None,
    settings: Settings,
    files: SpecFiles,
) -> LoadResult:
    root = Path(root).absolute()
    config, found = load_repo_config(root, os.environ if env is None else env, settings, files)
    count = 1 if config is not None or os.path.lexists(root / "reconciler.yaml") else 0
    if config is None:
        selected: list[str] = []
    elif cluster is None:
        selected = sorted(config.clusters)
    else:
        selected = [cluster] if cluster in config.clusters else []

    topics_dir = config.topics_dir if config is not None else root / "topics"
    inside = real_path(topics_dir).is_relative_to(real_path(root))  # else reconciler.yaml said so
    paths: list[Path] = []
    not_read: list[NotRead] = []
    if inside and os.path.isdir(topics_dir):  # else reconciler.yaml's error says why
        discovered = find_topic_files(root, topics_dir)
        paths, not_read = discovered.paths, discovered.not_read
        found += discovered.diagnostics
    unread = tuple((n.path, n.reason) for n in not_read if n.could_hold_specs)
    count += len(paths)

    run = _Run(config, selected)
    plain: list[Source] = []
    for path in paths:
        source, problems = read_source(path, root, files)
        found += problems
        if source is None:
            pass
        elif source.rel.endswith(TEMPLATE_SUFFIX):
            run.template(source)
        else:
            plain.append(source)
    # The templates render in a child process on another core while this one (with, for a
    # large repository, a second child: plain_files.py) reads the plain files; the results are
    # taken in file order all the same.
    rendering = None
    if run.queued:
        from reconciler.spec import templates

        rendering = templates.start_all(run.queued)
    try:
        for topics, problems, acls in plain_files.read_all(plain, run.known_clusters):
            run.plain(topics, problems, acls)
    except BaseException:
        if rendering is not None:
            rendering.cancel()
        raise
    run.read_rendered(rendering.results() if rendering is not None else [])

    desired: dict[str, DesiredState] = {}
    for group in run.groups:
        mine = [t for t in run.declared[group] if not group or _on_cluster(t.spec, group)]
        elsewhere = _declared_elsewhere(run.declared[group], group)
        run.per_cluster[group] += cross_file([t.declared for t in mine], elsewhere)
        if group:
            topics_by_name: dict[str, TopicSpec] = {}
            for topic in mine:
                topics_by_name.setdefault(topic.spec.name, topic.spec)  # the first one wins
            given = run.acls[group]
            mine_acls = None if given is None else tuple(a for a in given if a.on(group))
            run.per_cluster[group] += repeated(mine_acls or ())
            desired[group] = DesiredState(group, topics_by_name, unread, elsewhere, mine_acls)
            if run.config is not None:  # a group is a selected cluster of reconciler.yaml
                chosen = run.config.clusters[group]
                run.per_cluster[group] += check_pattern_bounds(chosen, topics_by_name.values())

    found += run.found
    found += _per_cluster_diagnostics(run.per_cluster)
    # One line per place and message: a loop in a template repeats the same mistake per topic.
    unique: dict[tuple[Location | None, str, str], Diagnostic] = {}
    for diagnostic in found:
        unique.setdefault((diagnostic.location, diagnostic.code, diagnostic.message), diagnostic)
    ordered = sorted(unique.values(), key=lambda d: (*sort_key(d), d.message))
    return LoadResult(config, desired, tuple(ordered), count, tuple(not_read), tuple(paths))


@dataclass
class _Run:
    """What one load_repo call collects from the topic files, so load_repo reads as its steps.

    `groups` are the clusters whose topics are collected: the selected ones, or "" alone when
    no cluster is known (reconciler.yaml unreadable), so the file rules still run once.
    `found` holds the diagnostics that are the same for every cluster, `per_cluster` those of
    one cluster's rendering.
    """

    config: RepoConfig | None
    selected: Sequence[str]
    groups: list[str] = field(init=False)
    found: list[Diagnostic] = field(default_factory=list)
    per_cluster: dict[str, list[Diagnostic]] = field(init=False)
    declared: dict[str, list[Topic]] = field(init=False)
    # the `acls:` entries each group's files give; None while no file has an `acls:` key
    acls: dict[str, list[RawAcl] | None] = field(init=False)
    queued: list[templates.TemplateJob] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.groups = list(self.selected) or [""]
        self.per_cluster = {group: [] for group in self.groups}
        self.declared = {group: [] for group in self.groups}
        self.acls = dict.fromkeys(self.groups)

    @property
    def known_clusters(self) -> frozenset[str] | None:
        return frozenset(self.config.clusters) if self.config is not None else None

    def plain(
        self, topics: list[Topic], problems: list[Diagnostic], acls: tuple[RawAcl, ...] | None
    ) -> None:
        """A plain file is the same for every cluster: read once, its problems reported once."""
        self.found += problems
        for group in self.groups:
            self.declared[group] += topics
            self._add_acls(group, acls)

    def _add_acls(self, group: str, acls: tuple[RawAcl, ...] | None) -> None:
        """A file's `acls:` counts for a cluster when it is `[]` (every cluster's) or has an
        entry for it: one whose entries are all for other clusters leaves it unmanaged (a
        cluster without an authorizer keeps planning)."""
        if acls is not None and (not acls or any(a.on(group) for a in acls)):
            self.acls[group] = [*(self.acls[group] or []), *acls]

    def template(self, source: Source) -> None:
        """Queued: compiled once (syntax errors once) and rendered per selected cluster.
        Without reconciler.yaml there are no vars to render with: compiled only."""
        from reconciler.spec.templates import TemplateJob

        config = self.config
        clusters = [(n, config.clusters[n].vars) for n in self.selected] if config else []
        self.queued.append(TemplateJob(source, tuple(clusters)))

    def read_rendered(self, outcomes: Sequence[templates.TemplateOutcome]) -> None:
        """Read what the queued templates rendered (templates.start_all: in one child process
        under hard limits)."""
        for job, outcome in zip(self.queued, outcomes, strict=True):
            self.found += outcome.problems
            for name, (rendered, render_problems) in outcome.rendered.items():
                self.per_cluster[name] += render_problems
                if rendered is None:
                    continue
                doc, problems = parse_yaml(rendered.text, job.source.rel, rendered.line_map)
                self.per_cluster[name] += problems
                if doc is not None:
                    topics, problems, acls = read_topic_file(
                        doc, self.known_clusters, template=True
                    )
                    self.per_cluster[name] += problems
                    self.declared[name] += topics
                    self._add_acls(name, acls)


def _on_cluster(spec: TopicSpec, cluster: str) -> bool:
    return spec.clusters is None or cluster in spec.clusters


def _declared_elsewhere(topics: Sequence[Topic], cluster: str) -> dict[str, tuple[str, ...]]:
    """Topics `clusters:` keeps off `cluster`, with the clusters they are declared for (none
    when no cluster is known)."""
    if not cluster:
        return {}
    found: dict[str, set[str]] = {}
    on_cluster = {t.spec.name for t in topics if _on_cluster(t.spec, cluster)}
    for topic in topics:
        spec = topic.spec
        if spec.clusters is not None and spec.name not in on_cluster:
            found.setdefault(spec.name, set()).update(spec.clusters)
    return {name: tuple(sorted(clusters)) for name, clusters in sorted(found.items())}


def _per_cluster_diagnostics(per_cluster: Mapping[str, list[Diagnostic]]) -> list[Diagnostic]:
    """Diagnostics of every cluster once; those only some clusters produce say which."""
    clusters_of: dict[Diagnostic, set[str]] = {}
    for name, found in per_cluster.items():
        for diagnostic in found:
            clusters_of.setdefault(diagnostic, set()).add(name)
    merged: list[Diagnostic] = []
    for diagnostic, names in clusters_of.items():
        if names == set(per_cluster):
            merged.append(diagnostic)
        else:
            label = "cluster" if len(names) == 1 else "clusters"
            which = f" (for {label} {', '.join(sorted(names))})"
            merged.append(dataclasses.replace(diagnostic, message=diagnostic.message + which))
    return merged
