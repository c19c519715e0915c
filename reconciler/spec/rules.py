"""Kafka's own rules and the repository's cross-file rules, each a small function with a code.

Every diagnostic the spec language produces has a stable code and a snake_case rule name,
listed here (`RULES`) and in docs/diagnostics.md with an example and what to do:

    R0xx  files and YAML safety          R4xx  duplicates, dependencies, clusters
    R1xx  topic configs (the catalog)    R5xx  reconciler.yaml
    R2xx  topic names                    R6xx  Jinja2 templates
    R3xx  partitions, replication,       R7xx  JSON Schema
          assignments, tombstones

The rule functions are pure: they take already-typed values and their locations, and return
diagnostics; they never raise. Kafka facts come from Kafka 4.1's sources: `Topic.validate`
(names), `Topic.unifyCollisionChars` (collisions), `ReplicationControlManager` and
`AdminUtils` (INVALID_REPLICA_ASSIGNMENT, KIP-4 / KIP-195), `CreateTopicsRequest` (the
replication factor is an int16, partitions an int32).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Location, Severity


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of problem: a stable code, a rule name and how bad it is."""

    code: str
    name: str
    severity: Severity

    def __call__(
        self, message: str, location: Location | None = None, topic: str | None = None
    ) -> Diagnostic:
        return Diagnostic(self.severity, self.code, self.name, message, location, topic)


_E, _W = Severity.ERROR, Severity.WARNING

# R0xx: files and YAML safety
YAML_SYNTAX = Rule("R001", "yaml_syntax", _E)
DUPLICATE_KEY = Rule("R002", "duplicate_key", _E)
ALIAS_LIMIT = Rule("R003", "alias_limit", _E)
FILE_TOO_LARGE = Rule("R004", "file_too_large", _E)
BINARY_FILE = Rule("R005", "binary_file", _E)
NOT_UTF8 = Rule("R006", "not_utf8", _E)
SYMLINK_ESCAPE = Rule("R007", "symlink_escape", _E)
UNREADABLE_FILE = Rule("R008", "unreadable_file", _E)
EMPTY_FILE = Rule("R009", "empty_file", _W)
UNSUPPORTED_TAG = Rule("R010", "unsupported_yaml_tag", _E)
NESTING_TOO_DEEP = Rule("R011", "nesting_too_deep", _E)
COMPLEX_KEY = Rule("R012", "complex_key", _E)
IGNORED_FILE = Rule("R013", "ignored_file", _W)
MULTIPLE_DOCUMENTS = Rule("R014", "multiple_documents", _E)

# R1xx: topic configs
INVALID_CONFIG_VALUE = Rule("R101", "invalid_config_value", _E)
REMOVED_CONFIG = Rule("R102", "removed_config", _E)
MIN_INSYNC_REPLICAS = Rule("R103", "min_insync_replicas", _E)
UNKNOWN_CONFIG = Rule("R105", "unknown_config", _E)

# R2xx: topic names
ILLEGAL_TOPIC_NAME = Rule("R201", "illegal_topic_name", _E)
TOPIC_NAME_TOO_LONG = Rule("R202", "topic_name_too_long", _E)
DOT_TOPIC_NAME = Rule("R203", "dot_topic_name", _E)
TOPIC_NAME_COLLISION = Rule("R204", "topic_name_collision", _E)
INTERNAL_TOPIC_NAME = Rule("R205", "internal_topic_name", _E)

# R3xx: partitions, replication factor, manual assignments, tombstones
INVALID_PARTITIONS = Rule("R301", "invalid_partitions", _E)
INVALID_REPLICATION_FACTOR = Rule("R302", "invalid_replication_factor", _E)
ASSIGNMENT_PARTITION_COUNT = Rule("R303", "assignment_partition_count", _E)
ASSIGNMENT_EMPTY = Rule("R304", "assignment_empty", _E)
ASSIGNMENT_REPLICATION_FACTOR = Rule("R305", "assignment_replication_factor", _E)
ASSIGNMENT_DUPLICATE_BROKER = Rule("R306", "assignment_duplicate_broker", _E)
ASSIGNMENT_NEGATIVE_BROKER = Rule("R307", "assignment_negative_broker", _E)
TOMBSTONE_FIELDS = Rule("R308", "tombstone_fields", _W)
PROTECTED_TOMBSTONE = Rule("R309", "protected_tombstone", _E)

# R4xx: duplicates, dependencies, clusters
DUPLICATE_TOPIC = Rule("R401", "duplicate_topic", _E)
UNKNOWN_DEPENDENCY = Rule("R402", "unknown_dependency", _E)
SELF_DEPENDENCY = Rule("R403", "self_dependency", _E)
DEPENDENCY_CYCLE = Rule("R404", "dependency_cycle", _E)
UNKNOWN_CLUSTER = Rule("R405", "unknown_cluster", _E)
DEPENDENCY_ON_TOMBSTONE = Rule("R406", "dependency_on_tombstone", _W)

# R5xx: reconciler.yaml
MISSING_REPO_CONFIG = Rule("R501", "missing_repo_config", _E)
UNDEFINED_ENV_VAR = Rule("R502", "undefined_env_var", _E)
INVALID_REGEX = Rule("R503", "invalid_regex", _E)
INVALID_TOPICS_DIR = Rule("R504", "invalid_topics_dir", _E)
INVALID_ENV_REFERENCE = Rule("R505", "invalid_env_reference", _E)
EMPTY_BOOTSTRAP = Rule("R506", "empty_bootstrap", _E)

# R6xx: templates
TEMPLATE_SYNTAX = Rule("R601", "template_syntax", _E)
TEMPLATE_UNDEFINED = Rule("R602", "template_undefined", _E)
TEMPLATE_SECURITY = Rule("R603", "template_security", _E)
TEMPLATE_ERROR = Rule("R604", "template_error", _E)
TEMPLATE_OUTPUT_TOO_LARGE = Rule("R605", "template_output_too_large", _E)

# R7xx: JSON Schema
SCHEMA_TYPE = Rule("R701", "schema_type", _E)
SCHEMA_REQUIRED = Rule("R702", "schema_required", _E)
SCHEMA_UNKNOWN_FIELD = Rule("R703", "schema_unknown_field", _E)
SCHEMA_ENUM = Rule("R704", "schema_enum", _E)
SCHEMA_CONSTRAINT = Rule("R705", "schema_constraint", _E)

# Every rule above, in code order (docs/diagnostics.md lists each; a test keeps them in step).
RULES: tuple[Rule, ...] = tuple(v for v in globals().values() if isinstance(v, Rule))


# ---------------------------------------------------------------------------- Kafka facts

MAX_NAME_LENGTH = 249  # Topic.MAX_NAME_LENGTH: the name is a directory name plus a suffix
_LEGAL = re.compile(r"[a-zA-Z0-9._-]")  # Topic.LEGAL_CHARS
# Topic.isInternal in Kafka 4.x, plus the KRaft metadata log: CreateTopics refuses them all.
INTERNAL_TOPICS = frozenset(
    {"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata"}
)
MAX_PARTITIONS = 2**31 - 1  # CreateTopicsRequest: num_partitions is an int32
MAX_REPLICATION_FACTOR = 2**15 - 1  # CreateTopicsRequest: replication_factor is an int16


def collision_key(name: str) -> str:
    """Topic.unifyCollisionChars: metric names use '_' for '.', so 'a.b' and 'a_b' clash."""
    return name.replace(".", "_")


# ---------------------------------------------------------------------------- names


def topic_name(name: str, at: Location) -> list[Diagnostic]:
    """Topic.validate: not '.' or '..', at most 249 characters, only [a-zA-Z0-9._-]."""
    found: list[Diagnostic] = []
    if name in (".", ".."):
        found.append(
            DOT_TOPIC_NAME(
                f"topic name '{name}' is not allowed: Kafka refuses '.' and '..' (they are "
                "directory names); choose a real name",
                at,
                name,
            )
        )
        return found
    if len(name) > MAX_NAME_LENGTH:
        found.append(
            TOPIC_NAME_TOO_LONG(
                f"topic name '{name[:40]}...' is {len(name)} characters long; Kafka allows at "
                f"most {MAX_NAME_LENGTH}: shorten it",
                at,
                name,
            )
        )
    illegal = sorted({c for c in name if not _LEGAL.fullmatch(c)})
    if illegal:
        shown = ", ".join(repr(c) for c in illegal)
        found.append(
            ILLEGAL_TOPIC_NAME(
                f"topic name '{name}' contains {shown}: Kafka allows only ASCII letters, digits, "
                "'.', '_' and '-'",
                at,
                name,
            )
        )
    if name in INTERNAL_TOPICS:
        found.append(
            INTERNAL_TOPIC_NAME(
                f"'{name}' is a Kafka internal topic: Kafka creates and manages it and refuses "
                "to create it on request; remove it from the specs",
                at,
                name,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Declared:
    """One declaration of a topic, as the cross-file rules see it."""

    name: str
    location: Location
    depends_on: tuple[tuple[str, Location], ...] = ()
    absent: bool = False


def name_collisions(topics: Iterable[Declared]) -> list[Diagnostic]:
    """Names that differ but are equal once '.' and '_' are unified (Kafka refuses the second).

    `topics` come in declaration order; the later one is reported, naming the earlier one.
    """
    first: dict[str, Declared] = {}
    found: list[Diagnostic] = []
    for topic in topics:
        key = collision_key(topic.name)
        other = first.setdefault(key, topic)
        if other.name != topic.name:
            found.append(
                TOPIC_NAME_COLLISION(
                    f"topic '{topic.name}' collides with '{other.name}' (declared at "
                    f"{other.location}): Kafka's metric names treat '.' and '_' alike, so it "
                    "refuses the second; rename one of them",
                    topic.location,
                    topic.name,
                )
            )
    return found


def duplicates(topics: Iterable[Declared]) -> list[Diagnostic]:
    """One topic declared twice (in one file or two): the later place is reported."""
    first: dict[str, Declared] = {}
    found: list[Diagnostic] = []
    for topic in topics:
        other = first.setdefault(topic.name, topic)
        if other is not topic:
            found.append(
                DUPLICATE_TOPIC(
                    f"topic '{topic.name}' is declared twice: here and at {other.location}; "
                    "keep one declaration (use `clusters:` to vary it per cluster)",
                    topic.location,
                    topic.name,
                )
            )
    return found


# ---------------------------------------------------------------------------- counts


def _of(topic: str | None) -> str:
    """How a message names what it is about: a topic, or (None) a file's defaults."""
    return f"'{topic}'" if topic is not None else "the file's defaults"


def partitions(value: int, at: Location, topic: str | None) -> list[Diagnostic]:
    """CreateTopics takes 1..2^31-1 partitions; omitted means the broker default (KIP-464)."""
    if 1 <= value <= MAX_PARTITIONS:
        return []
    return [
        INVALID_PARTITIONS(
            f"partitions of {_of(topic)} is {value}; it must be from 1 to {MAX_PARTITIONS} "
            "(omit it to use the broker's num.partitions, KIP-464)",
            at,
            topic,
        )
    ]


def replication_factor(value: int, at: Location, topic: str | None) -> list[Diagnostic]:
    """CreateTopics takes a replication factor of 1..32767 (an int16); omitted: KIP-464."""
    if 1 <= value <= MAX_REPLICATION_FACTOR:
        return []
    return [
        INVALID_REPLICATION_FACTOR(
            f"replication_factor of {_of(topic)} is {value}; it must be from 1 to "
            f"{MAX_REPLICATION_FACTOR} (omit it to use the broker's default.replication.factor, "
            "KIP-464)",
            at,
            topic,
        )
    ]


def assignments(
    replicas: Sequence[tuple[Sequence[int], Location]],
    at: Location,
    topic: str,
    partition_count: int | None,
    rf: int | None,
) -> list[Diagnostic]:
    """Kafka's INVALID_REPLICA_ASSIGNMENT rules for a manual assignment (KIP-4, KIP-195).

    One list per partition (as many as `partitions` when given); each list non-empty, of
    distinct broker ids >= 0, and all of one length (the replication factor when given).
    Whether the brokers exist is the planner's to check: only the cluster knows.
    """
    found: list[Diagnostic] = []
    if not replicas:
        return [
            ASSIGNMENT_PARTITION_COUNT(
                f"assignments of '{topic}' is empty: give one replica list per partition, or "
                "remove it to let Kafka place the replicas",
                at,
                topic,
            )
        ]
    if partition_count is not None and len(replicas) != partition_count:
        found.append(
            ASSIGNMENT_PARTITION_COUNT(
                f"assignments of '{topic}' has {len(replicas)} replica list(s) but partitions is "
                f"{partition_count}: give exactly one list per partition",
                at,
                topic,
            )
        )
    expected = rf if rf is not None else len(replicas[0][0])
    source = "replication_factor" if rf is not None else "the first partition's list"
    for index, (brokers, where) in enumerate(replicas):
        if not brokers:
            found.append(
                ASSIGNMENT_EMPTY(
                    f"partition {index} of '{topic}' has no replicas: list at least one broker id",
                    where,
                    topic,
                )
            )
            continue
        if expected and len(brokers) != expected:
            found.append(
                ASSIGNMENT_REPLICATION_FACTOR(
                    f"partition {index} of '{topic}' has {len(brokers)} replica(s) but "
                    f"{source} says {expected}: every partition needs the same number of replicas",
                    where,
                    topic,
                )
            )
        repeated = sorted({b for b in brokers if brokers.count(b) > 1})
        if repeated:
            found.append(
                ASSIGNMENT_DUPLICATE_BROKER(
                    f"partition {index} of '{topic}' lists broker {_ids(repeated)} more than "
                    "once: a partition's replicas must be on distinct brokers",
                    where,
                    topic,
                )
            )
        negative = sorted({b for b in brokers if b < 0})
        if negative:
            found.append(
                ASSIGNMENT_NEGATIVE_BROKER(
                    f"partition {index} of '{topic}' names broker id {_ids(negative)}: broker "
                    "ids are >= 0",
                    where,
                    topic,
                )
            )
    return found


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(str(i) for i in ids)


def min_insync_replicas(value: int, rf: int, at: Location, topic: str) -> list[Diagnostic]:
    """min.insync.replicas above the replication factor makes every acks=all write fail."""
    if value <= rf:
        return []
    return [
        MIN_INSYNC_REPLICAS(
            f"min.insync.replicas of '{topic}' is {value} but the replication factor is {rf}: "
            "producers with acks=all could never write; lower min.insync.replicas or raise "
            "replication_factor",
            at,
            topic,
        )
    ]


# ---------------------------------------------------------------------------- tombstones


def tombstone(
    topic: str,
    at: Location,
    extra_fields: Sequence[tuple[str, Location]],
    protect: tuple[bool, Location, bool] | None,
) -> list[Diagnostic]:
    """A tombstone (`state: absent`) deletes the topic, so topic settings on it mean nothing.

    Settings are a warning (they are ignored, the intent is still clear); `protect: true` is an
    error because the two contradict each other. `protect` is (value, where, from defaults).
    """
    found: list[Diagnostic] = [
        TOMBSTONE_FIELDS(
            f"'{field}' is ignored on '{topic}', which has state: absent (a tombstone deletes "
            "the topic); remove it",
            where,
            topic,
        )
        for field, where in extra_fields
    ]
    if protect is not None and protect[0]:
        inherited = " (inherited from the file's defaults)" if protect[2] else ""
        found.append(
            PROTECTED_TOMBSTONE(
                f"'{topic}' has state: absent and protect: true{inherited}, which contradict "
                "each other: to delete it, set protect: false in a reviewed change first; to "
                "keep it, remove the tombstone",
                protect[1],
                topic,
            )
        )
    return found


# ---------------------------------------------------------------------------- dependencies


def dependencies(topics: Sequence[Declared]) -> list[Diagnostic]:
    """depends_on names a declared topic, not itself, not a tombstone, and forms no cycle."""
    declared = {t.name: t for t in topics}
    found: list[Diagnostic] = []
    for topic in topics:
        for name, where in topic.depends_on:
            if name == topic.name:
                found.append(
                    SELF_DEPENDENCY(
                        f"'{topic.name}' depends on itself: remove it from its depends_on",
                        where,
                        topic.name,
                    )
                )
            elif name not in declared:
                found.append(
                    UNKNOWN_DEPENDENCY(
                        f"'{topic.name}' depends on '{name}', which no topic file declares"
                        f"{_did_you_mean(name, declared)}: declare it or fix the name",
                        where,
                        topic.name,
                    )
                )
            elif declared[name].absent and not topic.absent:
                found.append(
                    DEPENDENCY_ON_TOMBSTONE(
                        f"'{topic.name}' depends on '{name}', which has state: absent and will "
                        "be deleted; remove the dependency or the tombstone",
                        where,
                        topic.name,
                    )
                )
    found.extend(_cycles(topics, declared))
    return found


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _cycles(topics: Sequence[Declared], declared: Mapping[str, Declared]) -> list[Diagnostic]:
    """One diagnostic per strongly connected component with a cycle, printing one cycle.

    Tarjan's algorithm, iterative (a long chain must not hit Python's recursion limit), over
    names in sorted order so the cycle printed is the same on every run.
    """
    graph: dict[str, list[str]] = {
        t.name: sorted({d for d, _ in t.depends_on if d in declared and d != t.name})
        for t in topics
    }
    found: list[Diagnostic] = []
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        cycle = _a_cycle(min(component), graph, component)
        start = declared[cycle[0]]
        shown = " -> ".join([*cycle, cycle[0]])
        where = next((w for d, w in start.depends_on if d == cycle[1]), start.location)
        found.append(
            DEPENDENCY_CYCLE(
                f"depends_on forms a cycle: {shown}; topics cannot each be created before the "
                "other, so remove one of these dependencies",
                where,
                start.name,
            )
        )
    return found


def _strongly_connected(graph: Mapping[str, Sequence[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = graph[node]
            if child < len(successors):
                work.append((node, child + 1))
                succ = successors[child]
                if succ not in index:
                    work.append((succ, 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _a_cycle(start: str, graph: Mapping[str, Sequence[str]], within: set[str]) -> list[str]:
    """A shortest cycle through `start` inside one component (breadth-first, deterministic)."""
    previous: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        following: list[str] = []
        for node in frontier:
            for succ in graph[node]:
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return path[::-1]
                if succ in within and succ not in seen:
                    seen.add(succ)
                    previous[succ] = node
                    following.append(succ)
        frontier = following
    return [start]  # unreachable for a component of two or more
