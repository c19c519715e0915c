"""JSON Schema (2020-12) validation of parsed spec files, every error with its file:line:col.

The schemas (the repository's top-level schemas/, shipped inside the package and read through
reconciler.resources) are the contract editors use (the example files name them in a
`yaml-language-server` comment, and `reconciler init` copies them into a new spec repository),
so the same files check here: all errors are collected (`iter_errors`), not the first, and each
JSON path is mapped back to the place in the YAML source. The schemas check structure (fields,
types, closed sets); Kafka's rules, which need sentences and codes of their own, are in
kafka_rules.py, cross_file.py and configs.py, so the topics schema's copies of them (there for
editors: config keys and values, partition and replication-factor bounds) are reduced to JSON
types here (schema_gen.structural).

Two validators, one verdict: jsonschema-rs (compiled, about 300 times faster) says whether a
document is valid; only a document it rejects, or cannot take (an integer beyond 64 bits, a
NaN), goes through the jsonschema package, whose errors carry the paths the diagnostics need.
tests/spec/test_schema_fast.py holds the two to the same verdict on generated documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from reconciler.diagnostics import Diagnostic, did_you_mean
from reconciler.resources import schema_text
from reconciler.spec import r_codes, schema_gen
from reconciler.spec.yaml_reader import JsonPath, YamlDocument
from reconciler.spec.yaml_scalars import MAX_INTEGER_DIGITS, OversizedInteger

TOPICS_SCHEMA = "topics.schema.json"
REPO_SCHEMA = "reconciler.schema.json"

_JSON_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


@cache
def load_schema(name: str) -> dict[str, Any]:
    """A packaged schema by file name, parsed once."""
    schema: dict[str, Any] = json.loads(schema_text(name))
    return schema


if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


@cache
def _checked_schema(name: str) -> dict[str, Any]:
    """The schema a file is held to: for topic files, its structural part."""
    schema = load_schema(name)
    if name == TOPICS_SCHEMA:
        # Config keys and values and the counts' bounds are Kafka's rules, reported with their
        # own codes and sentences (configs.py, kafka_rules.py): checked once, not twice.
        schema = schema_gen.structural(schema)
    return schema


@cache
def _validator(name: str) -> Any:
    """The jsonschema package's validator: every error, with its path (imported only when a
    document needs it: the import alone costs more than validating 10,000 valid topics)."""
    from jsonschema import Draft202012Validator, validators

    Draft202012Validator.check_schema(load_schema(name))
    extended = validators.extend(Draft202012Validator, {"pattern": _pattern})  # type: ignore[no-untyped-call]
    return extended(_checked_schema(name))


@cache
def fast_check(name: str) -> Callable[[object], bool] | None:
    """jsonschema-rs's verdict on the same schema, or None when that package is missing.

    Its `pattern` is ECMA-262's, whose `$` is the end of the text, as _regex makes Python's."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a declared dependency; the slow path still works
        return None
    return jsonschema_rs.validator_for(_checked_schema(name)).is_valid


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    """A schema `pattern` with JSON Schema's (ECMA-262's) `$`: the end of the text. Python's `$`
    also matches before a final newline, which let `"prod\\n"` pass as a cluster name."""
    return re.compile(re.sub(r"(?<!\\)\$(?=$|[|)])", r"\\Z", pattern))


def _pattern(
    validator: Any, pattern: str, instance: object, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and _regex(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def validate(doc: YamlDocument, schema_name: str) -> list[Diagnostic]:
    """Every schema error of `doc`, as diagnostics at the offending key or value."""
    fast = fast_check(schema_name)
    if fast is not None:
        try:
            if fast(doc.data):
                return []
        except (ValueError, TypeError, OverflowError):
            pass  # a value Rust cannot hold: the full check below decides
    found: list[Diagnostic] = []
    for error in _validator(schema_name).iter_errors(doc.data):
        if isinstance(error.instance, OversizedInteger):
            continue  # the reader reported it (R016); "not an integer" would be wrong
        found.extend(_diagnostics(error, doc))
    return found


def _diagnostics(error: ValidationError, doc: YamlDocument) -> Iterable[Diagnostic]:
    path: JsonPath = tuple(error.absolute_path)
    topic = _topic_name(doc.data, path)
    subject = _subject(doc.data, path)
    keyword = error.validator
    if keyword == "additionalProperties" and isinstance(error.instance, dict):
        own = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = sorted(own.get("properties", {}))
        for key in sorted(k for k in error.instance if k not in allowed):
            yield r_codes.SCHEMA_UNKNOWN_FIELD(
                f"unknown field '{key}' in {subject}{did_you_mean(key, allowed)}; allowed: "
                f"{', '.join(allowed)}",
                doc.key_at((*path, key)),
                topic,
            )
        return
    if keyword == "required" and isinstance(error.instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        for key in (k for k in required if k not in error.instance):
            yield r_codes.SCHEMA_REQUIRED(
                f"{subject} has no '{key}': it is required", doc.value_at(path), topic
            )
        return
    if "propertyNames" in error.relative_schema_path and isinstance(error.instance, str):
        # jsonschema reports a bad key at its mapping: point at the key itself instead.
        yield _bad_key(error, path, subject, doc, topic)
        return
    at = doc.key_at(path) if error.instance is None else doc.value_at(path)
    if keyword == "uniqueItems" and isinstance(error.instance, list):
        index = _repeated(error.instance)  # point at the repeat, not at the list
        yield r_codes.SCHEMA_CONSTRAINT(
            f"{subject} lists {_shown(error.instance[index])} more than once; list each once",
            doc.value_at((*path, index)),
            topic,
        )
        return
    if keyword == "type":
        yield r_codes.SCHEMA_TYPE(_type_message(subject, error), at, topic)
    elif keyword in ("enum", "const"):
        limit = error.validator_value
        options = limit if keyword == "enum" and isinstance(limit, list) else [limit]
        shown = ", ".join(str(o) for o in options)
        yield r_codes.SCHEMA_ENUM(
            f"{subject} must be one of: {shown}; got {_shown(error.instance)}", at, topic
        )
    else:
        yield r_codes.SCHEMA_CONSTRAINT(f"{subject}: {_constraint(error)}", at, topic)


def _repeated(items: list[Any]) -> int:
    """The index of the first item equal to an earlier one (as JSON Schema compares them)."""
    seen: list[str] = []
    for index, item in enumerate(items):
        key = json.dumps(item, sort_keys=True, default=str)
        if key in seen:
            return index
        seen.append(key)
    return 0


def _bad_key(
    error: ValidationError, path: JsonPath, subject: str, doc: YamlDocument, topic: str | None
) -> Diagnostic:
    key = str(error.instance)
    at = doc.key_at((*path, key))
    if path == ("clusters",):
        return r_codes.SCHEMA_CONSTRAINT(
            f"cluster name {_shown(key)} is not allowed: a name is letters, digits, '.', '_' and "
            "'-', starting with a letter or digit (no spaces or control characters); rename it",
            at,
        )
    if error.validator == "minLength":
        return r_codes.SCHEMA_CONSTRAINT(f"{subject}: a key must not be empty", at, topic)
    return r_codes.SCHEMA_CONSTRAINT(f"{subject}: key {_constraint(error)}", at, topic)


def _type_message(subject: str, error: ValidationError) -> str:
    expected = error.validator_value
    names: list[str] = [expected] if isinstance(expected, str) else []
    if isinstance(expected, list):
        names = [str(n) for n in expected]
    words = [_JSON_TYPES.get(n, n) for n in names]
    wanted = words[-1] if len(words) < 2 else f"{', '.join(words[:-1])} or {words[-1]}"
    value = error.instance
    if value is None:
        return f"{subject} has no value; it must be {wanted}: give one or remove the key"
    quoted = isinstance(value, str) and (
        ("integer" in names and _digits(value) <= MAX_INTEGER_DIGITS)
        or ("boolean" in names and value.lower() in ("true", "false"))
    )
    hint = ": remove the quotes" if quoted else ""
    return f"{subject} must be {wanted}; got {_shown(value)} ({_kind(value)}){hint}"


def _digits(text: str) -> int:
    """How many digits a quoted integer has; a large number when the text is not one."""
    digits = text.strip().removeprefix("-")
    return len(digits) if digits.isascii() and digits.isdigit() else MAX_INTEGER_DIGITS + 1


def _constraint(error: ValidationError) -> str:
    keyword, limit, value = error.validator, error.validator_value, error.instance
    match keyword:
        case "minimum":
            return f"must be at least {limit}; got {_shown(value)}"
        case "maximum":
            return f"must be at most {limit}; got {_shown(value)}"
        case "minItems":
            return f"needs at least {limit} item(s); it is empty"
        case "minLength":
            return "must not be empty"
        case "minProperties":
            return f"needs at least {limit} entry"
        case "uniqueItems":
            return "lists an item more than once; list each once"
        case "pattern":
            return f"{_shown(value)} does not match {limit}"
        case _:
            return str(error.message)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, dict | list):
        text = json.dumps(value, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return str(value)


def _topic_name(data: object, path: JsonPath) -> str | None:
    """The name of the topic a path lies in (topics[i] of a topic file), if it has one."""
    if len(path) >= 2 and path[0] == "topics" and isinstance(path[1], int):
        topics = data.get("topics") if isinstance(data, dict) else None
        if isinstance(topics, list) and path[1] < len(topics):
            entry = topics[path[1]]
            name = entry.get("name") if isinstance(entry, dict) else None
            return name if isinstance(name, str) and name else None
    return None


def _subject(data: object, path: JsonPath) -> str:
    """What a path names, in words: "partitions of topic 'a.b'", "clusters.local.limits"."""
    topic = _topic_name(data, path)
    if topic is not None:
        rest = _dotted(path[2:])
        return f"topic '{topic}'" if not rest else f"{rest} of topic '{topic}'"
    if len(path) >= 2 and path[0] == "topics" and isinstance(path[1], int):
        rest = _dotted(path[2:])
        where = f"topic #{path[1] + 1}"
        return where if not rest else f"{rest} of {where}"
    return _dotted(path) or "the file"


def _dotted(path: JsonPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text
