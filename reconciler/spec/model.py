"""The validated desired state: frozen values that planning reads.

Everything here has already passed JSON Schema and Kafka's rules; config values are in Kafka's
canonical string form (what DescribeConfigs returns), so comparing them with a cluster's is a
plain string comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from reconciler import topic_ids
from reconciler.diagnostics import Location
from reconciler.spec.access import TopicAccess
from reconciler.spec.quotas import ClientQuota
from reconciler.spec.raw_acls import RawAcl
from reconciler.spec.scram_users import ScramUser


class Presence(Enum):
    """Whether a spec asks for its topic to exist (`state:` in a topic file); what a cluster
    shows of a topic is cluster.state.TopicState."""

    PRESENT = "present"
    ABSENT = "absent"  # a tombstone: the reviewed way to ask for a delete


# The hazards a topic's `acknowledge:` may name, the one list of names: planning/hazards.py
# `KINDS` defines each (what it protects, its evidence, its default severity; a test keeps the
# two in the same order), and the topics schema's enum is generated from it (spec/schema_gen.py).
HAZARD_CODES = (
    "key_reorder",
    "retention_decrease",
    "cleanup_policy_change",
    "delete",
    "in_use",
    "system_topic",
    "replication_factor_decrease",
    "min_insync_replicas_decrease",
    "unclean_leader_election",
    "delete_retention_decrease",
    "segment_per_record",
    "max_message_bytes_decrease",
    "partition_increase_read",
    "acl_revoke",
    "acl_widen",
)
# The kinds whose approval names the topic alone (its id): a delete (in_use and system_topic
# are a delete's hazards) has one transition, from existing to gone. Every other kind's
# approval names the transition, `{from, to}` (and the config key and topic id).
TOPIC_BOUND_CODES = frozenset({"delete", "in_use", "system_topic"})
# The fields a transition's approval may name
APPROVAL_FIELDS = ("key", "from", "to", "topic_id")

# What binds an approval: a topic id (or name) for a delete, else the transition's fields as
# sorted (field, text) pairs, so an item read from YAML and a planned hazard compare as equal.
ApprovalValue = str | tuple[tuple[str, str], ...]


def approval_text(value: object) -> str:
    """A scalar of an approval as compared: YAML's true/false as Kafka writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def topic_id_text(value: object) -> str:
    """A topic id as compared: either base64 alphabet, padded or not, names the same 16 bytes
    (Kafka prints URL-safe unpadded; reconciler printed the standard alphabet before). A
    topic name standing in for an id (brokers before Kafka 2.8) is unchanged."""
    return topic_ids.canonical(approval_text(value))


def _bound_text(field: object, value: object, key: object) -> str:
    """One field of a transition approval as compared: a topic id in either alphabet, and the
    values before and after a config key's change in the spec's units too (`from: 30d` is
    `from: 2592000000` for retention.ms), read by the catalog as a spec's config is."""
    if field == "topic_id":
        return topic_id_text(value)
    text = approval_text(value)
    if field in ("from", "to") and isinstance(key, str):
        from reconciler.spec.catalog import canonical  # the catalog is large: read when used

        return canonical(key, text)
    return text


@dataclass(frozen=True, slots=True)
class Acknowledgment:
    """One item of a topic's `acknowledge:`: a hazard code and the one transition it approves.

    `value` is what binds it, in Kafka's canonical form as text: for a delete (and in_use) the
    topic id (or, on brokers without topic ids, the name); for every other kind the transition,
    `{key: retention.ms, from: 2592000000, to: 86400000, topic_id: ...}` as sorted pairs. A
    bare code (None) or a scalar on a transition kind is an old form naming the new value only:
    it approves nothing (planning/hazards.py says the form to write).
    """

    code: str
    value: ApprovalValue | None = None
    location: Location | None = field(default=None, compare=False)

    @staticmethod
    def of(item: str | Mapping[str, object]) -> Acknowledgment:
        """From a spec's item: a bare code, `{code: value}` or `{code: {from: .., to: ..}}`."""
        if isinstance(item, str):
            return Acknowledgment(item)
        ((code, value),) = item.items()
        if isinstance(value, Mapping):
            key = value.get("key")
            pairs = sorted((str(k), _bound_text(k, v, key)) for k, v in value.items())
            return Acknowledgment(code, tuple(pairs))
        return Acknowledgment(
            code, topic_id_text(value) if code in TOPIC_BOUND_CODES else approval_text(value)
        )

    @property
    def old_form(self) -> bool:
        """A bare code, or a transition kind's item naming one value: it approves nothing."""
        if self.code in TOPIC_BOUND_CODES:
            return self.value is None
        return not isinstance(self.value, tuple)


@dataclass(frozen=True, slots=True)
class TopicSpec:
    name: str
    location: Location  # where `- name: ...` stands (the rendered template's source for .j2)
    partitions: int | None = None  # None: broker default at creation (KIP-464)
    replication_factor: int | None = None  # None: broker default at creation (KIP-464)
    config: tuple[tuple[str, str], ...] = ()  # sorted (key, canonical value) pairs
    keyed: bool = False  # partition increases remap keys: a hazard to acknowledge
    assignments: tuple[tuple[int, ...], ...] | None = None  # manual replica assignment
    depends_on: tuple[str, ...] = ()
    protect: bool = False  # never deleted, whatever the flags
    state: Presence = Presence.PRESENT
    owner: str | None = None
    clusters: tuple[str, ...] | None = None  # None: every cluster
    acknowledge: tuple[Acknowledgment, ...] = ()  # the approvals of the reviewed change
    description: str | None = None  # free text for people; never sent to Kafka
    # Who may produce and consume (`reconciler help access`); None: the topic's ACLs are not managed
    access: TopicAccess | None = None

    @property
    def config_map(self) -> dict[str, str]:
        return dict(self.config)

    @property
    def effective_partitions(self) -> int | None:
        """The partition count this spec asks for (see `partitions_of`)."""
        return partitions_of(self.partitions, self.assignments)

    @property
    def effective_replication_factor(self) -> int | None:
        """The replication factor this spec asks for (see `replication_factor_of`)."""
        return replication_factor_of(self.replication_factor, self.assignments)


# The one definition of a topic's effective counts: a spec's, a planned create's
# (planning/changes.py CreateTopic) and, as Spark columns, fleet/drift_columns.py's. Manual
# placement fixes both counts (Kafka takes them from the assignment); validated specs never hold
# a 0 for `or` to skip.


def partitions_of(
    partitions: int | None, assignments: tuple[tuple[int, ...], ...] | None
) -> int | None:
    """`partitions`, else the number of manually assigned partitions; None: the broker's
    num.partitions decides at creation (KIP-464), and the count never drifts afterwards."""
    return partitions or (len(assignments) if assignments else None)


def replication_factor_of(
    rf: int | None, assignments: tuple[tuple[int, ...], ...] | None
) -> int | None:
    """`rf`, else the first manually assigned partition's replica count; None: the broker's
    default.replication.factor decides at creation (KIP-464)."""
    return rf or (len(assignments[0]) if assignments else None)


@dataclass(frozen=True, slots=True)
class Limits:
    """KIP-578 limits, simulated in the plan because Kafka never merged them."""

    max_broker_partitions: int | None = None  # partition replicas hosted per broker
    max_partitions: int | None = None  # cluster-wide partitions


@dataclass(frozen=True, slots=True)
class Policy:
    allow_delete: bool = False
    max_deletes: int = 5
    min_replication_factor: int = 1
    max_partitions_per_topic: int | None = None
    name_pattern: str | None = None
    ignore: tuple[str, ...] = ("^_",)  # regexes of topic names never touched nor reported
    manage: tuple[str, ...] = ()  # ownership scope (planning/ownership.py); (): every topic
    # regexes of more system topics, beside planning/system_topics.py's: never --prune'd
    system_topics: tuple[str, ...] = ()
    # A record newer than this makes a delete `in_use` (planning/hazards.py); default 7 days
    idle_before_delete_ms: int = 7 * 24 * 3600 * 1000
    # (rule or hazard name, "error" | "warning" | "off"), sorted: overrides of the default
    # severities (reconciler/planning/p_codes.py CONFIGURABLE lists the names)
    severity: tuple[tuple[str, str], ...] = ()
    # Approvals of the gates this policy turns off (planning/policy_changes.py):
    # `{policy_gate_off: {key: severity.delete, from: error, to: off}}` items
    acknowledge: tuple[Acknowledgment, ...] = ()
    # Where name_pattern and each ignore pattern were written, (pattern, place in
    # reconciler.yaml): messages about a pattern (reconciler/patterns.py) name the place
    pattern_at: tuple[tuple[str, Location], ...] = field(default=(), compare=False)

    def pattern_source(self, field_name: str, pattern: str) -> str:
        """`policy.FIELD (reconciler.yaml:L:C)`: where a person fixes `pattern`."""
        at = dict(self.pattern_at).get(pattern)
        return f"policy.{field_name}" + (f" ({at})" if at is not None else "")


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    name: str
    bootstrap: str  # after ${ENV} expansion
    client: tuple[tuple[str, str], ...] = ()  # extra librdkafka properties (may hold secrets)
    vars: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    limits: Limits = Limits()
    policy: Policy = Policy()
    # The id Kafka reports for this cluster: every live command refuses a cluster reporting
    # another (None: not pinned, a warning on plan and apply)
    cluster_id: str | None = None
    location: Location | None = field(default=None, compare=False)  # its `NAME:` key
    confirm: str = "yes"  # what apply asks to be typed: "yes", or "name" (the cluster's name)
    # False: a command for another cluster loaded this one, so its `bootstrap` and `client:`
    # were neither read nor expanded (spec/settings_scope.py) and are empty here
    settings_read: bool = True
    # Kafka's client quotas (`reconciler help access`); None: not declared, never read nor changed
    quotas: tuple[ClientQuota, ...] | None = None
    # SCRAM credentials (`reconciler help access`); None: not declared, never read nor changed
    users: tuple[ScramUser, ...] | None = None


@dataclass(frozen=True, slots=True)
class RepoConfig:
    root: Path
    topics_dir: Path  # absolute
    clusters: dict[str, ClusterConfig] = field(default_factory=dict, hash=False, compare=True)
    location: Location | None = None  # of reconciler.yaml itself


@dataclass(frozen=True, slots=True)
class DesiredState:
    """Every topic declared for one cluster, keyed by name, after rendering and validation."""

    cluster: str
    topics: dict[str, TopicSpec] = field(default_factory=dict, hash=False, compare=True)
    # Files under the topics directory that could hold topics but were not read, as
    # (path, reason) (spec/discovery.py): while any is there, the planner refuses every delete
    unread: tuple[tuple[str, str], ...] = ()
    # Topics declared only for other clusters (`clusters:`), with those clusters: named as
    # such, never as undeclared, where a message is about one of them (a --prune delete)
    elsewhere: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=True)
    # The raw `acls:` entries for this cluster, in file order; None when no topic file has an
    # `acls:` key (the cluster's ACLs beyond the topics' `access:` are then not managed)
    acls: tuple[RawAcl, ...] | None = None
