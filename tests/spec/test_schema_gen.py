"""schemas/topics.schema.json is generated from the catalog, and agrees with `validate`.

What an editor checks (the committed schema, through check-jsonschema: another JSON Schema
implementation and a YAML 1.2 parser) must refuse what is plainly wrong and must never refuse a
value `validate` accepts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from reconciler.errors import InvalidConfigValue
from reconciler.resources import schema_text
from reconciler.spec import catalog, schema, schema_gen
from reconciler.spec.catalog import CATALOG, normalise
from reconciler.spec.units import BYTES_PER_UNIT, MS_PER_UNIT
from reconciler.spec.yaml_reader import parse_yaml
from tests.property_examples import examples
from tests.spec.test_catalog import GOOD

PROJECT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = PROJECT / "schemas" / "topics.schema.json"
REGENERATE = (
    "make topics-schema (python -m reconciler.spec.schema_gen > schemas/topics.schema.json)"
)
VALIDATOR = Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def _check_jsonschema(*files: Path) -> subprocess.CompletedProcess[str]:
    found = Path(sys.executable).parent / "check-jsonschema"
    checker = str(found) if found.exists() else shutil.which("check-jsonschema")
    if checker is None:
        pytest.fail("check-jsonschema (a dev dependency) is not installed")
    return subprocess.run(
        [checker, "--schemafile", str(SCHEMA_FILE), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )


def _topic_file(config: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"topics": [{"name": "a.b", **fields, "config": config}]}


def _schema_accepts(key: str, value: object) -> bool:
    return VALIDATOR.is_valid(_topic_file({key: value}))


# ---------------------------------------------------------------------------- generated


def test_the_committed_schema_is_what_the_generator_prints() -> None:
    generated = schema_gen.render()
    assert SCHEMA_FILE.read_text(encoding="utf-8") == generated, (
        f"schemas/topics.schema.json is not what the catalog generates: run {REGENERATE}"
    )
    assert schema_text("topics.schema.json") == generated, "run `make schemas`"


def test_every_catalog_key_and_only_those_are_in_the_schema() -> None:
    config = json.loads(schema_gen.render())["$defs"]["config"]
    assert set(config["properties"]) == set(CATALOG)
    assert config["additionalProperties"] is False
    for key, defn in CATALOG.items():
        description = config["properties"][key]["description"]
        assert description.startswith(defn.doc) and catalog.accepted(defn) in description, key
    Draft202012Validator.check_schema(json.loads(schema_gen.render()))


def test_validate_reports_configs_and_counts_once_with_the_rules_codes() -> None:
    """validate's own schema pass leaves config keys and values and the counts' bounds to the
    rules (R1xx, R301, R302), which say what Kafka accepts; the editor's schema checks them."""
    text = "topics:\n  - name: a.b\n    partitions: -3\n    config: {cleanup.polcy: delete}\n"
    doc, found = parse_yaml(text, "t.yaml")
    assert doc is not None and found == []
    assert schema.validate(doc, schema.TOPICS_SCHEMA) == []
    assert not VALIDATOR.is_valid(doc.data)


# ---------------------------------------------------------------------------- check-jsonschema


@pytest.mark.slow  # check-jsonschema processes (0.4 CPU-s each): `make check` leaves it out
def test_check_jsonschema_refuses_what_is_plainly_wrong(tmp_path: Path) -> None:
    cases = {
        "unknown_key.yaml": "topics:\n  - name: a.b\n    config: {cleanup.polcy: delete}\n",
        "wrong_type.yaml": "topics:\n  - name: a.b\n    config: {preallocate: 3}\n",
        "negative_partitions.yaml": "topics:\n  - name: a.b\n    partitions: -3\n",
        "zero_rf_in_defaults.yaml": "defaults: {replication_factor: 0}\ntopics: []\n",
        "seven_days.yaml": "topics:\n  - name: a.b\n    config: {retention.ms: 7 days}\n",
        "bad_enum.yaml": "topics:\n  - name: a.b\n    config: {compression.type: brotli}\n",
        "bad_size_unit.yaml": "topics:\n  - name: a.b\n    config: {segment.bytes: 1M}\n",
        "below_minimum.yaml": "topics:\n  - name: a.b\n    config: {min.insync.replicas: 0}\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    # one run for all (a process start each cost a second): check-jsonschema validates every
    # file and names each one it refuses, `FILE::$.path: why`
    proc = _check_jsonschema(*(tmp_path / name for name in cases))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = [line.strip().split("::")[0] for line in proc.stdout.splitlines() if "::$" in line]
    refused = {Path(where).name for where in said}
    assert refused == set(cases), proc.stdout


@pytest.mark.slow  # check-jsonschema processes (0.4 CPU-s each): `make check` leaves it out
def test_check_jsonschema_accepts_the_examples_and_what_validate_accepts(tmp_path: Path) -> None:
    human = tmp_path / "human.yaml"
    human.write_text(
        "defaults:\n  config: {min.insync.replicas: 2, preallocate: false}\n"
        "topics:\n"
        "  - name: a.b\n"
        "    partitions: 6\n"
        "    config:\n"
        "      retention.ms: 7d\n"
        "      segment.ms: 1h30m\n"
        "      segment.bytes: 512MiB\n"
        "      retention.bytes: -1\n"
        "      max.message.bytes: 1GB\n"
        "      cleanup.policy: [compact, delete]\n"
        "      compression.type: ZSTD\n"
        "      min.cleanable.dirty.ratio: 0.5\n"
        "      unclean.leader.election.enable: true\n"
        "      compression.gzip.level: -1\n"
        "      leader.replication.throttled.replicas: [1:2, '0:1']\n"
    )
    # Every accepted spelling of the catalog's tests, one topic each, written as JSON (which
    # YAML 1.2 reads as the same values).
    table = tmp_path / "catalog_values.yaml"
    topics = [{"name": f"t.{i}", "config": {key: value}} for i, (key, value, _) in enumerate(GOOD)]
    table.write_text(json.dumps({"topics": topics}))
    doc, _ = parse_yaml(table.read_text(), "catalog_values.yaml")
    assert doc is not None and doc.data == {"topics": topics}
    examples = sorted(p for p in (PROJECT / "topics").rglob("*.yaml"))
    assert examples
    proc = _check_jsonschema(human, table, *examples)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---------------------------------------------------------------------------- no false refusals


@pytest.mark.parametrize(("key", "value", "canonical"), GOOD)
def test_every_value_the_catalog_tests_accept_passes_the_schema(
    key: str, value: object, canonical: str
) -> None:
    assert normalise(key, value) == canonical  # validate accepts it...
    assert _schema_accepts(key, value), f"{key}: {value!r}"  # ...so the editor must too
    assert _schema_accepts(key, canonical), f"{key}: {canonical!r} (a cluster's spelling)"


_BLANK = st.sampled_from(["", "", " ", "  ", "\t"])
_DIGITS = st.integers(0, 10**6).map(str) | st.sampled_from(["0", "00", "007", "9" * 19])


def _any_case(word: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda upper: "".join(
            c.upper() if u else c.lower() for c, u in zip(word, upper, strict=True)
        )
    )


@st.composite
def _number(draw: st.DrawFn, signed: bool = True) -> str:
    """units.parse_decimal's spellings: 12, -3, +7, 1.5, .5, 2., 1.024E8, 5e-1."""
    sign = draw(st.sampled_from(["", "", "-", "+"])) if signed else ""
    whole, fraction = draw(_DIGITS), draw(_DIGITS)
    body = draw(st.sampled_from([whole, f"{whole}.{fraction}", f".{fraction}", f"{whole}."]))
    exponent = draw(st.sampled_from(["", "", f"e{draw(_DIGITS)[:2]}", f"E-{draw(_DIGITS)[:1]}"]))
    return sign + body + exponent


@st.composite
def _duration(draw: st.DrawFn) -> str:
    units = draw(st.lists(st.sampled_from(list(MS_PER_UNIT)), min_size=1, unique=True))
    units.sort(key=list(MS_PER_UNIT).index)
    parts = [
        draw(_BLANK) + draw(_number(signed=False)) + draw(_BLANK) + draw(_any_case(unit))
        for unit in units
    ]
    return "".join(parts) + draw(_BLANK)


@st.composite
def _size(draw: st.DrawFn) -> str:
    unit = draw(_any_case(draw(st.sampled_from(list(BYTES_PER_UNIT)))))
    return draw(_BLANK) + draw(_number(signed=False)) + draw(_BLANK) + unit + draw(_BLANK)


@st.composite
def _words(draw: st.DrawFn, words: tuple[str, ...]) -> str:
    chosen = draw(st.lists(st.sampled_from(words), max_size=3))
    parts = [draw(_BLANK) + draw(_any_case(w)) + draw(_BLANK) for w in chosen]
    return ",".join(parts)


@st.composite
def _replicas(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(_DIGITS, _DIGITS), max_size=3))
    items = [draw(_BLANK) + (f"{p}:{b}" if draw(st.booleans()) else "") for p, b in pairs]
    return draw(st.sampled_from([",".join(items), draw(_BLANK) + "*" + draw(_BLANK)]))


def _candidates(key: str) -> st.SearchStrategy[object]:
    """Spellings of values for `key`, most of which validate accepts, in every form it reads."""
    defn = CATALOG[key]
    numbers = st.integers(-(2**64), 2**64) | st.floats(allow_nan=True, allow_infinity=True)
    texts: st.SearchStrategy[str] = _number().map(lambda n: f" {n} ")
    if defn.unit == "ms":
        texts = texts | _duration()
    elif defn.unit == "bytes":
        texts = texts | _size()
    if defn.type is catalog.ConfigType.BOOLEAN:
        texts = _words(("true", "false")) | st.sampled_from(["yes", "1", ""])
    elif defn.type is catalog.ConfigType.STRING:
        texts = _words(defn.valid_values)
    elif key in schema_gen._THROTTLED:
        texts = _replicas()
    elif defn.type is catalog.ConfigType.LIST:
        texts = _words(defn.valid_values)
    elif defn.type is catalog.ConfigType.DOUBLE:
        numbers = numbers | st.floats(0, 1)
    scalar = texts | numbers | st.booleans()
    return scalar | st.lists(texts, max_size=3)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), key=st.sampled_from(sorted(CATALOG)))
def test_the_schema_never_refuses_a_value_validate_accepts(data: st.DataObject, key: str) -> None:
    value = data.draw(_candidates(key))
    try:
        normalise(key, value)
    except InvalidConfigValue:
        return  # refused by validate: the schema may accept it (it is permissive where unsure)
    assert _schema_accepts(key, value), f"{key}: {value!r}"
