"""Kafka's rules for one topic and the cross-file rules, one function each, on plain values."""

from __future__ import annotations

import pytest

from reconciler.diagnostics import Location
from reconciler.spec import cross_file, kafka_rules, r_codes
from reconciler.spec.cross_file import Declared

AT = Location("t.yaml", 1, 1)


@pytest.mark.parametrize(
    ("name", "codes"),
    [
        ("payments.orders.v1", []),
        ("a-b_c.D9", []),
        ("x" * 249, []),
        ("x" * 250, ["R202"]),
        (".", ["R203"]),
        ("..", ["R203"]),
        ("...", []),  # Kafka only refuses '.' and '..'
        ("a b", ["R201"]),
        ("ä.b", ["R201"]),
        ("y" * 250 + "!", ["R202", "R201"]),
        ("__consumer_offsets", ["R205"]),
        ("__my_internal", []),
    ],
)
def test_topic_names(name: str, codes: list[str]) -> None:
    assert [d.code for d in kafka_rules.topic_name(name, AT)] == codes


def test_collisions_and_duplicates_report_the_later_place() -> None:
    first, second = Location("a.yaml", 2, 5), Location("b.yaml", 3, 5)
    collision = cross_file.name_collisions([Declared("a.b_c", first), Declared("a_b.c", second)])
    assert [(d.code, d.location) for d in collision] == [("R204", second)]
    duplicate = cross_file.duplicates([Declared("a.b", first), Declared("a.b", second)])
    assert [(d.code, d.location) for d in duplicate] == [("R401", second)]
    assert "a.yaml:2:5" in duplicate[0].message


@pytest.mark.parametrize(
    ("replicas", "partitions", "rf", "codes"),
    [
        ([[1, 2], [2, 3]], 2, 2, []),
        ([[1, 2], [2, 3]], None, None, []),
        ([[1, 2], [2, 3]], 3, None, ["R303"]),
        ([], None, None, ["R303"]),
        ([[1], []], None, None, ["R304"]),
        ([[1, 2], [3]], None, None, ["R305"]),
        ([[1, 2], [2, 3]], None, 3, ["R305", "R305"]),
        ([[1, 1]], None, None, ["R306"]),
        ([[0, -1]], None, None, ["R307"]),
    ],
)
def test_assignments(
    replicas: list[list[int]], partitions: int | None, rf: int | None, codes: list[str]
) -> None:
    found = kafka_rules.assignments([(r, AT) for r in replicas], AT, "t", partitions, rf)
    assert [d.code for d in found] == codes


def test_a_count_the_assignments_do_not_match_says_how_to_hand_placement_to_kafka() -> None:
    """R303 is what a partition increase of a pinned topic meets: removing `assignments:` is
    the other way out, and the message says so."""
    (found,) = kafka_rules.assignments([([1, 2], AT), ([2, 3], AT)], AT, "t", 3, None)
    assert found.code == "R303"
    assert "remove `assignments:` to hand placement back to Kafka" in found.message


def _topic(name: str, *deps: str, absent: bool = False) -> Declared:
    return Declared(name, AT, tuple((d, AT) for d in deps), absent)


def test_cycles_print_one_cycle_each() -> None:
    topics = [
        _topic("a", "b"),
        _topic("b", "c"),
        _topic("c", "a", "d"),
        _topic("d"),
        _topic("x", "y"),
        _topic("y", "x"),
    ]
    messages = [d.message for d in cross_file.dependencies(topics)]
    assert len(messages) == 2
    assert any("a -> b -> c -> a" in m for m in messages)
    assert any("x -> y -> x" in m for m in messages)


def test_a_long_chain_is_no_cycle_and_no_recursion_error() -> None:
    chain = [_topic(f"t{i}", f"t{i + 1}") for i in range(5000)] + [_topic("t5000")]
    assert cross_file.dependencies(chain) == []


def test_dependency_rules() -> None:
    found = cross_file.dependencies([_topic("a", "a", "old", "nope"), _topic("old", absent=True)])
    assert [d.code for d in found] == ["R403", "R406", "R402"]


def test_codes_are_unique_and_numbered_by_family() -> None:
    codes = [r.code for r in r_codes.RULES]
    assert len(codes) == len(set(codes))
    assert len({r.name for r in r_codes.RULES}) == len(codes)
    assert all(c[0] == "R" and c[1] in "012345678" and len(c) == 4 for c in codes)
