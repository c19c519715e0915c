"""Kafka's own rules for one topic, each a small pure function returning diagnostics.

They take already-typed values and their locations and never raise. The facts come from Kafka
4.1's sources: `Topic.validate` (names), `Topic.unifyCollisionChars` (collisions),
`ReplicationControlManager` and `AdminUtils` (INVALID_REPLICA_ASSIGNMENT, KIP-4 / KIP-195),
`CreateTopicsRequest` (the replication factor is an int16, partitions an int32). The rules over
many topics (duplicates, collisions, dependencies) are cross_file.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec.r_codes import (
    ASSIGNMENT_DUPLICATE_BROKER,
    ASSIGNMENT_EMPTY,
    ASSIGNMENT_NEGATIVE_BROKER,
    ASSIGNMENT_PARTITION_COUNT,
    ASSIGNMENT_REPLICATION_FACTOR,
    DOT_TOPIC_NAME,
    ILLEGAL_TOPIC_NAME,
    INTERNAL_TOPIC_NAME,
    INVALID_PARTITIONS,
    INVALID_REPLICATION_FACTOR,
    MIN_INSYNC_REPLICAS,
    PROTECTED_TOMBSTONE,
    TOMBSTONE_FIELDS,
    TOPIC_NAME_TOO_LONG,
)
from reconciler.spec.yaml_scalars import shown_integer

# ---------------------------------------------------------------------------- Kafka facts

MAX_NAME_LENGTH = 249  # Topic.MAX_NAME_LENGTH: the name is a directory name plus a suffix
_LEGAL = re.compile(r"[a-zA-Z0-9._-]")  # Topic.LEGAL_CHARS
_LEGAL_NAME = re.compile(_LEGAL.pattern + "+")
# Topic.isInternal in Kafka 4.x, plus the KRaft metadata log: CreateTopics refuses them all.
INTERNAL_TOPICS = frozenset(
    {"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata"}
)
MAX_PARTITIONS = 2**31 - 1  # CreateTopicsRequest: num_partitions is an int32
MAX_REPLICATION_FACTOR = 2**15 - 1  # CreateTopicsRequest: replication_factor is an int16
MAX_BROKER_ID = 2**31 - 1  # CreateTopicsRequest: broker ids are int32


def collision_key(name: str) -> str:
    """Topic.unifyCollisionChars: metric names use '_' for '.', so 'a.b' and 'a_b' clash.

    The one collision key: validate compares declared names with it (cross_file.py), plan
    compares a new name with the cluster's (planning/diff.py).
    """
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
    legal = _LEGAL_NAME.fullmatch(name) is not None  # the common case, in one call
    illegal = [] if legal else sorted({c for c in name if not _LEGAL.fullmatch(c)})
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
            f"partitions of {_of(topic)} is {shown_integer(value)}; it must be from 1 to "
            f"{MAX_PARTITIONS} "
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
            f"replication_factor of {_of(topic)} is {shown_integer(value)}; it must be from 1 to "
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
                f"{partition_count}: give exactly one list per partition, or remove "
                "`assignments:` to hand placement back to Kafka (the replicas stay where they "
                "are; Kafka places new partitions itself)",
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
        negative = sorted({b for b in brokers if not 0 <= b <= MAX_BROKER_ID})
        if negative:
            found.append(
                ASSIGNMENT_NEGATIVE_BROKER(
                    f"partition {index} of '{topic}' names broker id "
                    f"{', '.join(shown_integer(b) for b in negative)}: broker ids are from 0 to "
                    f"{MAX_BROKER_ID} (a Java int)",
                    where,
                    topic,
                )
            )
    return found


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(str(i) for i in ids)


def min_insync_replicas(
    value: int,
    rf: int,
    at: Location,
    topic: str,
    *,
    source: str = "",
    brokers: int | None = None,
    unseen: str = "",
) -> list[Diagnostic]:
    """min.insync.replicas above the replication factor makes every acks=all write fail.

    One rule wherever the replication factor comes from: the spec (validate), or the cluster
    (plan: the broker default of a create, or the topic's own), which `source` names. With the
    cluster's broker count known, a replication factor it cannot hold is never advised;
    `unseen` says why that count may leave out a broker that is down (the plan's words).
    """
    if value <= rf:
        return []
    fix = "lower min.insync.replicas or raise replication_factor"
    if brokers is not None and value > brokers:
        fix = (
            f"set min.insync.replicas to at most {rf} (the cluster's {brokers} broker(s) cannot "
            f"hold a replication factor of {value})"
        )
        if unseen:
            fix = (
                f"{unseen}: if one is, bring it back and plan again; else set "
                f"min.insync.replicas to at most {rf} (the {brokers} broker(s) the cluster lists "
                f"cannot hold a replication factor of {value})"
            )
    return [
        MIN_INSYNC_REPLICAS(
            f"min.insync.replicas of '{topic}' is {value} but the replication factor is "
            f"{rf}{source}: producers with acks=all could never write; {fix}",
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
