"""One parsed topic file read into topics: schema, the file's defaults, fields, Kafka's rules.

Steps for one file (every problem a diagnostic, returned with the topics):

1. JSON Schema (schema.py): fields, types, closed sets.
2. `defaults:`, checked once: its config through the catalog, its counts, its clusters.
3. Each topic with the defaults merged in (`_Fields`): its own values win; `config` merges key
   by key; a tombstone (`state: absent`) inherits only owner, clusters, description,
   acknowledge and protect, since partitions or config would mean nothing on a delete.
4. Kafka's rules for one topic (kafka_rules.py): name, counts, assignments,
   min.insync.replicas against the replication factor, tombstones, unknown clusters.
5. A frozen TopicSpec, plus the `Declared` form the cross-file rules read.

A value inherited from the defaults was checked with the defaults and is not reported again
per topic; a problem that only the merge creates (min.insync.replicas from the defaults above a
topic's replication factor) points at the topic, which is what to fix.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.diagnostics import Diagnostic, Location, did_you_mean
from reconciler.spec import kafka_rules, r_codes, schema
from reconciler.spec.access import TopicAccess, read_access
from reconciler.spec.configs import ConfigEntry, read_config
from reconciler.spec.cross_file import Declared
from reconciler.spec.model import HAZARD_CODES, Acknowledgment, Presence, TopicSpec
from reconciler.spec.raw_acls import RawAcl, read_acls
from reconciler.spec.yaml_reader import JsonPath, YamlDocument

# What a tombstone inherits from `defaults:`; partitions or config would mean nothing on it.
_TOMBSTONE_DEFAULTS = frozenset({"owner", "clusters", "description", "protect"})
# Fields a topic never inherits from `defaults:`: an approval names one topic's transition
_NOT_INHERITED = frozenset({"acknowledge"})
# Fields that have no effect on a tombstone when the topic sets them itself.
_TOMBSTONE_IGNORED = (
    "partitions",
    "replication_factor",
    "keyed",
    "config",
    "assignments",
    "depends_on",
    "access",
)

CountRule = Callable[[int, Location, str | None], list[Diagnostic]]
_COUNTS: tuple[tuple[str, CountRule], ...] = (
    ("partitions", kafka_rules.partitions),
    ("replication_factor", kafka_rules.replication_factor),
)


@dataclass(frozen=True, slots=True)
class Topic:
    """One declared topic: its spec, and what the cross-file rules need of it."""

    spec: TopicSpec
    declared: Declared


@dataclass(frozen=True, slots=True)
class _Field:
    """A topic field's value and where it was written (the topic itself or its defaults)."""

    value: Any
    path: JsonPath
    inherited: bool


@dataclass(frozen=True, slots=True)
class _Fields:
    """A topic's fields with the file's defaults merged in: its own value wins."""

    raw: Mapping[str, Any]
    defaults: Mapping[str, Any]
    path: JsonPath
    absent: bool  # a tombstone inherits only _TOMBSTONE_DEFAULTS

    def get(self, key: str) -> _Field | None:
        if key in self.raw:
            return _Field(self.raw[key], (*self.path, key), False)
        if key in _NOT_INHERITED:
            return None
        if key in self.defaults and (not self.absent or key in _TOMBSTONE_DEFAULTS):
            return _Field(self.defaults[key], ("defaults", key), True)
        return None

    def flag(self, key: str) -> bool:
        got = self.get(key)
        return got is not None and got.value is True

    def text(self, key: str) -> str | None:
        got = self.get(key)
        return got.value if got is not None and isinstance(got.value, str) else None


# A file's topics, problems and its raw `acls:` (None: the file has no `acls:` key)
FileRead = tuple[list[Topic], list[Diagnostic], tuple[RawAcl, ...] | None]


def read_topic_file(
    doc: YamlDocument, known_clusters: Collection[str] | None, template: bool = False
) -> FileRead:
    """The topics of one parsed topic file, the problems found in it alone, and its `acls:`.

    `known_clusters` None means reconciler.yaml could not be read: `clusters:` is not checked.
    """
    data = doc.data
    if data is None:
        if template:  # a template may render nothing for some cluster, on purpose
            return [], [], None
        return (
            [],
            [
                r_codes.EMPTY_FILE(
                    f"{doc.file} declares no topics (it is empty or only comments)",
                    Location(doc.file, 1, 1),
                )
            ],
            None,
        )
    found = schema.validate(doc, schema.TOPICS_SCHEMA)
    if not isinstance(data, dict):
        return [], found, None
    acls, problems = read_acls(doc, data.get("acls"), known_clusters)
    found += problems
    defaults = data.get("defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    defaults_config, problems = read_config(
        doc, ("defaults", "config"), defaults.get("config"), None
    )
    found += problems
    for key, rule in _COUNTS:
        if key in defaults:
            _, problems = _count(doc, _Field(defaults[key], ("defaults", key), False), None, rule)
            found += problems
    if known_clusters is not None:
        found += _unknown_clusters(doc, ("defaults",), defaults, known_clusters)
    defaults_access, problems = read_access(
        doc, ("defaults", "access"), defaults.get("access"), None
    )
    found += problems
    if "acknowledge" in defaults:
        found.append(
            r_codes.ACKNOWLEDGE_IN_DEFAULTS(
                "`acknowledge:` under `defaults:` would approve a change on every topic of "
                "the file; an approval names one topic's change: move each item under "
                "`acknowledge:` of the topic whose change it approves",
                doc.key_at(("defaults", "acknowledge")),
            )
        )
    topics: list[Topic] = []
    raw_topics = data.get("topics")
    for index, raw in enumerate(raw_topics if isinstance(raw_topics, list) else []):
        if isinstance(raw, dict):
            topic, problems = _read_topic(
                doc, index, raw, defaults, (defaults_config, defaults_access), known_clusters
            )
            found += problems
            if topic is not None:
                topics.append(topic)
    return topics, found, acls


def _read_topic(
    doc: YamlDocument,
    index: int,
    raw: dict[str, Any],
    defaults: dict[str, Any],
    inherited: tuple[Mapping[str, ConfigEntry], TopicAccess | None],
    known_clusters: Collection[str] | None,
) -> tuple[Topic | None, list[Diagnostic]]:
    defaults_config, defaults_access = inherited
    here: JsonPath = ("topics", index)
    at = doc.value_at(here)
    name = raw.get("name") if isinstance(raw.get("name"), str) and raw.get("name") else None
    label = name or f"topic #{index + 1}"
    absent = raw.get("state") == "absent"
    fields = _Fields(raw, defaults, here, absent)
    found: list[Diagnostic] = []

    if name is not None:
        found += kafka_rules.topic_name(name, doc.value_at((*here, "name")))
    partitions, problems = _count(doc, fields.get("partitions"), label, kafka_rules.partitions)
    found += problems
    rf, problems = _count(
        doc, fields.get("replication_factor"), label, kafka_rules.replication_factor
    )
    found += problems
    assignments, problems = _assignments(doc, fields.get("assignments"), label, partitions, rf)
    found += problems
    own_config, problems = read_config(doc, (*here, "config"), raw.get("config"), label)
    found += problems
    config = {} if absent else {**defaults_config, **own_config}
    effective_rf = rf if rf is not None else (len(assignments[0]) if assignments else None)
    found += _min_insync(config, own_config, effective_rf, at, label)
    # A topic's own `access:` replaces the defaults' as a whole: a grant is removed by
    # editing one topic (`reconciler help access`)
    access, problems = read_access(doc, (*here, "access"), raw.get("access"), label)
    found += problems
    if "access" not in raw:
        access = defaults_access
    if absent:
        found += _tombstone(doc, fields, label)
        access = None
    if known_clusters is not None and "clusters" in raw:
        found += _unknown_clusters(doc, here, raw, known_clusters)
    if name is None:
        return None, found

    depends_on = _strings(doc, fields.get("depends_on"))
    spec = TopicSpec(
        name=name,
        location=at,
        partitions=partitions,
        replication_factor=rf,
        config=tuple(sorted((key, entry.value) for key, entry in config.items())),
        keyed=fields.flag("keyed"),
        assignments=assignments,
        depends_on=tuple(dep for dep, _ in depends_on),
        protect=fields.flag("protect"),
        state=Presence.ABSENT if absent else Presence.PRESENT,
        owner=fields.text("owner"),
        clusters=_cluster_names(fields.get("clusters")),
        acknowledge=_acknowledgments(doc, fields.get("acknowledge")),
        description=fields.text("description"),
        access=access,
    )
    return Topic(spec, Declared(name, at, tuple(depends_on), absent)), found


def _integer(value: object) -> int | None:
    """An integer as JSON Schema sees one (3 or 3.0, never a boolean), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _count(
    doc: YamlDocument, got: _Field | None, topic: str | None, rule: CountRule
) -> tuple[int | None, list[Diagnostic]]:
    """partitions / replication_factor: the value if Kafka accepts it, else None.

    A value inherited from the defaults was checked once, with the defaults: not again per topic.
    """
    if got is None:
        return None, []
    value = _integer(got.value)
    if value is None:
        return None, []  # not an integer: the schema said so
    problems = rule(value, doc.value_at(got.path), topic)
    return (None if problems else value), ([] if got.inherited else problems)


def _assignments(
    doc: YamlDocument, got: _Field | None, topic: str, partitions: int | None, rf: int | None
) -> tuple[tuple[tuple[int, ...], ...] | None, list[Diagnostic]]:
    if got is None or not isinstance(got.value, list):
        return None, []
    replicas: list[tuple[list[int], Location]] = []
    for index, entry in enumerate(got.value):
        if not isinstance(entry, list):
            return None, []  # the schema said so
        brokers = [_integer(b) for b in entry]
        if any(b is None for b in brokers):
            return None, []
        replicas.append(([b for b in brokers if b is not None], doc.value_at((*got.path, index))))
    problems = kafka_rules.assignments(replicas, doc.value_at(got.path), topic, partitions, rf)
    return (None if problems else tuple(tuple(b) for b, _ in replicas)), problems


def _min_insync(
    config: Mapping[str, ConfigEntry],
    own_config: Mapping[str, ConfigEntry],
    rf: int | None,
    topic_at: Location,
    topic: str,
) -> list[Diagnostic]:
    entry = config.get("min.insync.replicas")
    if entry is None or rf is None:
        return []
    # Inherited from the defaults: point at the topic, which is what to fix.
    where = entry.location if "min.insync.replicas" in own_config else topic_at
    return kafka_rules.min_insync_replicas(int(entry.value), rf, where, topic)


def _tombstone(doc: YamlDocument, fields: _Fields, topic: str) -> list[Diagnostic]:
    here = fields.path
    extra = [(key, doc.key_at((*here, key))) for key in _TOMBSTONE_IGNORED if key in fields.raw]
    state_at = doc.key_at((*here, "state"))
    protect = fields.get("protect")
    protected = None
    if protect is not None and protect.value is True:
        # Inherited: point at this tombstone, not at the defaults every topic shares.
        where = state_at if protect.inherited else doc.key_at(protect.path)
        protected = (True, where, protect.inherited)
    return kafka_rules.tombstone(topic, state_at, extra, protected)


def _strings(doc: YamlDocument, got: _Field | None) -> list[tuple[str, Location]]:
    if got is None or not isinstance(got.value, list):
        return []
    return [
        (item, doc.value_at((*got.path, i)))
        for i, item in enumerate(got.value)
        if isinstance(item, str) and item
    ]


def _acknowledgments(doc: YamlDocument, got: _Field | None) -> tuple[Acknowledgment, ...]:
    """The `acknowledge:` items the schema accepted: bare codes and `{code: value}`."""
    if got is None or not isinstance(got.value, list):
        return ()
    found = []
    for i, item in enumerate(got.value):
        bare = isinstance(item, str) and item in HAZARD_CODES
        bound = isinstance(item, dict) and len(item) == 1 and next(iter(item)) in HAZARD_CODES
        if (bound and isinstance(next(iter(item.values())), bool)) or not (bare or bound):
            continue  # the schema error names it
        at = doc.value_at((*got.path, i))
        found.append(dataclasses.replace(Acknowledgment.of(item), location=at))
    return tuple(found)


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
    return [
        r_codes.UNKNOWN_CLUSTER(
            f"cluster '{name}' is not defined in reconciler.yaml{did_you_mean(name, known)}; "
            f"known: {', '.join(sorted(known)) or 'none'}",
            doc.value_at((*owner, "clusters", index)),
            topic,
        )
        for index, name in enumerate(value)
        if isinstance(name, str) and name not in known
    ]
