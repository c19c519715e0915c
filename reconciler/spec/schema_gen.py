"""schemas/topics.schema.json, generated: the topic fields, and every topic config key from the
catalog (catalog.py, the one source of truth) with its type, range or values, unit forms and
description, so an editor completes and checks configs offline as `validate` would.

    python -m reconciler.spec.schema_gen > schemas/topics.schema.json && make schemas

(`make topics-schema` does both; tests/spec/test_schema_gen.py fails when the committed file
differs from what this prints.)

The string patterns mirror units.py and catalog.py as closely as a regular expression can,
erring on the side of accepting: a whole-number check or a bound on a string spelling (`0.5ms`,
`"-2"` for retention.ms) is left to `validate`, but nothing `validate` accepts is refused here.
Patterns use only syntax that ECMA-262 (editors, check-jsonschema) and Python's `re` (the
jsonschema library) read alike. `structural` gives `validate`'s own schema pass (schema.py) the
same schema with the checks Kafka's rules own reduced to JSON types, so each problem is reported
once, with the rule's code and sentence.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from reconciler.spec import catalog, vendors
from reconciler.spec.access_schema import access_field, acls_field
from reconciler.spec.catalog import ConfigDef, ConfigType
from reconciler.spec.kafka_rules import MAX_PARTITIONS, MAX_REPLICATION_FACTOR
from reconciler.spec.model import HAZARD_CODES
from reconciler.spec.units import BYTES_PER_UNIT, MS_PER_UNIT, format_duration_ms, format_size_bytes

Schema = dict[str, Any]

SCHEMA_ID = "https://reconciler.dev/schemas/topics.schema.json"

# --- patterns: units.py's readers as regular expressions ------------------------------------

_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"  # units._NUMBER: the number before a unit
# units.parse_integer / parse_decimal: plain, decimal or scientific, blanks around.
DECIMAL = r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$"
BOOLEAN = r"^\s*(?:[tT][rR][uU][eE]|[fF][aA][lL][sS][eE])\s*$"
_PAIR = r"\d+:\d+"  # catalog._REPLICA_RE: partition:broker
THROTTLED_STAR = r"^\s*\*\s*$"
THROTTLED_PAIRS = rf"^\s*(?:{_PAIR})?\s*(?:,\s*(?:{_PAIR})?\s*)*$"  # empty items are ignored


def _any_case(word: str) -> str:
    """`word` in any letter case, without a flag (JSON Schema patterns have none)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def _duration() -> str:
    """units.parse_duration_ms: parts largest first, each unit once (1h30m, 7d, 500ms)."""
    parts = "".join(rf"(?:{_NUMBER}\s*{_any_case(unit)}\s*)?" for unit in MS_PER_UNIT)
    return rf"^(?=\s*\.?\d)\s*{parts}$"  # at least one part: a number comes first


def _size() -> str:
    """units.parse_size_bytes: one number and one unit of BYTES_PER_UNIT (512MiB, 1GB, 10B)."""
    units = "|".join(_any_case(unit) for unit in sorted(BYTES_PER_UNIT, key=len, reverse=True))
    return rf"^\s*{_NUMBER}\s*(?:{units})\s*$"


def _one_of_words(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(_any_case(word) for word in words) + ")"


# --- one config key ---------------------------------------------------------------------------


def _vendor_value(vendor: vendors.VendorPrefix) -> Schema:
    return {
        "type": ["string", "integer", "number", "boolean", "array"],
        "items": {"type": ["string", "integer", "number", "boolean"]},
        "description": (
            f"A topic config of {vendor.vendor}, not of Apache Kafka: `reconciler plan` asks "
            "the cluster whether it has the key (validate warns, R106). The value is sent as "
            f"written. {vendor.source}"
        ),
    }


def config_value(defn: ConfigDef) -> Schema:
    """The schema of one topic config value: what catalog.normalise accepts for `defn`."""
    choices: list[Schema]
    match defn.type:
        case ConfigType.INT | ConfigType.LONG:
            choices = _integer_choices(defn)
        case ConfigType.BOOLEAN:
            choices = [{"type": "boolean"}, {"type": "string", "pattern": BOOLEAN}]
        case ConfigType.DOUBLE:
            number: Schema = {"type": "number"}
            if defn.min is not None:
                number["minimum"] = defn.min
            if defn.max is not None:
                number["maximum"] = defn.max
            choices = [number, {"type": "string", "pattern": DECIMAL}]
        case ConfigType.STRING if defn.valid_values:
            anyhow = rf"^\s*{_one_of_words(defn.valid_values)}\s*$"
            choices = [{"enum": list(defn.valid_values)}, {"type": "string", "pattern": anyhow}]
        case ConfigType.LIST if defn.name in _THROTTLED:
            choices = [
                {"type": "string", "pattern": f"{THROTTLED_STAR}|{THROTTLED_PAIRS}"},
                {"type": "array", "items": {"type": "string", "pattern": THROTTLED_PAIRS}},
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": THROTTLED_STAR},
                    "minItems": 1,
                    "maxItems": 1,
                },
            ]
        case ConfigType.LIST if defn.valid_values:
            word = _one_of_words(defn.valid_values)
            items = rf"^\s*{word}\s*(?:,\s*{word}\s*)*$"
            choices = [
                {"type": "string", "pattern": rf"^\s*$|{items}"},
                {"type": "array", "items": {"type": "string", "pattern": items}},
            ]
        case _:
            choices = [{"type": "string"}]
    return {"description": _description(defn), "anyOf": choices}


_THROTTLED = frozenset(
    {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}
)


def _integer_choices(defn: ConfigDef) -> list[Schema]:
    java_min, java_max = (
        (catalog.INT_MIN, catalog.INT_MAX)
        if defn.type is ConfigType.INT
        else (catalog.LONG_MIN, catalog.LONG_MAX)
    )
    low = java_min if defn.min is None else int(defn.min)
    high = java_max if defn.max is None else int(defn.max)
    choices: list[Schema] = [{"type": "integer", "minimum": low, "maximum": high}]
    sentinels = [value for value, _ in defn.special_values if not low <= value <= high]
    if sentinels:
        choices.append({"enum": sentinels})
    spellings = [DECIMAL]
    if defn.unit == "ms":
        spellings.append(_duration())
    elif defn.unit == "bytes":
        spellings.append(_size())
    choices.append({"type": "string", "pattern": "|".join(spellings)})
    return choices


def _description(defn: ConfigDef) -> str:
    default = defn.default
    if default is None or default == "":
        shown = "empty"
    elif default == str(catalog.LONG_MAX):
        shown = f"{default} (never)"
    elif defn.unit == "ms" and format_duration_ms(int(default)) != default:
        shown = f"{default} ({format_duration_ms(int(default))})"
    elif defn.unit == "bytes" and format_size_bytes(int(default)) != default:
        shown = f"{default} ({format_size_bytes(int(default))})"
    else:
        shown = default
    broker = (
        f"; without an override, the broker's {defn.server_default}" if defn.server_default else ""
    )
    return (
        f"{defn.doc} Takes {catalog.accepted(defn)}. Kafka's default: {shown}{broker}. "
        "`reconciler help configs`"
    )


# --- the file -------------------------------------------------------------------------------


def config_map() -> Schema:
    """`config:` of a topic or of the defaults: every key of the catalog, and any key under a
    Kafka-compatible service's prefix (vendors.py), which the cluster judges at plan time."""
    return {
        "description": _CONFIG_DESCRIPTION,
        "type": "object",
        "additionalProperties": False,
        "properties": {name: config_value(defn) for name, defn in sorted(catalog.CATALOG.items())},
        "patternProperties": {
            "^" + re.escape(v.prefix): _vendor_value(v) for v in vendors.VENDOR_PREFIXES
        },
        "examples": [{"retention.ms": "7d", "min.insync.replicas": 2, "cleanup.policy": "delete"}],
    }


_CONFIG_DESCRIPTION = (
    "Topic-level config overrides by Kafka key (retention.ms, cleanup.policy, "
    "min.insync.replicas, ...). Overrides on the cluster that are not listed here are removed by "
    "apply. Merged key by key with the file's defaults. Keys and values are Kafka "
    f"{catalog.KAFKA_VERSION}'s topic configs (`reconciler help configs`); human units are "
    "accepted for durations and sizes (7d, 36h, 512MiB, 1GB)."
)

_PARTITIONS = (
    "Number of partitions (1 or more). Omitted: the broker's num.partitions at creation "
    "(KIP-464). Can only grow; growing a keyed topic remaps keys."
)
_REPLICATION_FACTOR = (
    "Replicas per partition (1 or more, at most the number of brokers). Omitted: the broker's "
    "default.replication.factor at creation (KIP-464). A change is planned as a reassignment."
)


def _topic_fields() -> dict[str, Schema]:
    """Every field of a topic, in the order `reconciler help spec` lists them."""
    names = {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True}
    return {
        "name": {
            "description": "The Kafka topic name: ASCII letters, digits, '.', '_' and '-', at "
            "most 249 characters, not '.' or '..'. Names differing only by '.' versus '_' "
            "collide.",
            "type": "string",
            "minLength": 1,
            "examples": ["payments.orders.v1"],
        },
        "partitions": {"description": _PARTITIONS, "$ref": "#/$defs/partitions"},
        "replication_factor": {
            "description": _REPLICATION_FACTOR,
            "$ref": "#/$defs/replicationFactor",
        },
        "keyed": {
            "description": "True when producers partition by key: a partition increase then "
            "remaps keys, a hazard the reviewed change must acknowledge (key_reorder).",
            "type": "boolean",
            "default": False,
        },
        "config": {"description": _CONFIG_DESCRIPTION, "$ref": "#/$defs/config"},
        "assignments": {
            "description": "Manual replica assignment: one list of broker ids per partition, the "
            "first id the preferred leader (KIP-4 / KIP-195). Every list has the replication "
            "factor's length and distinct ids.",
            "type": "array",
            "items": {
                "description": "The broker ids holding one partition's replicas, preferred "
                "leader first.",
                "type": "array",
                "items": {"type": "integer"},
            },
            "examples": [[[1, 2, 3], [2, 3, 1], [3, 1, 2]]],
        },
        "depends_on": {
            "description": "Topics (declared in this repository) that must exist before this "
            "one: created first, deleted after it. No cycles.",
            **names,
            "examples": [["payments.orders.dlq.v1"]],
        },
        "protect": {
            "description": "True: never deleted, whatever flags are given. Contradicts state: "
            "absent.",
            "type": "boolean",
            "default": False,
        },
        "state": {
            "description": "present (default) keeps the topic; absent is a tombstone: the "
            "reviewed way to delete it (the cluster policy must allow deletes).",
            "enum": ["present", "absent"],
            "default": "present",
        },
        "owner": {
            "description": "The team that owns the topic.",
            "type": "string",
            "minLength": 1,
            "examples": ["payments"],
        },
        "clusters": {
            "description": "The clusters (names from reconciler.yaml) this topic exists on. "
            "Omitted: every cluster.",
            **names,
            "minItems": 1,
            "examples": [["local", "prod"]],
        },
        "description": {
            "description": "Free text for people: what the topic carries and who reads it.",
            "type": "string",
        },
        "access": access_field(),
        "acknowledge": {
            "description": "Approvals of this reviewed change, each naming the one transition "
            "it approves: write the plan's `approve_with` for the hazard, e.g. {delete: "
            "TOPIC_ID} (the topic's id; its name on brokers without topic ids) or "
            "{retention_decrease: {key: retention.ms, from: 2592000000, to: 86400000, "
            "topic_id: TOPIC_ID}} (the values in effect before and after, Kafka's form). Apply "
            "refuses a hazard no item approves. The old forms, a bare code (key_reorder) or one "
            "value ({retention_decrease: 86400000}), approve nothing: a warning gives the item "
            "to write. Per topic only: under `defaults:` it is an error.",
            "type": "array",
            "items": {
                "anyOf": [
                    {"enum": list(HAZARD_CODES)},
                    {
                        "type": "object",
                        "minProperties": 1,
                        "maxProperties": 1,
                        "propertyNames": {"enum": list(HAZARD_CODES)},
                        "additionalProperties": {
                            "anyOf": [
                                {"type": ["string", "integer"], "minLength": 1},
                                {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "description": "The transition approved, as the "
                                    "plan's approve_with gives it.",
                                    "required": ["from", "to"],
                                    "properties": {
                                        "key": {
                                            "description": "The config key (config kinds).",
                                            "type": "string",
                                            "minLength": 1,
                                        },
                                        "from": {
                                            "description": "The value in effect before.",
                                            "type": ["string", "integer", "boolean"],
                                        },
                                        "to": {
                                            "description": "The value in effect after.",
                                            "type": ["string", "integer", "boolean"],
                                        },
                                        "topic_id": {
                                            "description": "The topic's id (brokers with "
                                            "topic ids, Kafka 2.8+).",
                                            "type": "string",
                                            "minLength": 1,
                                        },
                                    },
                                },
                            ]
                        },
                    },
                ]
            },
            "uniqueItems": True,
            "examples": [
                [
                    {"delete": "v1V7R7bWT2qmY_3bnV6VPA"},
                    {
                        "retention_decrease": {
                            "key": "retention.ms",
                            "from": 2592000000,
                            "to": 86400000,
                            "topic_id": "v1V7R7bWT2qmY_3bnV6VPA",
                        }
                    },
                ]
            ],
        },
    }


# What `defaults:` cannot set: a name is per topic, and so are its state and its placement.
_NOT_IN_DEFAULTS = ("name", "state", "assignments")


def topics_schema() -> Schema:
    """The whole topics.schema.json, as the editor (and check-jsonschema) reads it."""
    fields = _topic_fields()
    defaults = {k: v for k, v in fields.items() if k not in _NOT_IN_DEFAULTS}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "reconciler topic file",
        "description": "A topic file of a reconciler spec repository (topics/**/*.yaml, or "
        "*.yaml.j2 after Jinja2 rendering): the topics a team declares, with optional file-wide "
        "defaults. `reconciler help spec` describes every field; this file is generated by "
        "reconciler/spec/schema_gen.py.",
        "type": "object",
        "additionalProperties": False,
        "required": ["topics"],
        "properties": {
            "defaults": {
                "description": "Values merged into every topic of this file; a topic's own "
                "values win, and config maps merge key by key.",
                "type": "object",
                "additionalProperties": False,
                "properties": defaults,
                "examples": [
                    {
                        "owner": "payments",
                        "replication_factor": 3,
                        "config": {"min.insync.replicas": 2},
                    }
                ],
            },
            "topics": {
                "description": "The topics declared by this file.",
                "type": "array",
                "items": {"$ref": "#/$defs/topic"},
            },
            "acls": acls_field(),
        },
        "$defs": {
            "topic": {
                "description": "One Kafka topic: its name and the settings the reconciler keeps "
                "it at.",
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": fields,
                "examples": [
                    {
                        "name": "payments.orders.v1",
                        "partitions": 12,
                        "replication_factor": 3,
                        "keyed": True,
                        "config": {"retention.ms": "7d"},
                    }
                ],
            },
            "partitions": {
                "description": _PARTITIONS,
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_PARTITIONS,
                "examples": [6, 12],
            },
            "replicationFactor": {
                "description": _REPLICATION_FACTOR,
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_REPLICATION_FACTOR,
                "examples": [3],
            },
            "config": config_map(),
        },
        "examples": [
            {
                "defaults": {"owner": "payments", "replication_factor": 3},
                "topics": [
                    {
                        "name": "payments.orders.v1",
                        "partitions": 12,
                        "keyed": True,
                        "config": {"retention.ms": "7d", "min.insync.replicas": 2},
                        "depends_on": ["payments.orders.dlq.v1"],
                        "protect": True,
                    },
                    {"name": "payments.orders.dlq.v1", "partitions": 3},
                    {
                        "name": "payments.legacy",
                        "state": "absent",
                        "acknowledge": [{"delete": "v1V7R7bWT2qmY_3bnV6VPA"}],
                    },
                ],
            }
        ],
    }


def structural(schema: Schema) -> Schema:
    """`schema` as validate's own JSON Schema pass applies it: config keys and values (the
    catalog's R1xx) and the bounds of partitions and replication_factor (R301, R302) reduced to
    their JSON types, because those rules report the same problems with their own codes and a
    sentence saying what Kafka accepts."""
    reduced = copy.deepcopy(schema)
    defs = reduced["$defs"]
    for name in ("partitions", "replicationFactor"):
        defs[name] = {k: v for k, v in defs[name].items() if k not in ("minimum", "maximum")}
    scalar = ["string", "integer", "number", "boolean"]
    defs["config"] = {
        "description": _CONFIG_DESCRIPTION,
        "type": "object",
        "propertyNames": {"minLength": 1},
        "additionalProperties": {"type": [*scalar, "array"], "items": {"type": scalar}},
    }
    return reduced


def render() -> str:
    """The file's text: what `python -m reconciler.spec.schema_gen` prints."""
    return json.dumps(topics_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")
