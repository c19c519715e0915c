"""load_snapshot reads topics one at a time (snapshot._scan) and must read what json.loads does.

The reference is the whole-document path: `json.loads`, the jsonschema package's check of the
whole document against schemas/snapshot.schema.json, then `from_json`. For valid snapshots in
any key order and spacing, the states are equal; for damaged texts (truncated, spliced, not
JSON at all, topics that are not objects), both refuse, with the same kind of message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.cluster.snapshot import from_json, load_snapshot
from reconciler.errors import ConfigError
from tests.property_examples import examples

SCHEMA = jsonschema.Draft202012Validator(
    json.loads(
        (Path(__file__).resolve().parents[2] / "schemas" / "snapshot.schema.json").read_text()
    )
)

_TOPIC = {
    "name": "orders",
    "topic_id": "abc",
    "internal": False,
    "partitions": [{"partition": 0, "leader": 1, "replicas": [1, 2], "isr": [1, 2]}],
    "configs": {
        "retention.ms": ["86400000", "DYNAMIC_TOPIC_CONFIG"],
        "x": [None, "DEFAULT_CONFIG", True],
    },
}
_DOCUMENT: dict[str, Any] = {
    "format_version": 1,
    "cluster": "prod",
    "taken_at": "2026-11-25T00:00:00+00:00",
    "cluster_id": "id",
    "controller_id": 1,
    "brokers": [{"id": 1, "host": "h", "port": 1, "rack": "a"}],
    "broker_defaults": {"num.partitions": "1"},
    "topics": [_TOPIC, {**_TOPIC, "name": "payments", "configs": {}}],
    "reassignments": [],
}


def _reference(text: str) -> tuple[str, object]:
    """What the whole-document reading gives: ("ok", result) or ("error", kind of message)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return "error", "not valid JSON"
    try:
        if not isinstance(document, dict):
            raise TypeError("not a JSON object")
        if not SCHEMA.is_valid(document):
            raise ValueError("not what the schema describes")
        return "ok", from_json(document)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return "error", "not a reconciler snapshot"


def _scanned(tmp: Path, text: str) -> tuple[str, object]:
    path = tmp / "state.json"
    path.write_text(text, encoding="utf-8")
    try:
        return "ok", load_snapshot(path)
    except ConfigError as exc:
        kind = "not valid JSON" if "not valid JSON" in str(exc) else "not a reconciler snapshot"
        return "error", kind


_SPACING = st.sampled_from([None, 0, 1, 2, "\t"])
_SEPARATORS = st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\r\n ")])


@settings(max_examples=examples(150), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    order=st.permutations(sorted(_DOCUMENT)),
    indent=_SPACING,
    separators=_SEPARATORS,
    cut=st.integers(min_value=0, max_value=2000),
    damage=st.sampled_from(["none", "truncate", "splice", "topic", "topics", "trailing"]),
)
def test_reads_as_json_loads_does(
    tmp_path: Path,
    order: list[str],
    indent: int | str | None,
    separators: tuple[str, str],
    cut: int,
    damage: str,
) -> None:
    document = {key: _DOCUMENT[key] for key in order}
    if damage == "topic":
        document["topics"] = [_TOPIC, ["not", "an", "object"]]
    elif damage == "topics":
        document["topics"] = {"not": "a list"}
    text = json.dumps(document, indent=indent, separators=separators)
    if damage == "truncate":
        text = text[: cut % max(1, len(text))]
    elif damage == "splice":
        at = cut % max(1, len(text))
        text = text[:at] + "}," + text[at:]
    elif damage == "trailing":
        text += " {}"
    assert _scanned(tmp_path, text) == _reference(text)


_ODD = [
    "", "   ", "[]", "null", "{}", '{"topics": []}', '{"a": 1,}', '{"a" 1}', "\ufeff{}",
    '{"format_version": 1, "topics": [1]}',
    '{"format_version": 1, "topics": [{"name": "a", "configs": []}]}',
    '{"format_version": 1, "topics": [], "topics": 3}',
]  # fmt: skip


@pytest.mark.parametrize("text", _ODD)
def test_odd_texts_are_refused_alike(tmp_path: Path, text: str) -> None:
    assert _scanned(tmp_path, text) == _reference(text)
