"""load_repo: a spec repository read, rendered and validated into desired state per cluster.

Steps, each collecting diagnostics rather than stopping (one run reports every problem):

1. reconciler.yaml: read safely, schema, env expansion, regexes (repo_config).
2. Find topic files: `topics/**/*.yaml` and `topics/**/*.yaml.j2`, sorted by path so every
   run reads them in the same order; hidden files are skipped, near misses (`.yml`) warned
   about, symlinked directories leaving the repository refused.
3. Read each file safely (size cap, NUL bytes, UTF-8, symlinks: yaml_loader).
4. Templates (`*.yaml.j2`): compile once, render per selected cluster with `vars` and
   `cluster` (templates); the rendered YAML's locations map back to template lines.
5. Parse YAML with locations, then JSON Schema (schema).
6. Merge each file's `defaults:` into its topics: a topic's own values win, `config` maps
   merge key by key; a tombstone takes only owner, clusters, description, acknowledge and
   protect from the defaults (the rest would be meaningless on a delete).
7. Normalise configs through the catalog: unknown key -> R105 with did-you-mean, removed key
   -> R102, bad value -> R101 with the catalog's sentence.
8. Per-topic Kafka rules (names, counts, assignments, min.insync.replicas, tombstones, unknown
   clusters), then per cluster the cross-file rules (duplicates, `.`/`_` collisions,
   depends_on, cycles) over the topics that cluster gets.
9. Frozen TopicSpecs per cluster (a topic with `clusters:` only in those), and the
   diagnostics sorted. A plain file is the same for every cluster, so its diagnostics appear
   once; a diagnostic that only some clusters produce says which ("(for cluster prod)").

Nothing here raises for bad input; every problem is a Diagnostic.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reconciler.diagnostics import Diagnostic, Location, sort_key
from reconciler.spec import catalog, rules, schema, templates
from reconciler.spec.model import DesiredState, RepoConfig, TopicSpec, TopicState
from reconciler.spec.repo_config import load_repo_config
from reconciler.spec.yaml_loader import (
    JsonPath,
    Source,
    YamlDocument,
    parse_yaml,
    read_source,
    real_path,
    relative,
)

TOPIC_SUFFIXES = (".yaml", ".yaml.j2")
TEMPLATE_SUFFIX = ".yaml.j2"
# Names people use for topic files that would otherwise be skipped without a word.
_NEAR_MISSES = (".yml", ".yml.j2", ".yaml.jinja", ".yaml.jinja2", ".yaml.tmpl", ".j2")
# What a tombstone inherits from `defaults:`; partitions or config would mean nothing on it.
_TOMBSTONE_DEFAULTS = frozenset({"owner", "clusters", "description", "acknowledge", "protect"})
# Fields that have no effect on a tombstone when the topic sets them itself.
_TOMBSTONE_IGNORED = (
    "partitions",
    "replication_factor",
    "keyed",
    "config",
    "assignments",
    "depends_on",
)


@dataclass(frozen=True, slots=True)
class LoadResult:
    config: RepoConfig | None  # None when reconciler.yaml is missing or unreadable
    desired: dict[str, DesiredState]  # per selected cluster
    diagnostics: tuple[Diagnostic, ...]  # sorted by file, line, column, code
    files: int  # spec files read: reconciler.yaml and topic files

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
    root: Path, cluster: str | None = None, env: Mapping[str, str] | None = None
) -> LoadResult:
    """Load and validate the spec repository at `root`, for one cluster or (None) all of them.

    A `cluster` reconciler.yaml does not define selects nothing: `desired` is then empty and
    the caller says so (the repository itself is not wrong). `env` defaults to os.environ.
    """
    root = Path(root).absolute()
    config, found = load_repo_config(root, os.environ if env is None else env)
    files = 1 if config is not None or (root / "reconciler.yaml").exists() else 0
    known = frozenset(config.clusters) if config is not None else None
    if config is None:
        selected: list[str] = []
    elif cluster is None:
        selected = sorted(config.clusters)
    else:
        selected = [cluster] if cluster in config.clusters else []

    topics_dir = config.topics_dir if config is not None else root / "topics"
    inside = real_path(topics_dir).is_relative_to(real_path(root))  # else reconciler.yaml said so
    walk = inside and topics_dir.is_dir()
    paths, problems = find_topic_files(root, topics_dir) if walk else ([], [])
    found.extend(problems)
    files += len(paths)

    run = _Run(config, selected, known, found, groups=selected or [""])
    for path in paths:
        source, problems = read_source(path, root)
        found.extend(problems)
        if source is None:
            pass
        elif source.rel.endswith(TEMPLATE_SUFFIX):
            run.template(source)
        else:
            run.plain(source)

    desired: dict[str, DesiredState] = {}
    for group in run.groups:
        mine = [t for t in run.declared[group] if not group or _on_cluster(t.spec, group)]
        run.per_cluster[group].extend(_cross_file(mine))
        if group:
            topics_by_name: dict[str, TopicSpec] = {}
            for topic in mine:
                topics_by_name.setdefault(topic.spec.name, topic.spec)  # the first one wins
            desired[group] = DesiredState(group, topics_by_name)

    found.extend(_per_cluster_diagnostics(run.per_cluster))
    # One line per place and message: a loop in a template repeats the same mistake per topic.
    unique: dict[tuple[Location | None, str, str], Diagnostic] = {}
    for diagnostic in found:
        unique.setdefault((diagnostic.location, diagnostic.code, diagnostic.message), diagnostic)
    ordered = sorted(unique.values(), key=lambda d: (*sort_key(d), d.message))
    return LoadResult(config, desired, tuple(ordered), files)


@dataclass
class _Run:
    """The accumulators of one load_repo call, so load_repo itself reads as its steps.

    `groups` are the clusters whose topics are collected: the selected ones, or "" alone when
    no cluster is known (reconciler.yaml unreadable), so the file rules still run once.
    """

    config: RepoConfig | None
    selected: list[str]
    known: frozenset[str] | None
    found: list[Diagnostic]  # the same for every cluster
    groups: list[str]
    per_cluster: dict[str, list[Diagnostic]] = field(default_factory=dict)
    declared: dict[str, list[_Topic]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.per_cluster = {group: [] for group in self.groups}
        self.declared = {group: [] for group in self.groups}

    def plain(self, source: Source) -> None:
        """A plain file is the same for every cluster: read once, its problems reported once."""
        doc, problems = parse_yaml(source.text, source.rel)
        self.found.extend(problems)
        if doc is not None:
            topics, problems = read_topic_file(doc, self.known)
            self.found.extend(problems)
            for group in self.groups:
                self.declared[group].extend(topics)

    def template(self, source: Source) -> None:
        """Compiled once (syntax errors once), rendered and read per selected cluster."""
        compiled, problems = templates.compile_template(source)
        self.found.extend(problems)
        if compiled is None or self.config is None:
            return  # without reconciler.yaml there are no vars to render with
        for name in self.selected:
            variables = self.config.clusters[name].vars
            rendered, problems = templates.render(compiled, name, variables)
            self.per_cluster[name].extend(problems)
            if rendered is None:
                continue
            doc, problems = parse_yaml(rendered.text, source.rel, rendered.line_map)
            self.per_cluster[name].extend(problems)
            if doc is not None:
                topics, problems = read_topic_file(doc, self.known, template=True)
                self.per_cluster[name].extend(problems)
                self.declared[name].extend(topics)


def _on_cluster(spec: TopicSpec, cluster: str) -> bool:
    return spec.clusters is None or cluster in spec.clusters


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


# ---------------------------------------------------------------------------- finding files


def find_topic_files(root: Path, topics_dir: Path) -> tuple[list[Path], list[Diagnostic]]:
    """Topic files under `topics_dir`, sorted by path relative to `root`.

    Symlinked directories are followed only while they stay inside the repository (and only
    once, so a link loop ends); symlinked files are returned and refused by `read_source` if
    they lead outside.
    """
    real_root = real_path(root)
    found: list[Diagnostic] = []
    paths: list[Path] = []
    visited: set[Path] = set()
    for current, dirnames, filenames in os.walk(topics_dir, followlinks=True):
        here = Path(current)
        visited.add(real_path(here))
        kept: list[str] = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            target = real_path(here / name)
            if not target.is_relative_to(real_root):
                rel = relative(here / name, root)
                found.append(
                    rules.SYMLINK_ESCAPE(
                        f"{rel} is a symlink to {target}, outside the repository: topic files "
                        "must live in it; copy them in instead",
                        Location(rel, 1, 1),
                    )
                )
            elif target not in visited:
                kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            if name.startswith("."):
                continue  # editor lock files and the like
            path = here / name
            if name.endswith(TOPIC_SUFFIXES):
                paths.append(path)
            elif name.endswith(_NEAR_MISSES):
                rel = relative(path, root)
                found.append(
                    rules.IGNORED_FILE(
                        f"{rel} is not read: topic files end in .yaml or .yaml.j2; rename it if "
                        "it holds topics",
                        Location(rel, 1, 1),
                    )
                )
    paths.sort(key=lambda p: relative(p, root))
    return paths, found


# ---------------------------------------------------------------------------- one topic file


@dataclass(frozen=True, slots=True)
class _Topic:
    spec: TopicSpec
    declared: rules.Declared


@dataclass(slots=True)
class _Field:
    """A topic field's value and where it was written (the topic itself or its defaults)."""

    value: Any
    path: JsonPath
    inherited: bool


def read_topic_file(
    doc: YamlDocument, known_clusters: Collection[str] | None, template: bool = False
) -> tuple[list[_Topic], list[Diagnostic]]:
    """The topics of one parsed topic file and the problems found in it alone.

    `known_clusters` None means reconciler.yaml could not be read: `clusters:` is not checked.
    """
    found = schema.validate(doc, schema.TOPICS_SCHEMA) if doc.data is not None else []
    data = doc.data
    if data is None:
        if not template:  # a template may render nothing for some cluster, on purpose
            found.append(
                rules.EMPTY_FILE(
                    f"{doc.file} declares no topics (it is empty or only comments)",
                    Location(doc.file, 1, 1),
                )
            )
        return [], found
    if not isinstance(data, dict):
        return [], found
    defaults = data.get("defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    defaults_config = _config(doc, ("defaults", "config"), defaults.get("config"), None, found)
    for key, rule in (
        ("partitions", rules.partitions),
        ("replication_factor", rules.replication_factor),
    ):
        if key in defaults:
            _checked_count(doc, _Field(defaults[key], ("defaults", key), False), None, rule, found)
    if known_clusters is not None:
        found.extend(_unknown_clusters(doc, ("defaults", "clusters"), defaults, known_clusters))
    topics: list[_Topic] = []
    raw_topics = data.get("topics")
    for index, raw in enumerate(raw_topics if isinstance(raw_topics, list) else []):
        if isinstance(raw, dict):
            topic = _read_topic(doc, index, raw, defaults, defaults_config, known_clusters, found)
            if topic is not None:
                topics.append(topic)
    return topics, found


def _read_topic(
    doc: YamlDocument,
    index: int,
    raw: dict[str, Any],
    defaults: dict[str, Any],
    defaults_config: dict[str, tuple[str, Location]],
    known_clusters: Collection[str] | None,
    found: list[Diagnostic],
) -> _Topic | None:
    here: JsonPath = ("topics", index)
    at = doc.value_at(here)
    name = raw.get("name") if isinstance(raw.get("name"), str) and raw.get("name") else None
    label = name or f"topic #{index + 1}"
    absent = raw.get("state") == "absent"

    def get(key: str) -> _Field | None:
        if key in raw:
            return _Field(raw[key], (*here, key), False)
        if key in defaults and (not absent or key in _TOMBSTONE_DEFAULTS):
            return _Field(defaults[key], ("defaults", key), True)
        return None

    if name is not None:
        found.extend(rules.topic_name(name, doc.value_at((*here, "name"))))

    partitions = _checked_count(doc, get("partitions"), label, rules.partitions, found)
    rf = _checked_count(doc, get("replication_factor"), label, rules.replication_factor, found)
    assignments = _assignments(doc, get("assignments"), label, partitions, rf, found)

    own_config = _config(doc, (*here, "config"), raw.get("config"), label, found)
    config = {} if absent else {**defaults_config, **own_config}
    effective_rf = rf if rf is not None else (len(assignments[0]) if assignments else None)
    if "min.insync.replicas" in config and effective_rf is not None:
        value, where = config["min.insync.replicas"]
        if "min.insync.replicas" not in own_config:
            where = at  # inherited: point at the topic, which is what to fix
        found.extend(rules.min_insync_replicas(int(value), effective_rf, where, label))

    protect = get("protect")
    if absent:
        extra = [(key, doc.key_at((*here, key))) for key in _TOMBSTONE_IGNORED if key in raw]
        protected = None
        state_at = doc.key_at((*here, "state"))
        if protect is not None and protect.value is True:
            # Inherited: point at this tombstone, not at the defaults every topic shares.
            where = state_at if protect.inherited else doc.key_at(protect.path)
            protected = (True, where, protect.inherited)
        found.extend(rules.tombstone(label, state_at, extra, protected))

    if known_clusters is not None and "clusters" in raw:
        found.extend(_unknown_clusters(doc, here, raw, known_clusters))
    depends_on = _strings(doc, get("depends_on"))
    if name is None:
        return None

    def flag(key: str) -> bool:
        got = get(key)
        return got is not None and got.value is True

    def text(key: str) -> str | None:
        got = get(key)
        return got.value if got is not None and isinstance(got.value, str) else None

    spec = TopicSpec(
        name=name,
        location=at,
        partitions=partitions,
        replication_factor=rf,
        config=tuple(sorted((key, value) for key, (value, _) in config.items())),
        keyed=flag("keyed"),
        assignments=assignments,
        depends_on=tuple(dep for dep, _ in depends_on),
        protect=flag("protect"),
        state=TopicState.ABSENT if absent else TopicState.PRESENT,
        owner=text("owner"),
        clusters=_cluster_names(get("clusters")),
        acknowledge=tuple(a for a, _ in _strings(doc, get("acknowledge"))),
        description=text("description"),
    )
    declared = rules.Declared(name, at, tuple(depends_on), absent)
    return _Topic(spec, declared)


def _integer(value: object) -> int | None:
    """An integer as JSON Schema sees one (3 or 3.0, never a boolean), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _checked_count(
    doc: YamlDocument, got: _Field | None, topic: str | None, rule: Any, found: list[Diagnostic]
) -> int | None:
    """partitions / replication_factor: the value if Kafka accepts it, else None.

    A value inherited from the defaults was checked once, with the defaults: not again per topic.
    """
    if got is None:
        return None
    value = _integer(got.value)
    if value is None:
        return None  # not an integer: the schema said so
    problems: list[Diagnostic] = rule(value, doc.value_at(got.path), topic)
    if not got.inherited:
        found.extend(problems)
    return None if problems else value


def _assignments(
    doc: YamlDocument,
    got: _Field | None,
    topic: str,
    partitions: int | None,
    rf: int | None,
    found: list[Diagnostic],
) -> tuple[tuple[int, ...], ...] | None:
    if got is None or not isinstance(got.value, list):
        return None
    replicas: list[tuple[list[int], Location]] = []
    for index, entry in enumerate(got.value):
        if not isinstance(entry, list):
            return None  # the schema said so
        brokers = [_integer(b) for b in entry]
        if any(b is None for b in brokers):
            return None
        replicas.append(([b for b in brokers if b is not None], doc.value_at((*got.path, index))))
    problems = rules.assignments(replicas, doc.value_at(got.path), topic, partitions, rf)
    found.extend(problems)
    return None if problems else tuple(tuple(b) for b, _ in replicas)


def _strings(doc: YamlDocument, got: _Field | None) -> list[tuple[str, Location]]:
    if got is None or not isinstance(got.value, list):
        return []
    return [
        (item, doc.value_at((*got.path, i)))
        for i, item in enumerate(got.value)
        if isinstance(item, str) and item
    ]


def _cluster_names(got: _Field | None) -> tuple[str, ...] | None:
    if got is None or not isinstance(got.value, list):
        return None
    names = tuple(n for n in got.value if isinstance(n, str))
    return names or None


def _unknown_clusters(
    doc: YamlDocument, owner: JsonPath, raw: Mapping[str, Any], known: Collection[str]
) -> list[Diagnostic]:
    value = raw.get("clusters")
    if not isinstance(value, list):
        return []
    topic = raw.get("name") if isinstance(raw.get("name"), str) else None
    found: list[Diagnostic] = []
    for index, name in enumerate(value):
        if isinstance(name, str) and name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            found.append(
                rules.UNKNOWN_CLUSTER(
                    f"cluster '{name}' is not defined in reconciler.yaml{hint}; known: "
                    f"{', '.join(sorted(known)) or 'none'}",
                    doc.value_at((*owner, "clusters", index)),
                    topic,
                )
            )
    return found


# ---------------------------------------------------------------------------- configs

_SCALAR = (str, int, float, bool)


def _config(
    doc: YamlDocument,
    path: JsonPath,
    raw: object,
    topic: str | None,
    found: list[Diagnostic],
) -> dict[str, tuple[str, Location]]:
    """Config entries checked against the catalog: key -> (canonical value, where written)."""
    if not isinstance(raw, dict):
        return {}
    entries: dict[str, tuple[str, Location]] = {}
    for key, value in raw.items():
        key_at = doc.key_at((*path, key))
        if catalog.lookup(key) is None:
            reason = catalog.removed_reason(key)
            if reason is not None:
                found.append(rules.REMOVED_CONFIG(f"topic config '{key}' {reason}", key_at, topic))
                continue
            hint = catalog.suggest(key)
            advice = (
                f" (did you mean '{hint}'?)"
                if hint
                else ": docs/configs.md lists the topic configs Kafka accepts"
            )
            found.append(
                rules.UNKNOWN_CONFIG(f"unknown topic config '{key}'{advice}", key_at, topic)
            )
            continue
        well_typed = isinstance(value, _SCALAR) or (
            isinstance(value, list) and all(isinstance(v, _SCALAR) for v in value)
        )
        if not well_typed:
            continue  # null, a mapping, nested lists: the schema said so
        value_at = doc.value_at((*path, key))
        try:
            entries[key] = (catalog.normalise(key, value), value_at)
        except catalog.InvalidConfigValue as exc:
            found.append(rules.INVALID_CONFIG_VALUE(str(exc), value_at, topic))
    return entries


# ---------------------------------------------------------------------------- across files


def _cross_file(topics: Sequence[_Topic]) -> list[Diagnostic]:
    """Rules over every topic one cluster gets: duplicates, collisions, dependencies."""
    declared = [t.declared for t in topics]
    unique: dict[str, rules.Declared] = {}
    for topic in declared:
        unique.setdefault(topic.name, topic)
    return [
        *rules.duplicates(declared),
        *rules.name_collisions(unique.values()),
        *rules.dependencies(list(unique.values())),
    ]
