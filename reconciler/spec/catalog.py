"""Catalog of Kafka's topic-level configs: type, valid values, and canonical form.

CONTRACT (other modules rely on these names; the helper building the full catalog keeps them):

    ConfigDef                      frozen dataclass describing one topic config key
    CATALOG: Mapping[str, ConfigDef]
    lookup(key) -> ConfigDef | None
    suggest(key) -> str | None     closest known key, for "did you mean"
    unknown_key_message(key)       what to say about a key the catalog does not hold
    normalise(key, value) -> str   canonical Kafka string; raises InvalidConfigValue
    InvalidConfigValue(ValueError) message says what is wrong and what is accepted

normalise() accepts both human spellings from spec files (7d, 512MiB, true) and the raw forms
Kafka returns from DescribeConfigs, and maps both to one canonical string, so a spec value and
a cluster value compare equal exactly when Kafka treats them as the same.

Also public: `ConfigType`, `REMOVED_CONFIGS` and `removed_reason(key)` (keys Kafka 4.0 dropped,
with what replaces them), `accepted(defn)` (the "what is accepted" phrase of messages and docs),
`java_double_str(x)`, `canonical(key, value)` (a cluster's value, canonical where it can be)
and `KAFKA_VERSION`.

Canonical forms (`reconciler help configs` explains them for users):

    INT, LONG  decimal integer ("604800000"), units resolved; a negative retention.bytes is "-1"
    BOOLEAN    "true" / "false"
    DOUBLE     Java's Double.toString ("0.5", "1.0", "1.0E-4"), as DescribeConfigs prints it
    STRING     Kafka's own spelling of the enum value ("zstd", "CreateTime")
    LIST       comma-joined, no spaces; cleanup.policy and throttled replicas sorted, no repeats
"""

# Source of truth: Apache Kafka 4.1.1 (KRaft), read from
#   storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java
#       (CONFIG: types, defaults, validators such as atLeast, between, ValidString.in,
#       ValidList.in, ThrottledReplicaListValidator)
#   clients/src/main/java/org/apache/kafka/common/config/TopicConfig.java  (names, docs)
#   server-common/.../server/config/ServerTopicConfigSynonyms.java  (broker properties)
#   server-common/.../server/config/QuotaConfig.java  (throttled replicas)
# and checked against the released jars (kafka-storage-4.1.1.jar) by dumping
# LogConfig.configKeys() and probing each validator. `internal.segment.bytes` is left out on
# purpose: Kafka marks it internal, "for testing only".

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from types import MappingProxyType
from typing import Literal, assert_never

from reconciler.errors import InvalidConfigValue
from reconciler.spec.units import (
    GENERIC_REASONS,
    NOT_A_NUMBER,
    UnitError,
    format_size_bytes,
    parse_decimal,
    parse_duration_ms,
    parse_integer,
    parse_size_bytes,
)
from reconciler.spec.yaml_scalars import shown_integer

KAFKA_VERSION = "4.1.1"

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

Unit = Literal["ms", "bytes"]
Number = int | float


class ConfigType(Enum):
    """Kafka's ConfigDef.Type; the value is how Kafka's docs spell it."""

    BOOLEAN = "boolean"
    STRING = "string"
    INT = "int"
    LONG = "long"
    DOUBLE = "double"
    LIST = "list"
    CLASS = "class"
    PASSWORD = "password"


@dataclass(frozen=True, slots=True)
class ConfigDef:
    """One topic config key as Kafka defines it, plus the unit humans may write it in."""

    name: str
    type: ConfigType
    # Kafka's default, canonical: the value when neither the topic nor the broker sets one.
    default: str | None
    doc: str  # one line
    # Enum values (STRING) or allowed items (LIST), in Kafka's spelling.
    valid_values: tuple[str, ...] = ()
    min: Number | None = None  # Kafka's validator bound (atLeast / between), inclusive
    max: Number | None = None  # same; INT keys are also capped at 2^31-1 by their type
    unit: Unit | None = None  # what the integer counts; enables human units (7d, 512MiB)
    server_default: str | None = None  # broker property inherited when the topic has no override
    special_values: tuple[tuple[int, str], ...] = ()  # sentinels and what they mean


_UNLIMITED = "unlimited"

_DEFINITIONS: tuple[ConfigDef, ...] = (
    ConfigDef(
        name="cleanup.policy",
        type=ConfigType.LIST,
        default="delete",
        doc="What happens to old segments: delete them, compact them, or both.",
        valid_values=("compact", "delete"),
        server_default="log.cleanup.policy",
    ),
    ConfigDef(
        name="compression.gzip.level",
        type=ConfigType.INT,
        default="-1",
        doc="Compression level used when compression.type is gzip.",
        min=1,
        max=9,
        special_values=((-1, "gzip's default level"),),
        server_default="compression.gzip.level",
    ),
    ConfigDef(
        name="compression.lz4.level",
        type=ConfigType.INT,
        default="9",
        doc="Compression level used when compression.type is lz4.",
        min=1,
        max=17,
        server_default="compression.lz4.level",
    ),
    ConfigDef(
        name="compression.type",
        type=ConfigType.STRING,
        default="producer",
        doc="Final codec of the topic's data; 'producer' keeps whatever the producer used.",
        valid_values=("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
        server_default="compression.type",
    ),
    ConfigDef(
        name="compression.zstd.level",
        type=ConfigType.INT,
        default="3",
        doc="Compression level used when compression.type is zstd (negative: faster levels).",
        min=-131072,
        max=22,
        server_default="compression.zstd.level",
    ),
    ConfigDef(
        name="delete.retention.ms",
        type=ConfigType.LONG,
        default="86400000",
        doc="How long delete tombstones stay in a compacted topic.",
        min=0,
        unit="ms",
        server_default="log.cleaner.delete.retention.ms",
    ),
    ConfigDef(
        name="file.delete.delay.ms",
        type=ConfigType.LONG,
        default="60000",
        doc="Delay before a deleted segment's files are removed from disk.",
        min=0,
        unit="ms",
        server_default="log.segment.delete.delay.ms",
    ),
    ConfigDef(
        name="flush.messages",
        type=ConfigType.LONG,
        default=str(LONG_MAX),
        doc="Force an fsync every this many messages (the default never; rely on replication).",
        min=1,
        server_default="log.flush.interval.messages",
    ),
    ConfigDef(
        name="flush.ms",
        type=ConfigType.LONG,
        default=str(LONG_MAX),
        doc="Force an fsync after this much time (the default never does; rely on replication).",
        min=0,
        unit="ms",
        server_default="log.flush.interval.ms",
    ),
    ConfigDef(
        name="follower.replication.throttled.replicas",
        type=ConfigType.LIST,
        default="",
        doc="Replicas throttled on the follower side: '*' or partition:broker pairs.",
    ),
    ConfigDef(
        name="index.interval.bytes",
        type=ConfigType.INT,
        default="4096",
        doc="Bytes of log between two offset index entries.",
        min=0,
        unit="bytes",
        server_default="log.index.interval.bytes",
    ),
    ConfigDef(
        name="leader.replication.throttled.replicas",
        type=ConfigType.LIST,
        default="",
        doc="Replicas throttled on the leader side: '*' or partition:broker pairs.",
    ),
    ConfigDef(
        name="local.retention.bytes",
        type=ConfigType.LONG,
        default="-2",
        doc="With tiered storage, the most a partition keeps on local disk.",
        min=-2,
        unit="bytes",
        special_values=((-2, "use retention.bytes"), (-1, _UNLIMITED)),
        server_default="log.local.retention.bytes",
    ),
    ConfigDef(
        name="local.retention.ms",
        type=ConfigType.LONG,
        default="-2",
        doc="With tiered storage, how long segments stay on local disk.",
        min=-2,
        unit="ms",
        special_values=((-2, "use retention.ms"), (-1, _UNLIMITED)),
        server_default="log.local.retention.ms",
    ),
    ConfigDef(
        name="max.compaction.lag.ms",
        type=ConfigType.LONG,
        default=str(LONG_MAX),
        doc="Longest time a record may stay ineligible for compaction.",
        min=1,
        unit="ms",
        server_default="log.cleaner.max.compaction.lag.ms",
    ),
    ConfigDef(
        name="max.message.bytes",
        type=ConfigType.INT,
        default="1048588",
        doc="Largest record batch the topic accepts, after compression.",
        min=0,
        unit="bytes",
        server_default="message.max.bytes",
    ),
    ConfigDef(
        name="message.timestamp.after.max.ms",
        type=ConfigType.LONG,
        default="3600000",
        doc="How far ahead of the broker's clock a CreateTime timestamp may be.",
        min=0,
        unit="ms",
        server_default="log.message.timestamp.after.max.ms",
    ),
    ConfigDef(
        name="message.timestamp.before.max.ms",
        type=ConfigType.LONG,
        default=str(LONG_MAX),
        doc="How far behind the broker's clock a CreateTime timestamp may be.",
        min=0,
        unit="ms",
        server_default="log.message.timestamp.before.max.ms",
    ),
    ConfigDef(
        name="message.timestamp.type",
        type=ConfigType.STRING,
        default="CreateTime",
        doc="Record timestamps: the producer's CreateTime or the broker's LogAppendTime.",
        valid_values=("CreateTime", "LogAppendTime"),
        server_default="log.message.timestamp.type",
    ),
    ConfigDef(
        name="min.cleanable.dirty.ratio",
        type=ConfigType.DOUBLE,
        default="0.5",
        doc="Share of the log that must be uncompacted before the cleaner compacts it.",
        min=0,
        max=1,
        server_default="log.cleaner.min.cleanable.ratio",
    ),
    ConfigDef(
        name="min.compaction.lag.ms",
        type=ConfigType.LONG,
        default="0",
        doc="Shortest time a record stays uncompacted.",
        min=0,
        unit="ms",
        server_default="log.cleaner.min.compaction.lag.ms",
    ),
    ConfigDef(
        name="min.insync.replicas",
        type=ConfigType.INT,
        default="1",
        doc="In-sync replicas an acks=all write needs to succeed.",
        min=1,
        server_default="min.insync.replicas",
    ),
    ConfigDef(
        name="preallocate",
        type=ConfigType.BOOLEAN,
        default="false",
        doc="Preallocate each new segment file on disk.",
        server_default="log.preallocate",
    ),
    ConfigDef(
        name="remote.log.copy.disable",
        type=ConfigType.BOOLEAN,
        default="false",
        doc="Stop uploading to tiered storage; tiered data becomes read-only.",
    ),
    ConfigDef(
        name="remote.log.delete.on.disable",
        type=ConfigType.BOOLEAN,
        default="false",
        doc="Delete tiered data when tiered storage is disabled (needed to disable it).",
    ),
    ConfigDef(
        name="remote.storage.enable",
        type=ConfigType.BOOLEAN,
        default="false",
        doc="Enable tiered storage for the topic.",
    ),
    ConfigDef(
        name="retention.bytes",
        type=ConfigType.LONG,
        default="-1",
        doc="Largest size of a partition before old segments are deleted (per partition).",
        unit="bytes",
        special_values=((-1, "unlimited, as does any negative value"),),
        server_default="log.retention.bytes",
    ),
    ConfigDef(
        name="retention.ms",
        type=ConfigType.LONG,
        default="604800000",
        doc="How long records are kept before old segments are deleted.",
        min=-1,
        unit="ms",
        special_values=((-1, _UNLIMITED),),
        server_default="log.retention.ms",
    ),
    ConfigDef(
        name="segment.bytes",
        type=ConfigType.INT,
        default="1073741824",
        doc="Size of one segment file; retention and compaction work a segment at a time.",
        min=1048576,
        unit="bytes",
        server_default="log.segment.bytes",
    ),
    ConfigDef(
        name="segment.index.bytes",
        type=ConfigType.INT,
        default="10485760",
        doc="Size of each segment's preallocated offset index.",
        min=4,
        unit="bytes",
        server_default="log.index.size.max.bytes",
    ),
    ConfigDef(
        name="segment.jitter.ms",
        type=ConfigType.LONG,
        default="0",
        doc="Largest random time taken off segment.ms, to spread segment rolls.",
        min=0,
        unit="ms",
        server_default="log.roll.jitter.ms",
    ),
    ConfigDef(
        name="segment.ms",
        type=ConfigType.LONG,
        default="604800000",
        doc="Time after which a segment is rolled even if it is not full.",
        min=1,
        unit="ms",
        server_default="log.roll.ms",
    ),
    ConfigDef(
        name="unclean.leader.election.enable",
        type=ConfigType.BOOLEAN,
        default="false",
        doc="Let an out-of-sync replica become leader as a last resort (can lose data).",
        server_default="unclean.leader.election.enable",
    ),
)

CATALOG: Mapping[str, ConfigDef] = MappingProxyType({d.name: d for d in _DEFINITIONS})

# Accepted until Kafka 3.x and refused by 4.x brokers; a spec still naming one gets this reason
# rather than a bare "unknown config".
REMOVED_CONFIGS: Mapping[str, str] = MappingProxyType(
    {
        "message.format.version": (
            "was removed in Kafka 4.0 (KIP-724): brokers always write the v2 record format; "
            "remove the key"
        ),
        "message.downconversion.enable": (
            "was removed in Kafka 4.0 (KIP-724): brokers no longer down-convert records for old "
            "consumers; remove the key"
        ),
        "message.timestamp.difference.max.ms": (
            "was removed in Kafka 4.0 (KIP-937): use message.timestamp.before.max.ms and "
            "message.timestamp.after.max.ms instead"
        ),
    }
)

# Broker properties people write on topics by mistake (log.retention.ms for retention.ms, the
# classic message.max.bytes for max.message.bytes), from ServerTopicConfigSynonyms.
_BROKER_SYNONYMS: Mapping[str, str] = MappingProxyType(
    {
        **{d.server_default: d.name for d in _DEFINITIONS if d.server_default},
        "log.roll.hours": "segment.ms",
        "log.roll.jitter.hours": "segment.jitter.ms",
        "log.flush.scheduler.interval.ms": "flush.ms",
        "log.retention.minutes": "retention.ms",
        "log.retention.hours": "retention.ms",
    }
)


def broker_synonyms(key: str) -> tuple[str, ...]:
    """The broker settings `key` inherits from, in Kafka's order of precedence
    (log.retention.ms, then .minutes, then .hours): where a removed override falls back to when
    Kafka's DescribeConfigs lists no synonym for it (planning.configs.inherited)."""
    return tuple(name for name, topic_key in _BROKER_SYNONYMS.items() if topic_key == key)


_SUGGEST_CUTOFF = 0.75  # "retention.msx" and "cleanup.polcy" pass, unrelated words do not


def lookup(key: str) -> ConfigDef | None:
    """The definition of a topic config key (exact, case-sensitive like Kafka), or None."""
    return CATALOG.get(key)


def removed_reason(key: str) -> str | None:
    """Why a key Kafka used to accept is refused now, with what replaces it; None otherwise."""
    return REMOVED_CONFIGS.get(key)


def suggest(key: str) -> str | None:
    """The known key a user most likely meant by `key`, for "did you mean"; None if none is close.

    Tries, in order: a different letter case, a broker property that maps to a topic key
    (log.retention.ms -> retention.ms), then the closest spelling of either.
    """
    if key in REMOVED_CONFIGS:
        return None  # the removal reason names the replacement(s) more precisely
    folded = key.strip().lower()
    if folded in CATALOG:
        return folded
    if folded in _BROKER_SYNONYMS:
        return _BROKER_SYNONYMS[folded]
    candidates = [*CATALOG, *_BROKER_SYNONYMS]
    close = difflib.get_close_matches(folded, candidates, n=1, cutoff=_SUGGEST_CUTOFF)
    if not close:
        return None
    return _BROKER_SYNONYMS.get(close[0], close[0])


def normalise(key: str, value: object) -> str:
    """The canonical Kafka string for `value` of topic config `key`.

    `value` is what PyYAML produced from a spec file (str, int, float, bool, list) or the raw
    string DescribeConfigs returned. Raises InvalidConfigValue for an unknown or removed key and
    for a value Kafka would refuse, saying what is accepted.
    """
    memo = _memo_key(key, value)
    if memo is None:
        return _normalise(key, value)
    found = _NORMALISED.get(memo)
    if found is None:
        found = _normalise(key, value)  # a refusal raises and is not kept
        if len(_NORMALISED) >= _NORMALISED_MAX:
            _NORMALISED.clear()
        _NORMALISED[memo] = found
    return found


# normalise is pure and its inputs repeat (the topics of a file share their retention and
# cleanup values; every live topic reports the same inherited defaults), so each distinct
# (key, value) is worked out once. The exact type is part of the key, as 1, True and "1" read
# differently; floats are left out (-0.0 == 0.0), and so are long texts (bounded memory).
_NORMALISED: dict[tuple[str, type, object], str] = {}
_NORMALISED_MAX = 65_536
_MEMO_MAX_CHARS = 256


def _memo_key(key: str, value: object) -> tuple[str, type, object] | None:
    kind = type(value)
    if isinstance(value, str):
        return (key, kind, value) if kind is str and len(value) <= _MEMO_MAX_CHARS else None
    if kind is int or kind is bool:
        return key, kind, value
    if isinstance(value, list) and len(value) <= 8 and all(type(v) is str for v in value):
        return key, kind, tuple(value)
    return None


def _normalise(key: str, value: object) -> str:
    defn = CATALOG.get(key)
    if defn is None:
        raise InvalidConfigValue(unknown_key_message(key), key)
    if value is None:
        raise _invalid(defn, value)
    if defn.type is not ConfigType.LIST and isinstance(value, list | tuple):
        raise _invalid(defn, value, "a list, but this config takes a single value")
    match defn.type:
        case ConfigType.INT | ConfigType.LONG:
            return _normalise_integer(defn, value)
        case ConfigType.BOOLEAN:
            return _normalise_boolean(defn, value)
        case ConfigType.DOUBLE:
            return _normalise_double(defn, value)
        case ConfigType.STRING:
            return _normalise_string(defn, value)
        case ConfigType.LIST:
            return _normalise_list(defn, value)
        case ConfigType.CLASS | ConfigType.PASSWORD:
            return _normalise_text(defn, value)
        case _:
            assert_never(defn.type)


def canonical(key: str, value: str) -> str:
    """A value read from a cluster in canonical form; the raw string when the catalog cannot
    read it (an unknown key, or a value this catalog would refuse), so it still compares."""
    if key not in CATALOG:
        return value
    try:
        return normalise(key, value)
    except InvalidConfigValue:
        return value


def accepted(defn: ConfigDef) -> str:
    """What `defn` accepts, as the end of "<key> must be ...": shared by messages and docs."""
    match defn.type:
        case ConfigType.INT | ConfigType.LONG:
            return _accepted_integer(defn)
        case ConfigType.BOOLEAN:
            return "true or false"
        case ConfigType.DOUBLE:
            return f"a number from {defn.min} to {defn.max}, like 0.5"
        case ConfigType.STRING if defn.valid_values:
            return "one of " + ", ".join(defn.valid_values)
        case ConfigType.LIST if defn.name in _THROTTLED_REPLICAS:
            return "'*' or a list of partition:broker pairs like 0:1,1:2 (empty for none)"
        case ConfigType.LIST if defn.valid_values:
            items = " and/or ".join(defn.valid_values)
            return f"{items}, as a list or a comma-separated string"
        case ConfigType.STRING | ConfigType.LIST | ConfigType.CLASS | ConfigType.PASSWORD:
            return "a string"
        case _:
            assert_never(defn.type)


# --- messages -----------------------------------------------------------------------------


def unknown_key_message(key: str) -> str:
    """What is wrong with a key the catalog does not hold, and what to do: the reason a removed
    key is gone (validate's R102), else the closest known key (R105), else where to look."""
    reason = removed_reason(key)
    if reason is not None:
        return f"topic config '{key}' {reason}"
    hint = suggest(key)
    if hint is None:
        return (
            f"unknown topic config '{key}': `reconciler help configs` lists the topic configs "
            "Kafka accepts"
        )
    return f"unknown topic config '{key}' (did you mean '{hint}'?)"


def _invalid(defn: ConfigDef, value: object, reason: str | None = None) -> InvalidConfigValue:
    detail = f" ({reason})" if reason and reason not in GENERIC_REASONS else ""
    return InvalidConfigValue(
        f"{defn.name} must be {accepted(defn)}; got {_shown(value)}{detail}", defn.name
    )


def _shown(value: object) -> str:
    """`value` as the user wrote it, quoted when it is a string so blanks stay visible."""
    if value is None:
        return "no value"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, str | int | float | list | tuple):
        text = repr(value)  # ints are bounded by the reader (R016), so repr cannot fail
        return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"
    return f"{value!r} (a {type(value).__name__})"


def _accepted_integer(defn: ConfigDef) -> str:
    bounds = _range_text(defn)
    match defn.unit:
        case "ms":
            return (
                f"a duration in milliseconds ({bounds}) or with a unit like 7d, 36h, 15m, 30s, "
                "500ms"
            )
        case "bytes":
            return f"a size in bytes ({bounds}) or with a unit like 512MiB, 1GiB, 1GB, 100KiB"
        case None:
            return f"an integer ({bounds})"
        case _:
            assert_never(defn.unit)


def _range_text(defn: ConfigDef) -> str:
    """Kafka's bounds in words: ">= -1, where -1 means unlimited", "1..9, or -1 for ...", ..."""
    minimum, maximum = defn.min, defn.max
    if minimum is None:
        text = "any integer" if maximum is None else f"<= {maximum}"
    elif maximum is None:
        text = f">= {minimum}"
        if defn.unit == "bytes" and format_size_bytes(int(minimum)) != str(minimum):
            text += f", i.e. {format_size_bytes(int(minimum))}"
    else:
        text = f"{minimum}..{maximum}"
    low, high = _bounds(defn)
    inside = [(v, m) for v, m in defn.special_values if low <= v <= high]
    outside = [(v, m) for v, m in defn.special_values if not low <= v <= high]
    if outside:
        text += ", or " + " or ".join(f"{v} for {m}" for v, m in outside)
    if inside:
        text += ", where " + " and ".join(f"{v} means {m}" for v, m in inside)
    return text


def _type_max(defn: ConfigDef) -> int:
    return INT_MAX if defn.type is ConfigType.INT else LONG_MAX


def _bounds(defn: ConfigDef) -> tuple[int, int]:
    """Inclusive integer bounds: Kafka's validator, else the Java type's own range."""
    type_min = INT_MIN if defn.type is ConfigType.INT else LONG_MIN
    low = type_min if defn.min is None else int(defn.min)
    high = _type_max(defn) if defn.max is None else int(defn.max)
    return low, high


# --- integers -----------------------------------------------------------------------------


def _normalise_integer(defn: ConfigDef, value: object) -> str:
    number = _read_integer(defn, value)
    special = {v for v, _ in defn.special_values}
    low, high = _bounds(defn)
    if number not in special and not low <= number <= high:
        raise _invalid(defn, value, _out_of_range(defn, number, low, high))
    if defn.name == "retention.bytes" and number < 0:
        # Kafka skips size-based deletion for any negative retention.bytes (no validator
        # stops -5), so every negative is the same setting: unlimited.
        return "-1"
    return str(number)


def _read_integer(defn: ConfigDef, value: object) -> int:
    if isinstance(value, bool):  # YAML's true is not 1
        raise _invalid(defn, value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise _invalid(defn, value, "not a whole number")
        return int(value)
    if not isinstance(value, str):
        raise _invalid(defn, value)
    try:
        return _parse_integer_text(defn, value)
    except UnitError as error:
        raise _invalid(defn, value, str(error)) from error


def _parse_integer_text(defn: ConfigDef, text: str) -> int:
    """A plain number first; only if that fails, the unit spelling the key allows."""
    try:
        return parse_integer(text)
    except UnitError as error:
        if str(error) != NOT_A_NUMBER or defn.unit is None:
            raise
    return parse_duration_ms(text) if defn.unit == "ms" else parse_size_bytes(text)


def _out_of_range(defn: ConfigDef, number: int, low: int, high: int) -> str:
    if number > _type_max(defn) and defn.max is None:
        limit = _type_max(defn)
        kind = "a Java int" if defn.type is ConfigType.INT else "a Java long"
        shown = f"{limit} = {format_size_bytes(limit + 1)} - 1" if defn.unit == "bytes" else limit
        return f"{shown_integer(number)} is too large for {kind}, whose maximum is {shown}"
    if number < low:
        return f"{shown_integer(number)} is below the minimum {low}"
    return f"{shown_integer(number)} is above the maximum {high}"


# --- booleans, doubles, strings -------------------------------------------------------------


def _normalise_boolean(defn: ConfigDef, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    # Kafka compares case-insensitively (TRUE is true) and rejects yes/1; so do we.
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower()
    raise _invalid(defn, value)


def _normalise_double(defn: ConfigDef, value: object) -> str:
    number = _read_double(defn, value)
    low = -math.inf if defn.min is None else defn.min
    high = math.inf if defn.max is None else defn.max
    if not low <= number <= high:
        raise _invalid(defn, value, f"outside {low}..{high}")
    return java_double_str(number)


def _read_double(defn: ConfigDef, value: object) -> float:
    if isinstance(value, bool):
        raise _invalid(defn, value)
    if isinstance(value, float):
        number = value
    elif isinstance(value, int):
        number = float(value) if abs(value) <= LONG_MAX else math.inf  # float(10**400) raises
    elif isinstance(value, str):
        try:
            number = float(parse_decimal(value))
        except UnitError as error:
            raise _invalid(defn, value, str(error)) from error
    else:
        raise _invalid(defn, value)
    # Kafka's between(0, 1) lets NaN through (every comparison with NaN is false); we do not.
    if not math.isfinite(number):
        raise _invalid(defn, value, "not a finite number")
    return number


def java_double_str(number: float) -> str:
    """`number` spelled as Java's Double.toString (JDK 19+), which DescribeConfigs uses.

    Shortest digits that round-trip (as Python's repr), plain notation from 10^-3 up to 10^7 and
    Java's scientific form outside it: 0.5 -> "0.5", 1.0 -> "1.0", 0.0001 -> "1.0E-4".
    Negative zero is spelled "0.0": Kafka's range checks treat it as zero.
    """
    if number == 0:
        return "0.0"
    exact = Decimal(repr(number))
    if 1e-3 <= abs(number) < 1e7:
        plain = f"{exact:f}"
        return plain if "." in plain else plain + ".0"
    sign, digits, _ = exact.normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    return (
        f"{'-' if sign else ''}{mantissa[0]}.{mantissa[1:] or '0'}E{exact.normalize().adjusted()}"
    )


def _normalise_string(defn: ConfigDef, value: object) -> str:
    if not isinstance(value, str):
        raise _invalid(defn, value)
    if not defn.valid_values:
        return value.strip()
    # Kafka's ValidString.in is case-sensitive; we accept any case and send Kafka's spelling.
    spelling = {v.lower(): v for v in defn.valid_values}.get(value.strip().lower())
    if spelling is None:
        raise _invalid(defn, value)
    return spelling


def _normalise_text(defn: ConfigDef, value: object) -> str:
    if not isinstance(value, str):
        raise _invalid(defn, value)
    return value.strip()


# --- lists --------------------------------------------------------------------------------

_THROTTLED_REPLICAS = frozenset(
    {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)
_REPLICA_RE = re.compile(r"(\d{1,10}):(\d{1,10})")  # int32 partition and broker ids


def _normalise_list(defn: ConfigDef, value: object) -> str:
    items = _list_items(defn, value)
    if defn.name in _THROTTLED_REPLICAS:
        return _throttled_replicas(defn, value, items)
    if defn.valid_values:
        return _enum_set(defn, value, items)
    return ",".join(item.strip() for item in items)


def _list_items(defn: ConfigDef, value: object) -> list[str]:
    """The items of a YAML list or of Kafka's comma-separated string, each stripped.

    An empty string is the empty list, as in Kafka's ConfigDef.parseType.
    """
    raw: Iterable[object]
    if isinstance(value, str):
        raw = [value]
    elif isinstance(value, list | tuple):
        raw = value
    else:
        raise _invalid(defn, value)
    items: list[str] = []
    for item in raw:
        if isinstance(item, bool) or not isinstance(item, str):
            raise _invalid(defn, value, _non_string_item_reason(defn, item))
        if item.strip():
            items.extend(part.strip() for part in item.split(","))
        elif not isinstance(value, str):
            items.append("")  # an empty element of a YAML list: reported by the caller
    return items


def _non_string_item_reason(defn: ConfigDef, item: object) -> str:
    if defn.name in _THROTTLED_REPLICAS and isinstance(item, int) and not isinstance(item, bool):
        # YAML 1.1 reads an unquoted 1:2 as the base-60 number 62.
        return f"item {item!r} is a number: quote partition:broker pairs, like '1:2'"
    return f"item {_shown(item)} is not a string"


def _enum_set(defn: ConfigDef, value: object, items: list[str]) -> str:
    """Members of a fixed set where Kafka ignores order and repeats: sorted, de-duplicated.

    cleanup.policy is read as "contains compact" / "contains delete", so "delete,compact" and
    "compact,delete,compact" are both "compact,delete". The empty list is kept: Kafka 4.1 accepts
    it (neither policy runs; nothing is deleted or compacted).
    """
    order = {v.lower(): index for index, v in enumerate(defn.valid_values)}
    chosen: set[int] = set()
    for item in items:
        index = order.get(item.lower())
        if index is None:
            raise _invalid(defn, value, f"unknown item {item!r}")
        chosen.add(index)
    return ",".join(defn.valid_values[index] for index in sorted(chosen))


def _throttled_replicas(defn: ConfigDef, value: object, items: list[str]) -> str:
    """ "*" alone, or partition:broker pairs sorted and de-duplicated (Kafka uses them as a set)."""
    if items == ["*"]:
        return "*"
    pairs: set[tuple[int, int]] = set()
    for item in items:
        if not item:
            continue  # Kafka's validator lets empty items through and ignores them
        match = _REPLICA_RE.fullmatch(item)
        if match is None:
            reason = "'*' cannot be combined with pairs" if item == "*" else None
            raise _invalid(defn, value, reason or f"{_shown(item)} is not a partition:broker pair")
        partition, broker = int(match.group(1)), int(match.group(2))
        if max(partition, broker) > INT_MAX:
            raise _invalid(defn, value, f"{item} is out of range: ids are Java ints")
        pairs.add((partition, broker))
    return ",".join(f"{partition}:{broker}" for partition, broker in sorted(pairs))
