"""The safe YAML reader: YAML 1.2 data, locations for every value, bounds, and file checks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from reconciler.diagnostics import Location
from reconciler.spec import yaml_scalars
from reconciler.spec.source import read_source
from reconciler.spec.yaml_reader import MAX_ALIASES, parse_yaml
from reconciler.spec.yaml_scalars import OversizedInteger

DOC = """\
# a comment
defaults: &defaults
  owner: payments
  config: &common {retention.ms: 7d, min.insync.replicas: 2}
topics:
  - name: a.b
    partitions: 3
    config: *common
  - <<: *defaults
    name: a.c
    owner: other
"""


def test_data_matches_pyyaml_safe_load_where_yaml_1_1_and_1_2_agree() -> None:
    doc, found = parse_yaml(DOC, "t.yaml")
    assert found == []
    assert doc is not None
    assert doc.data == yaml.safe_load(DOC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 3", {"a": 3}),
        ("a: -3", {"a": -3}),
        ("a: +12", {"a": 12}),
        ("a: 0", {"a": 0}),
        ("a: 0x1F", {"a": 31}),
        ("a: 0x1f", {"a": 31}),
        ("a: 1.5", {"a": 1.5}),
        ("a: .5", {"a": 0.5}),
        ("a: 1.", {"a": 1.0}),
        ("a: 1.5e+3", {"a": 1500.0}),
        ("a: 1.5E-3", {"a": 0.0015}),
        ("a: .inf", {"a": float("inf")}),
        ("a: -.Inf", {"a": float("-inf")}),
        ("a: +.INF", {"a": float("inf")}),
        ("a: true", {"a": True}),
        ("a: True", {"a": True}),
        ("a: TRUE", {"a": True}),
        ("a: false", {"a": False}),
        ("a: FALSE", {"a": False}),
        ("a: ~", {"a": None}),
        ("a: null", {"a": None}),
        ("a: NULL", {"a": None}),
        ("a:", {"a": None}),
        ("a: '3'", {"a": "3"}),
        ("a: '010'", {"a": "010"}),  # quoted: text in every YAML version
        ("a: 'yes'", {"a": "yes"}),
        ('a: "1:30"', {"a": "1:30"}),
        ("a: !!str 3", {"a": "3"}),
        ("a: !!int 010", {"a": 10}),  # explicit tags resolve by YAML 1.2 too
        ("a: !!float 3", {"a": 3.0}),
        ("a: !!bool yes", {"a": "yes"}),  # not a YAML 1.2 boolean: kept as text
        ("a: !!int abc", {"a": "abc"}),  # the schema then says what was expected
        ("a: 2024-01-02", {"a": "2024-01-02"}),  # dates stay text: JSON has none
        ("a: 7d", {"a": "7d"}),
        ("a: 512MiB", {"a": "512MiB"}),
        ("on: 1", {"on": 1}),  # keys are the text written, never booleans
        ("yes: 1", {"yes": 1}),
        ("\ufeffa: 1", {"a": 1}),
    ],
)
def test_scalars_read_as_yaml_1_2_without_warning(text: str, expected: object) -> None:
    doc, found = parse_yaml(text, "t.yaml")
    assert found == [] and doc is not None
    assert doc.data == expected


@pytest.mark.parametrize(
    "number",
    ["1" * 5000, "-" + "1" * 101, "0x" + "f" * 90, "0o" + "7" * 200, "!!int " + "1" * 5000],
)
def test_an_integer_of_more_than_100_digits_is_kept_as_text_and_reported(number: str) -> None:
    """Finding 8: Python converts at most 4,300 digits and no setting needs more than 19: the
    text is kept (as an OversizedInteger, so later checks pass over it) and R016 says why."""
    doc, found = parse_yaml(f"a: {number}", "t.yaml")
    assert doc is not None and isinstance(doc.data["a"], OversizedInteger)
    assert [(d.code, str(d.location)) for d in found] == [("R016", "t.yaml:1:4")]
    assert "the value of a is a" in found[0].message


def test_nan_is_a_float() -> None:
    doc, found = parse_yaml("a: .nan\nb: .NaN\n", "t.yaml")
    assert found == [] and doc is not None
    assert all(math.isnan(v) for v in doc.data.values())


# Every way YAML 1.1 (PyYAML) and YAML 1.2 (this reader) read one plain scalar differently:
# (text, YAML 1.2 value, YAML 1.1 value, the start of the warning's advice).
YAML_1_1_DIFFERENCES: list[tuple[str, object, object, str]] = [
    ("010", 10, 8, "write 10 or quote it"),  # leading zero: octal in 1.1, decimal in 1.2
    ("-010", -10, -8, "write -10 or quote it"),
    ("08", 8, "08", "write 8 or quote it"),  # not octal in 1.1 either: text there
    ("0o10", 8, "0o10", "write 8 or quote it"),  # 1.2's octal, text in 1.1
    ("0b101", "0b101", 5, "write 5 if that is what you mean, or quote it to keep the text"),
    ("-0x1F", "-0x1F", -31, "write -31 if that"),  # 1.2's hexadecimal takes no sign
    ("1_000", "1_000", 1000, "write 1000 if that"),  # 1.2 has no digit separators
    ("1_000.5", "1_000.5", 1000.5, "write 1000.5 if that"),
    ("1:30", "1:30", 90, "write 90 if that"),  # sexagesimal (base 60) is 1.1 only
    ("1:30:00", "1:30:00", 5400, "write 5400 if that"),
    ("1:30.5", "1:30.5", 90.5, "write 90.5 if that"),
    ("1e3", 1000.0, "1e3", "write 1000.0 or quote it"),  # 1.1 needs a dot and a signed exponent
    ("1.5e3", 1500.0, "1.5e3", "write 1500.0 or quote it"),
    ("-.5", -0.5, "-.5", "write -0.5 or quote it"),
    ("yes", "yes", True, "write true if that is what you mean, or quote it to keep the text"),
    ("Yes", "Yes", True, "write true if that"),
    ("YES", "YES", True, "write true if that"),
    ("no", "no", False, "write false if that"),
    ("No", "No", False, "write false if that"),
    ("on", "on", True, "write true if that"),
    ("On", "On", True, "write true if that"),
    ("OFF", "OFF", False, "write false if that"),
    ("off", "off", False, "write false if that"),
]


@pytest.mark.parametrize(("text", "now", "then", "fix"), YAML_1_1_DIFFERENCES)
def test_yaml_1_1_differences_are_read_as_yaml_1_2_with_a_warning(
    text: str, now: object, then: object, fix: str
) -> None:
    assert yaml.safe_load(f"a: {text}") == {"a": then}, "the table says what PyYAML reads"
    doc, found = parse_yaml(f"partitions: {text}\n", "t.yaml")
    assert doc is not None
    assert doc.data == {"partitions": now} and type(doc.data["partitions"]) is type(now)
    assert [(d.code, d.severity.value, str(d.location)) for d in found] == [
        ("R015", "warning", "t.yaml:1:13")
    ]
    message = found[0].message
    assert message.startswith(f"`partitions: {text}` is read as "), message
    assert "(YAML 1.2); YAML 1.1 tools read it as " in message and f": {fix}" in message, message


def test_the_warning_names_list_items_by_value_and_points_at_each() -> None:
    doc, found = parse_yaml("a: [1, 010, 'yes', yes]\n", "t.yaml")
    assert doc is not None and doc.data == {"a": [1, 10, "yes", "yes"]}
    assert [(str(d.location), d.message.split(" is read")[0]) for d in found] == [
        ("t.yaml:1:8", "`010`"),
        ("t.yaml:1:20", "`yes`"),
    ]


def test_locations_of_values_and_keys() -> None:
    doc, _ = parse_yaml(DOC, "t.yaml")
    assert doc is not None
    assert doc.value_at(("topics", 0)) == Location("t.yaml", 6, 5)
    assert doc.value_at(("topics", 0, "name")) == Location("t.yaml", 6, 11)
    assert doc.key_at(("topics", 0, "partitions")) == Location("t.yaml", 7, 5)
    assert doc.value_at(("topics", 0, "partitions")) == Location("t.yaml", 7, 17)
    # Through an alias: the value's place is the anchored original...
    assert doc.key_at(("topics", 0, "config", "retention.ms")) == Location("t.yaml", 4, 20)
    # ...and the alias itself stands where it is used.
    assert doc.value_at(("topics", 0, "config")) == Location("t.yaml", 8, 13)
    # Merged keys point at the anchored defaults; explicit keys at themselves.
    assert doc.value_at(("topics", 1, "config", "min.insync.replicas")) == Location("t.yaml", 4, 59)
    assert doc.key_at(("topics", 1, "owner")) == Location("t.yaml", 11, 5)
    # A path without its own entry falls back to its nearest parent.
    assert doc.value_at(("topics", 0, "nothing", "here")) == Location("t.yaml", 6, 5)


def test_line_map_moves_lines_not_columns() -> None:
    doc, found = parse_yaml("a: [1,\n", "t.yaml.j2", line_map=[7, 9])
    assert doc is None
    assert found[0].location is not None and found[0].location.line == 9


def test_merge_keys_explicit_wins_then_first_source() -> None:
    doc, found = parse_yaml("x: {<<: [{a: 1, b: 1}, {a: 2, c: 2}], b: 3}", "t.yaml")
    assert found == [] and doc is not None
    assert doc.data == {"x": {"a": 1, "b": 3, "c": 2}}


def test_duplicate_keys_name_both_lines() -> None:
    _, found = parse_yaml("a: 1\nb: 2\na: 3\n", "t.yaml")
    assert [(d.code, str(d.location)) for d in found] == [("R002", "t.yaml:3:1")]
    assert "first at line 1" in found[0].message


def test_merge_does_not_count_as_duplicate() -> None:
    _, found = parse_yaml("d: &d {a: 1}\ne: {<<: *d, a: 2}\n", "t.yaml")
    assert found == []


@pytest.mark.parametrize(
    "text",
    [
        "x: !!python/object:os.system {}",
        "x: !!python/name:os.system ''",
        "x: !!binary aGVsbG8=",
        "x: !custom 1",
        "x: !!set {a, b}",
    ],
)
def test_tags_are_refused_and_nothing_is_constructed(text: str) -> None:
    doc, found = parse_yaml(text, "t.yaml")
    assert [d.code for d in found] == ["R010"]
    assert doc is not None  # the rest of the document is still checked


def test_alias_budget_counts_uses() -> None:
    text = "a: &a x\nb: [" + ", ".join(["*a"] * (MAX_ALIASES + 1)) + "]\n"
    _, found = parse_yaml(text, "t.yaml")
    assert [d.code for d in found] == ["R003"]
    ok = "a: &a x\nb: [" + ", ".join(["*a"] * MAX_ALIASES) + "]\n"
    assert parse_yaml(ok, "t.yaml")[1] == []


def test_bombs_are_refused_in_bounded_time() -> None:
    laughs = "a: &a [" + ", ".join(["lol"] * 9) + "]\n"
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        laughs += f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 9) + "]\n"
    cases = {
        "R003": laughs,
        "R011": "[" * 2_000_000,  # libyaml's composer would crash; its scanner would crawl
    }
    for code, text in cases.items():
        # refused before expanding: the old reader never returned (9**9 nodes, a crawl)
        doc, found = parse_yaml(text, "t.yaml")
        assert doc is None and [d.code for d in found] == [code]


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("a: [1,\nb: 2\n", "R001", 3),
        ("a: 1\n---\nb: 2\n", "R014", 2),
        ("a: *nowhere\n", "R001", 1),
        ("? [a]\n: 1\n", "R012", 1),
        ("a: b\x07\n", "R001", 1),
    ],
)
def test_unreadable_documents(text: str, code: str, line: int) -> None:
    doc, found = parse_yaml(text, "t.yaml")
    assert doc is None
    assert [(d.code, d.location.line if d.location else 0) for d in found] == [(code, line)]


def test_read_source_checks(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("a: 1\n")
    source, found = read_source(tmp_path / "ok.yaml", tmp_path)
    assert found == [] and source is not None and source.rel == "ok.yaml"
    (tmp_path / "utf16.yaml").write_text("a: 1\n", encoding="utf-16")
    assert [d.code for d in read_source(tmp_path / "utf16.yaml", tmp_path)[1]] == ["R005"]
    (tmp_path / "dir.yaml").mkdir()
    assert [d.code for d in read_source(tmp_path / "dir.yaml", tmp_path)[1]] == ["R008"]
    inside = tmp_path / "repo"
    inside.mkdir()
    (inside / "link.yaml").symlink_to(tmp_path / "ok.yaml")
    assert [d.code for d in read_source(inside / "link.yaml", inside)[1]] == ["R007"]
    (inside / "fine.yaml").symlink_to(inside / "real.yaml")
    (inside / "real.yaml").write_text("a: 1\n")
    assert read_source(inside / "fine.yaml", inside)[1] == []  # a link inside is fine
    (inside / "loop.yaml").symlink_to(inside / "loop.yaml")
    found = read_source(inside / "loop.yaml", inside)[1]
    assert [d.code for d in found] == ["R008"] and "symbolic links" in found[0].message


def test_a_long_yaml_1_1_sexagesimal_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 6 (bounded reading): PyYAML builds `1:1:1:...` in quadratic time (200,000
    parts took 17 s, a 5 MiB file would take an hour). It is left as text, unbuilt (it would be
    no setting's value)."""

    def refuse(*_: object) -> None:
        raise AssertionError("PyYAML's int builder ran on a 400 KB scalar")

    monkeypatch.setitem(yaml_scalars._YAML11_BUILDERS, yaml_scalars.TAG + "int", refuse)
    doc, found = parse_yaml("a: 1" + ":1" * 200_000, "t.yaml")
    assert doc is not None and found == []
    assert isinstance(doc.data["a"], str)
