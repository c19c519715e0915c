"""jsonschema-rs's verdict (the fast path of spec/schema.py) equals the jsonschema package's.

schema.validate trusts jsonschema-rs when it says "valid" and asks jsonschema for the errors
otherwise, so a document the fast validator passes but jsonschema rejects would lose its
diagnostics. Both validators judge generated documents here: valid topic files and repository
configs with values, keys and types swapped in at random places.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.spec import schema
from tests.property_examples import examples

# Names the schemas know, so generated documents reach deep into them, plus a few they do not.
_KEYS = [
    "topics", "defaults", "name", "partitions", "replication_factor", "config", "owner",
    "description", "keyed", "clusters", "depends_on", "state", "protect", "acknowledge",
    "retention.ms", "cleanup.policy", "bootstrap", "vars", "policy", "limits", "client",
    "name_pattern", "ignore", "min_replication_factor", "levels", "allow_delete", "topics_dir",
    "security.protocol", "sasl.password", "max_partitions", "", "x", "prod\n", "Prod", "-a",
]  # fmt: skip
_TEXTS = ["", "a", "a.b", "7d", "absent", "present", "delete", "error", "warning", "off",
          "prod", "prod\n", "x y", "\u00e9", "1", "true"]  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 3, -1, 2**31, 2**63, 1.0, 1.5, -0.0, math.inf, math.nan]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_TEXTS),
    st.text(max_size=6),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=4), inner, max_size=4),
    ),
    max_leaves=12,
)

_TOPIC: dict[str, Any] = {
    "name": "payments.orders",
    "partitions": 6,
    "replication_factor": 3,
    "config": {"retention.ms": "7d", "cleanup.policy": ["compact", "delete"]},
    "depends_on": ["payments.base"],
    "clusters": ["prod"],
    "keyed": True,
    "state": "present",
}
_TOPIC_FILE: dict[str, Any] = {
    "defaults": {"owner": "payments", "replication_factor": 3, "config": {"x": 1}},
    "topics": [_TOPIC, {"name": "payments.base"}],
}
_REPO: dict[str, Any] = {
    "clusters": {
        "prod": {
            "bootstrap": "127.0.0.1:9092",
            "vars": {"env": "prod"},
            "policy": {"name_pattern": "^[a-z.]+$", "min_replication_factor": 2},
        }
    }
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replaced(document: Any, path: tuple[Any, ...], new: Any, as_key: bool) -> Any:
    """A copy of `document` with the value at `path` replaced (or, `as_key`, its key renamed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        copy = dict(document)
        if as_key and not rest and isinstance(new, str):
            copy[new] = copy.pop(head)
            return copy
        copy[head] = _replaced(document[head], rest, new, as_key)
        return copy
    copy_list = list(document)
    copy_list[head] = _replaced(document[head], rest, new, as_key)
    return copy_list


@st.composite
def _documents(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    document: Any = base
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        as_key = bool(path) and draw(st.booleans())
        new = draw(st.sampled_from(_KEYS) if as_key else _VALUES)
        document = _replaced(document, path, new, as_key)
    return document


def _agree(name: str, document: Any) -> None:
    fast = schema.fast_check(name)
    assert fast is not None, "jsonschema-rs is a declared dependency"
    try:
        verdict = fast(document)
    except (ValueError, TypeError, OverflowError):
        return  # schema.validate then asks jsonschema alone
    full = not any(True for _ in schema._validator(name).iter_errors(document))
    if not verdict and full and _non_finite(document):
        # jsonschema-rs takes inf and nan for no number (JSON has none); schema.validate then
        # asks jsonschema, whose verdict stands: slower, never wrong (found with 5x the examples)
        return
    assert verdict == full, f"jsonschema-rs says valid={verdict}, jsonschema {full}: {document!r}"


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


@pytest.mark.parametrize(("name", "base"), [(schema.TOPICS_SCHEMA, _TOPIC_FILE),
                                            (schema.REPO_SCHEMA, _REPO)])  # fmt: skip
def test_the_bases_are_valid(name: str, base: dict[str, Any]) -> None:
    fast = schema.fast_check(name)
    assert fast is not None and fast(base)
    assert not list(schema._validator(name).iter_errors(base))


@settings(max_examples=examples(400), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(_documents(_TOPIC_FILE))
def test_topic_files_same_verdict(document: Any) -> None:
    _agree(schema.TOPICS_SCHEMA, document)


@settings(max_examples=examples(300), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(_documents(_REPO))
def test_repo_configs_same_verdict(document: Any) -> None:
    _agree(schema.REPO_SCHEMA, document)


def test_a_cluster_name_ending_in_a_newline_is_refused_by_both() -> None:
    document = {"clusters": {"prod\n": {"bootstrap": "127.0.0.1:9092"}}}
    fast = schema.fast_check(schema.REPO_SCHEMA)
    assert fast is not None and not fast(document)
    assert list(schema._validator(schema.REPO_SCHEMA).iter_errors(document))
