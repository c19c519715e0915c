"""The topic config catalog: Kafka 4.1's keys, canonical forms, and messages for bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.errors import InvalidConfigValue, ReconcilerError
from reconciler.spec.catalog import (
    CATALOG,
    KAFKA_VERSION,
    REMOVED_CONFIGS,
    ConfigDef,
    ConfigType,
    accepted,
    java_double_str,
    lookup,
    normalise,
    removed_reason,
    suggest,
    unknown_key_message,
)
from reconciler.spec.units import BYTES_PER_UNIT, MS_PER_UNIT
from tests.property_examples import examples

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configs.md"

# LogConfig.nonInternalConfigNames() of Kafka 4.1.1, as printed by the released jar.
KAFKA_4_1_TOPIC_CONFIGS = {
    "cleanup.policy",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.type",
    "compression.zstd.level",
    "delete.retention.ms",
    "file.delete.delay.ms",
    "flush.messages",
    "flush.ms",
    "follower.replication.throttled.replicas",
    "index.interval.bytes",
    "leader.replication.throttled.replicas",
    "local.retention.bytes",
    "local.retention.ms",
    "max.compaction.lag.ms",
    "max.message.bytes",
    "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms",
    "message.timestamp.type",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "min.insync.replicas",
    "preallocate",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable",
    "remote.storage.enable",
    "retention.bytes",
    "retention.ms",
    "segment.bytes",
    "segment.index.bytes",
    "segment.jitter.ms",
    "segment.ms",
    "unclean.leader.election.enable",
}

LONG_MAX = 2**63 - 1

# (key, spec or cluster value, canonical)
GOOD: list[tuple[str, object, str]] = [
    # LONG with unit ms: plain, scientific, whole floats, durations
    ("retention.ms", 604800000, "604800000"),
    ("retention.ms", "604800000", "604800000"),
    ("retention.ms", " 604800000 ", "604800000"),
    ("retention.ms", "+1000", "1000"),
    ("retention.ms", -1, "-1"),
    ("retention.ms", "-1", "-1"),
    ("retention.ms", 0, "0"),
    ("retention.ms", "7d", "604800000"),
    ("retention.ms", "7D", "604800000"),
    ("retention.ms", "1w", "604800000"),
    ("retention.ms", "36h", "129600000"),
    ("retention.ms", "15m", "900000"),
    ("retention.ms", "30s", "30000"),
    ("retention.ms", "500ms", "500"),
    ("retention.ms", "500MS", "500"),
    ("retention.ms", "1h30m", "5400000"),
    ("retention.ms", "1.5h", "5400000"),
    ("retention.ms", "6.048E8", "604800000"),
    ("retention.ms", 6.048e8, "604800000"),
    ("retention.ms", 1000.0, "1000"),
    ("retention.ms", str(LONG_MAX), str(LONG_MAX)),
    ("segment.ms", "1d", "86400000"),
    ("segment.jitter.ms", 0, "0"),
    ("delete.retention.ms", "1d", "86400000"),
    ("file.delete.delay.ms", "1m", "60000"),
    ("flush.ms", "1s", "1000"),
    ("min.compaction.lag.ms", "1h", "3600000"),
    ("max.compaction.lag.ms", "7d", "604800000"),
    ("message.timestamp.after.max.ms", "1h", "3600000"),
    ("message.timestamp.before.max.ms", str(LONG_MAX), str(LONG_MAX)),
    ("local.retention.ms", -2, "-2"),
    ("local.retention.ms", "-1", "-1"),
    ("local.retention.ms", "2d", "172800000"),
    # LONG without unit
    ("flush.messages", 1, "1"),
    ("flush.messages", "10000", "10000"),
    ("flush.messages", "1E4", "10000"),
    # sizes: IEC powers of 1024, SI powers of 1000
    ("segment.bytes", "512MiB", "536870912"),
    ("segment.bytes", "1GiB", "1073741824"),
    ("segment.bytes", "1GB", "1000000000"),
    ("segment.bytes", "1gib", "1073741824"),
    ("segment.bytes", 1048576, "1048576"),
    ("segment.bytes", "1MiB", "1048576"),
    ("segment.bytes", "2147483647", "2147483647"),
    ("segment.index.bytes", "10MiB", "10485760"),
    ("index.interval.bytes", "4KiB", "4096"),
    ("index.interval.bytes", "1024", "1024"),
    ("max.message.bytes", "100KiB", "102400"),
    ("max.message.bytes", "1.024E8", "102400000"),
    ("max.message.bytes", 0, "0"),
    ("retention.bytes", "1TiB", "1099511627776"),
    ("retention.bytes", -1, "-1"),
    ("retention.bytes", "-1", "-1"),
    ("retention.bytes", -5, "-1"),  # Kafka treats every negative as unlimited
    ("retention.bytes", 0, "0"),
    ("local.retention.bytes", -2, "-2"),
    ("local.retention.bytes", -1, "-1"),
    ("local.retention.bytes", "10GiB", "10737418240"),
    # INT without unit
    ("min.insync.replicas", 2, "2"),
    ("min.insync.replicas", "2", "2"),
    ("min.insync.replicas", 2.0, "2"),
    ("compression.gzip.level", -1, "-1"),
    ("compression.gzip.level", 9, "9"),
    ("compression.lz4.level", "17", "17"),
    ("compression.zstd.level", -131072, "-131072"),
    ("compression.zstd.level", 22, "22"),
    # BOOLEAN
    ("preallocate", True, "true"),
    ("preallocate", False, "false"),
    ("preallocate", "TRUE", "true"),
    ("preallocate", "False", "false"),
    ("unclean.leader.election.enable", " true ", "true"),
    ("remote.storage.enable", True, "true"),
    ("remote.log.copy.disable", "false", "false"),
    ("remote.log.delete.on.disable", True, "true"),
    # DOUBLE: Java's Double.toString
    ("min.cleanable.dirty.ratio", 0.5, "0.5"),
    ("min.cleanable.dirty.ratio", "0.5", "0.5"),
    ("min.cleanable.dirty.ratio", "0.50", "0.5"),
    ("min.cleanable.dirty.ratio", "5E-1", "0.5"),
    ("min.cleanable.dirty.ratio", ".5", "0.5"),
    ("min.cleanable.dirty.ratio", 1, "1.0"),
    ("min.cleanable.dirty.ratio", "1", "1.0"),
    ("min.cleanable.dirty.ratio", 0, "0.0"),
    ("min.cleanable.dirty.ratio", -0.0, "0.0"),
    ("min.cleanable.dirty.ratio", "0.0001", "1.0E-4"),
    ("min.cleanable.dirty.ratio", "1.0E-4", "1.0E-4"),
    ("min.cleanable.dirty.ratio", "0.001", "0.001"),
    ("min.cleanable.dirty.ratio", 0.1, "0.1"),
    # STRING enums: Kafka's spelling, any case in
    ("compression.type", "zstd", "zstd"),
    ("compression.type", "ZSTD", "zstd"),
    ("compression.type", " Snappy ", "snappy"),
    ("compression.type", "uncompressed", "uncompressed"),
    ("compression.type", "producer", "producer"),
    ("message.timestamp.type", "CreateTime", "CreateTime"),
    ("message.timestamp.type", "createtime", "CreateTime"),
    ("message.timestamp.type", "LOGAPPENDTIME", "LogAppendTime"),
    # LIST cleanup.policy: a set, in a fixed order
    ("cleanup.policy", "delete", "delete"),
    ("cleanup.policy", "compact", "compact"),
    ("cleanup.policy", "compact,delete", "compact,delete"),
    ("cleanup.policy", "delete,compact", "compact,delete"),
    ("cleanup.policy", "delete, compact", "compact,delete"),
    ("cleanup.policy", ["delete", "compact"], "compact,delete"),
    ("cleanup.policy", ["Compact"], "compact"),
    ("cleanup.policy", "delete,delete", "delete"),
    ("cleanup.policy", ["compact,delete"], "compact,delete"),
    ("cleanup.policy", "", ""),  # Kafka 4.1 accepts the empty list
    ("cleanup.policy", [], ""),
    # LIST throttled replicas: '*' or a set of partition:broker pairs
    ("leader.replication.throttled.replicas", "*", "*"),
    ("leader.replication.throttled.replicas", " * ", "*"),
    ("leader.replication.throttled.replicas", ["*"], "*"),
    ("leader.replication.throttled.replicas", "", ""),
    ("leader.replication.throttled.replicas", [], ""),
    ("leader.replication.throttled.replicas", "0:1,1:2", "0:1,1:2"),
    ("leader.replication.throttled.replicas", "1:2, 0:1", "0:1,1:2"),
    ("leader.replication.throttled.replicas", ["1:2", "0:1", "1:2"], "0:1,1:2"),
    ("leader.replication.throttled.replicas", "10:1,2:1", "2:1,10:1"),
    ("follower.replication.throttled.replicas", "01:002", "1:2"),
    ("follower.replication.throttled.replicas", "0:1,,1:2", "0:1,1:2"),
]

# (key, bad value, a fragment of the message)
BAD: list[tuple[str, object, str]] = [
    # the example of the contract, verbatim
    (
        "retention.ms",
        "seven days",
        "retention.ms must be a duration in milliseconds (>= -1, where -1 means unlimited) "
        "or with a unit like 7d, 36h, 15m, 30s, 500ms; got 'seven days'",
    ),
    ("retention.ms", -2, "-2 is below the minimum -1"),
    ("retention.ms", True, "got true (a boolean)"),
    ("retention.ms", False, "got false (a boolean)"),
    ("retention.ms", "0.5ms", "not a whole number of milliseconds"),
    ("retention.ms", "30m1h", "largest first"),
    ("retention.ms", 1.5, "not a whole number"),
    ("retention.ms", float("nan"), "not a whole number"),
    ("retention.ms", str(2**63), "too large for a Java long"),
    ("retention.ms", "512MiB", "a duration in milliseconds"),
    ("retention.ms", [1], "a list, but this config takes a single value"),
    ("retention.ms", None, "got no value"),
    ("retention.ms", {"days": 7}, "got {'days': 7} (a dict)"),
    ("retention.ms", "1e999999", "out of range"),
    ("retention.ms", "-7d", "a duration in milliseconds"),
    ("segment.ms", 0, "0 is below the minimum 1"),
    ("local.retention.ms", -3, "-3 is below the minimum -2"),
    ("max.compaction.lag.ms", 0, "below the minimum 1"),
    ("flush.messages", "7d", "flush.messages must be an integer (>= 1)"),
    ("flush.messages", 0, "below the minimum 1"),
    ("segment.bytes", 1048575, "1048575 is below the minimum 1048576"),
    ("segment.bytes", "1000KiB", "below the minimum 1048576"),
    ("segment.bytes", "4GiB", "too large for a Java int, whose maximum is 2147483647 = 2GiB - 1"),
    ("segment.bytes", "2147483648", "too large for a Java int"),
    ("segment.bytes", "1M", "M is ambiguous: write MiB for powers of 1024 or MB"),
    ("segment.bytes", "1XB", "unknown size unit 'XB'"),
    ("segment.bytes", "1d", "a size in bytes (>= 1048576, i.e. 1MiB) or with a unit like"),
    ("segment.bytes", "0.5B", "a size in bytes"),
    ("segment.index.bytes", 3, "below the minimum 4"),
    ("max.message.bytes", -1, "below the minimum 0"),
    ("local.retention.bytes", -3, "below the minimum -2"),
    ("min.insync.replicas", 0, "min.insync.replicas must be an integer (>= 1); got 0"),
    ("min.insync.replicas", "two", "got 'two'"),
    ("min.insync.replicas", True, "(a boolean)"),
    ("min.insync.replicas", "1s", "an integer"),
    ("compression.gzip.level", 0, "1..9, or -1 for gzip's default level"),
    ("compression.gzip.level", 10, "10 is above the maximum 9"),
    ("compression.lz4.level", 18, "above the maximum 17"),
    ("compression.zstd.level", 23, "above the maximum 22"),
    ("compression.zstd.level", -131073, "below the minimum -131072"),
    ("preallocate", "yes", "preallocate must be true or false; got 'yes'"),
    ("preallocate", 1, "must be true or false; got 1"),
    ("preallocate", "", "must be true or false"),
    ("min.cleanable.dirty.ratio", 1.5, "must be a number from 0 to 1, like 0.5; got 1.5"),
    ("min.cleanable.dirty.ratio", -0.1, "outside 0..1"),
    ("min.cleanable.dirty.ratio", "NaN", "got 'NaN'"),
    ("min.cleanable.dirty.ratio", float("nan"), "not a finite number"),
    ("min.cleanable.dirty.ratio", "half", "a number from 0 to 1"),
    ("min.cleanable.dirty.ratio", True, "(a boolean)"),
    ("min.cleanable.dirty.ratio", 10**400, "not a finite number"),
    (
        "compression.type",
        "brotli",
        "compression.type must be one of uncompressed, zstd, lz4, snappy, gzip, producer",
    ),
    ("compression.type", "none", "got 'none'"),
    ("compression.type", 1, "got 1"),
    ("message.timestamp.type", "Create", "one of CreateTime, LogAppendTime"),
    ("cleanup.policy", "remove", "unknown item 'remove'"),
    ("cleanup.policy", "compact,", "unknown item ''"),
    ("cleanup.policy", ["compact", ""], "unknown item ''"),
    ("cleanup.policy", [True], "item true (a boolean) is not a string"),
    ("cleanup.policy", 1, "compact and/or delete, as a list or a comma-separated string"),
    ("leader.replication.throttled.replicas", "*,0:1", "'*' cannot be combined with pairs"),
    ("leader.replication.throttled.replicas", "0:1:2", "'0:1:2' is not a partition:broker pair"),
    ("leader.replication.throttled.replicas", "0-1", "is not a partition:broker pair"),
    ("leader.replication.throttled.replicas", "-1:1", "is not a partition:broker pair"),
    # YAML 1.1 reads an unquoted 1:2 as 62 (base 60)
    ("follower.replication.throttled.replicas", [62], "quote partition:broker pairs"),
]


@pytest.mark.parametrize(("key", "value", "canonical"), GOOD)
def test_normalise(key: str, value: object, canonical: str) -> None:
    assert normalise(key, value) == canonical


@pytest.mark.parametrize(("key", "value", "canonical"), GOOD)
def test_normalise_is_idempotent(key: str, value: object, canonical: str) -> None:
    # the cluster side is normalised too: a canonical value must read back as itself
    assert normalise(key, canonical) == canonical


@pytest.mark.parametrize(("key", "value", "fragment"), BAD)
def test_normalise_refuses(key: str, value: object, fragment: str) -> None:
    with pytest.raises(InvalidConfigValue) as raised:
        normalise(key, value)
    assert fragment in str(raised.value)
    assert str(raised.value).startswith(f"{key} must be ")
    assert raised.value.key == key


def test_every_message_says_what_is_accepted() -> None:
    for key, value, _ in BAD:
        with pytest.raises(InvalidConfigValue, match=r"must be .*; got ") as raised:
            normalise(key, value)
        assert accepted(CATALOG[key]) in str(raised.value)


# What DescribeConfigs returns for topics (ConfigDef.convertToString of the parsed value).
@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("retention.ms", "604800000"),
        ("retention.ms", "-1"),
        ("retention.bytes", "-1"),
        ("segment.bytes", "1073741824"),
        ("flush.messages", str(LONG_MAX)),
        ("cleanup.policy", "delete"),
        ("cleanup.policy", "compact,delete"),
        ("compression.type", "producer"),
        ("message.timestamp.type", "LogAppendTime"),
        ("min.cleanable.dirty.ratio", "0.5"),
        ("min.cleanable.dirty.ratio", "1.0"),
        ("min.cleanable.dirty.ratio", "1.0E-4"),
        ("preallocate", "false"),
        ("leader.replication.throttled.replicas", ""),
        ("leader.replication.throttled.replicas", "*"),
        ("follower.replication.throttled.replicas", "0:1,1:2"),
    ],
)
def test_kafka_raw_forms_are_already_canonical(key: str, raw: str) -> None:
    assert normalise(key, raw) == raw


@pytest.mark.parametrize(
    ("key", "desired", "current"),
    [
        ("retention.ms", "7d", "604800000"),
        ("segment.bytes", "1GiB", "1073741824"),
        ("cleanup.policy", ["delete", "compact"], "compact,delete"),
        ("compression.type", "ZSTD", "zstd"),
        ("min.cleanable.dirty.ratio", "0.50", "0.5"),
        ("preallocate", True, "true"),
        ("follower.replication.throttled.replicas", ["1:0", "0:1"], "0:1,1:0"),
    ],
)
def test_spec_and_cluster_values_compare_equal(key: str, desired: object, current: str) -> None:
    assert normalise(key, desired) == normalise(key, current)


@pytest.mark.parametrize(
    ("key", "desired", "current"),
    [
        ("retention.ms", "7d", "604800001"),
        ("segment.bytes", "1GB", "1073741824"),  # SI and IEC differ
        ("cleanup.policy", "compact", "compact,delete"),
        ("min.cleanable.dirty.ratio", "0.5", "0.51"),
        ("leader.replication.throttled.replicas", "*", "0:1"),
    ],
)
def test_different_settings_stay_different(key: str, desired: object, current: str) -> None:
    assert normalise(key, desired) != normalise(key, current)


# --- the catalog itself -------------------------------------------------------------------


def test_catalog_has_every_kafka_4_1_topic_config() -> None:
    assert set(CATALOG) == KAFKA_4_1_TOPIC_CONFIGS
    assert len(CATALOG) == 33
    assert KAFKA_VERSION == "4.1.1"


def test_catalog_is_sorted_and_read_only() -> None:
    assert list(CATALOG) == sorted(CATALOG)
    with pytest.raises(TypeError):
        CATALOG["x"] = CATALOG["retention.ms"]  # type: ignore[index]


@pytest.mark.parametrize("defn", list(CATALOG.values()), ids=list(CATALOG))
def test_definition_is_consistent(defn: ConfigDef) -> None:
    assert CATALOG[defn.name] is defn
    assert lookup(defn.name) is defn
    assert defn.doc and "\n" not in defn.doc and len(defn.doc) <= 100
    assert defn.default is not None
    # Kafka's default is itself a valid value, already in canonical form
    assert normalise(defn.name, defn.default) == defn.default
    if defn.unit is not None:
        assert defn.type in (ConfigType.INT, ConfigType.LONG)
    if defn.valid_values:
        assert defn.type in (ConfigType.STRING, ConfigType.LIST)
    for value, meaning in defn.special_values:
        assert meaning
        assert normalise(defn.name, value) == str(value)


@pytest.mark.parametrize(
    ("key", "type_", "default", "unit", "server_default"),
    [
        ("retention.ms", ConfigType.LONG, "604800000", "ms", "log.retention.ms"),
        ("retention.bytes", ConfigType.LONG, "-1", "bytes", "log.retention.bytes"),
        ("segment.bytes", ConfigType.INT, "1073741824", "bytes", "log.segment.bytes"),
        ("max.message.bytes", ConfigType.INT, "1048588", "bytes", "message.max.bytes"),
        ("min.insync.replicas", ConfigType.INT, "1", None, "min.insync.replicas"),
        ("cleanup.policy", ConfigType.LIST, "delete", None, "log.cleanup.policy"),
        ("compression.type", ConfigType.STRING, "producer", None, "compression.type"),
        (
            "min.cleanable.dirty.ratio",
            ConfigType.DOUBLE,
            "0.5",
            None,
            "log.cleaner.min.cleanable.ratio",
        ),
        ("segment.ms", ConfigType.LONG, "604800000", "ms", "log.roll.ms"),
        ("remote.storage.enable", ConfigType.BOOLEAN, "false", None, None),
        ("leader.replication.throttled.replicas", ConfigType.LIST, "", None, None),
        ("local.retention.ms", ConfigType.LONG, "-2", "ms", "log.local.retention.ms"),
    ],
)
def test_definitions_match_kafka(
    key: str, type_: ConfigType, default: str, unit: str | None, server_default: str | None
) -> None:
    defn = CATALOG[key]
    assert (defn.type, defn.default, defn.unit, defn.server_default) == (
        type_,
        default,
        unit,
        server_default,
    )


@pytest.mark.parametrize(
    ("key", "minimum", "maximum"),
    [
        ("retention.ms", -1, None),
        ("segment.bytes", 1048576, None),
        ("min.insync.replicas", 1, None),
        ("max.message.bytes", 0, None),
        ("local.retention.bytes", -2, None),
        ("retention.bytes", None, None),
        ("min.cleanable.dirty.ratio", 0, 1),
        ("compression.gzip.level", 1, 9),
    ],
)
def test_ranges_match_kafka_validators(key: str, minimum: int | None, maximum: int | None) -> None:
    assert (CATALOG[key].min, CATALOG[key].max) == (minimum, maximum)


# --- unknown, removed, did you mean -------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "replacement"),
    [
        ("message.format.version", "remove the key"),
        ("message.downconversion.enable", "remove the key"),
        (
            "message.timestamp.difference.max.ms",
            "use message.timestamp.before.max.ms and message.timestamp.after.max.ms",
        ),
    ],
)
def test_removed_configs_are_refused_with_their_replacement(key: str, replacement: str) -> None:
    assert lookup(key) is None
    assert key in REMOVED_CONFIGS
    reason = removed_reason(key)
    assert reason is not None and "removed in Kafka 4.0" in reason and replacement in reason
    with pytest.raises(InvalidConfigValue, match=r"removed in Kafka 4\.0") as raised:
        normalise(key, "anything")
    assert replacement in str(raised.value)


def test_removed_configs_are_not_in_the_catalog() -> None:
    assert not set(REMOVED_CONFIGS) & set(CATALOG)
    assert removed_reason("retention.ms") is None


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("retention.msx", "retention.ms"),
        ("cleanup.polcy", "cleanup.policy"),
        ("retention_ms", "retention.ms"),
        ("Retention.MS", "retention.ms"),
        ("segment.byte", "segment.bytes"),
        ("min.insync.replica", "min.insync.replicas"),
        ("compresion.type", "compression.type"),
        # broker properties written on a topic
        ("log.retention.ms", "retention.ms"),
        ("log.retention.hours", "retention.ms"),
        ("message.max.bytes", "max.message.bytes"),
        ("log.cleanup.policy", "cleanup.policy"),
        ("log.roll.hours", "segment.ms"),
    ],
)
def test_suggest(typo: str, meant: str) -> None:
    assert suggest(typo) == meant


@pytest.mark.parametrize("unrelated", ["banana", "x", "", "replication.factor", "partitions"])
def test_suggest_nothing_when_nothing_is_close(unrelated: str) -> None:
    assert suggest(unrelated) is None


def test_suggest_leaves_removed_configs_to_their_reason() -> None:
    assert suggest("message.timestamp.difference.max.ms") is None


def test_unknown_key_message_has_did_you_mean() -> None:
    with pytest.raises(InvalidConfigValue) as raised:
        normalise("retention.msx", "7d")
    assert (
        str(raised.value) == "unknown topic config 'retention.msx' (did you mean 'retention.ms'?)"
    )
    assert raised.value.key == "retention.msx"
    with pytest.raises(InvalidConfigValue) as raised:
        normalise("banana", 1)
    assert str(raised.value) == (
        "unknown topic config 'banana': `reconciler help configs` lists the topic configs Kafka "
        "accepts"
    )
    assert unknown_key_message("message.format.version").startswith(
        "topic config 'message.format.version' was removed in Kafka 4.0"
    )


def test_lookup_is_exact_like_kafka() -> None:
    assert lookup("retention.ms") is CATALOG["retention.ms"]
    assert lookup("Retention.ms") is None
    assert lookup("internal.segment.bytes") is None  # Kafka-internal, for tests only


def test_invalid_config_value_is_a_value_error_and_a_reconciler_error() -> None:
    with pytest.raises(ValueError):
        normalise("retention.ms", "x")
    with pytest.raises(ReconcilerError):
        normalise("retention.ms", "x")


# --- Java's Double.toString -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (0.5, "0.5"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (-0.0, "0.0"),
        (0.1, "0.1"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (0.00012, "1.2E-4"),
        (1.5e-10, "1.5E-10"),
        (123.25, "123.25"),
        (1e7, "1.0E7"),
        (12345678.9, "1.23456789E7"),
        (-2.5e-5, "-2.5E-5"),
    ],
)
def test_java_double_str(number: float, text: str) -> None:
    assert java_double_str(number) == text


# --- docs ---------------------------------------------------------------------------------


def test_docs_list_every_key_and_removed_config() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for key in [*CATALOG, *REMOVED_CONFIGS]:
        assert f"`{key}`" in text, f"docs/configs.md does not mention {key}"
    assert KAFKA_VERSION in text


# --- properties ---------------------------------------------------------------------------

_MS_KEYS = sorted(k for k, d in CATALOG.items() if d.unit == "ms" and d.min is not None)
_LONG_BYTES_KEYS = sorted(
    k for k, d in CATALOG.items() if d.unit == "bytes" and d.type is ConfigType.LONG
)
_DURATION_UNITS = list(MS_PER_UNIT)


@st.composite
def duration_spellings(draw: st.DrawFn) -> str:
    chosen = draw(st.lists(st.sampled_from(_DURATION_UNITS), min_size=1, unique=True))
    chosen.sort(key=_DURATION_UNITS.index)
    return "".join(f"{draw(st.integers(1, 100_000))}{unit}" for unit in chosen)


@settings(max_examples=examples(200))
@given(st.sampled_from(_MS_KEYS), duration_spellings())
def test_durations_normalise_idempotently(key: str, spelling: str) -> None:
    once = normalise(key, spelling)
    assert normalise(key, once) == once
    assert int(once) > 0


@settings(max_examples=examples(200))
@given(
    st.sampled_from(_LONG_BYTES_KEYS),
    st.integers(0, 1024),  # 1024PiB fits a Java long; 8192PiB does not
    st.sampled_from(list(BYTES_PER_UNIT)),
)
def test_sizes_normalise_idempotently(key: str, count: int, unit: str) -> None:
    once = normalise(key, f"{count}{unit}")
    assert once == str(count * BYTES_PER_UNIT[unit])
    assert normalise(key, once) == once


@settings(max_examples=examples(200))
@given(st.floats(0, 1, allow_nan=False))
def test_ratios_normalise_idempotently(ratio: float) -> None:
    once = normalise("min.cleanable.dirty.ratio", ratio)
    assert float(once.replace("E", "e")) == ratio
    assert normalise("min.cleanable.dirty.ratio", once) == once
    assert normalise("min.cleanable.dirty.ratio", repr(ratio)) == once
