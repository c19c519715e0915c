"""The safe YAML loader: data as SafeLoader reads it, locations for every value, and bounds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from reconciler.diagnostics import Location
from reconciler.spec.yaml_loader import MAX_ALIASES, parse_yaml, read_source

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


def test_data_matches_pyyaml_safe_load() -> None:
    doc, found = parse_yaml(DOC, "t.yaml")
    assert found == []
    assert doc is not None
    assert doc.data == yaml.safe_load(DOC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 3", {"a": 3}),
        ("a: 0x1f", {"a": 31}),
        ("a: 1_000", {"a": 1000}),
        ("a: 1.5e+3", {"a": 1500.0}),
        ("a: 1.5e3", {"a": "1.5e3"}),  # YAML 1.1, as PyYAML: no sign, no float
        ("a: yes", {"a": True}),
        ("a: ~", {"a": None}),
        ("a:", {"a": None}),
        ("a: '3'", {"a": "3"}),
        ("a: !!str 3", {"a": "3"}),
        ("a: 2024-01-02", {"a": "2024-01-02"}),  # dates stay text: JSON has none
        ("on: 1", {"on": 1}),  # keys are the text written, not YAML 1.1 booleans
        ("\ufeffa: 1", {"a": 1}),
    ],
)
def test_scalars(text: str, expected: object) -> None:
    doc, found = parse_yaml(text, "t.yaml")
    assert found == [] and doc is not None
    assert doc.data == expected


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
        started = time.monotonic()
        doc, found = parse_yaml(text, "t.yaml")
        assert time.monotonic() - started < 2.0, code
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
