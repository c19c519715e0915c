"""Human units: durations and sizes parse exactly, refuse what is not exact, and round-trip."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.spec.units import (
    BYTES_PER_UNIT,
    MS_PER_UNIT,
    UnitError,
    format_duration_ms,
    format_size_bytes,
    parse_decimal,
    parse_duration_ms,
    parse_integer,
    parse_size_bytes,
)
from tests.property_examples import examples

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("-1", -1),
        ("+7", 7),
        (" 100 ", 100),
        ("0100", 100),
        ("1.024E8", 102_400_000),
        ("1e3", 1000),
        ("100.0", 100),
        ("9223372036854775807", 2**63 - 1),
        ("2.5E1", 25),
    ],
)
def test_parse_integer(text: str, expected: int) -> None:
    assert parse_integer(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a number"),
        ("seven", "not a number"),
        ("1_000", "not a number"),
        ("0x10", "not a number"),
        ("nan", "not a number"),
        ("1.5", "not a whole number"),
        ("1.0001E2", "not a whole number"),
        ("1e999999", "out of range"),
    ],
)
def test_parse_integer_refuses(text: str, reason: str) -> None:
    with pytest.raises(UnitError, match=reason):
        parse_integer(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.5", "0.5"), ("5E-1", "0.5"), ("-1", "-1"), (".25", "0.25"), ("1.0E-4", "0.00010")],
)
def test_parse_decimal_is_exact(text: str, expected: str) -> None:
    assert parse_decimal(text) == Decimal(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7d", 7 * DAY),
        ("36h", 36 * HOUR),
        ("15m", 15 * MINUTE),
        ("30s", 30 * SECOND),
        ("500ms", 500),
        ("1w", 7 * DAY),
        ("7D", 7 * DAY),
        ("36H", 36 * HOUR),
        ("500MS", 500),
        ("1h30m", HOUR + 30 * MINUTE),
        ("1d12h", 36 * HOUR),
        ("1w2d3h4m5s6ms", 7 * DAY + 2 * DAY + 3 * HOUR + 4 * MINUTE + 5 * SECOND + 6),
        ("1h 30m", HOUR + 30 * MINUTE),
        ("2 h", 2 * HOUR),
        (" 7d ", 7 * DAY),
        ("1.5h", 90 * MINUTE),
        ("0.5s", 500),
        ("0d", 0),
    ],
)
def test_parse_duration(text: str, expected: int) -> None:
    assert parse_duration_ms(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a duration"),
        ("7", "not a duration"),
        ("seven days", "not a duration"),
        ("7x", "not a duration"),
        ("7 days", "not a duration"),
        ("-1d", "not a duration"),
        ("d", "not a duration"),
        ("30m1h", "largest first"),
        ("1h1h", "largest first"),
        ("0.5ms", "not a whole number of milliseconds"),
    ],
)
def test_parse_duration_refuses(text: str, reason: str) -> None:
    with pytest.raises(UnitError, match=reason):
        parse_duration_ms(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("512MiB", 512 * MIB),
        ("1GiB", GIB),
        ("1GB", 1_000_000_000),
        ("100KiB", 100 * KIB),
        ("1024B", 1024),
        ("1kb", 1000),
        ("1kib", KIB),
        ("1.5GiB", GIB + 512 * MIB),
        ("2 TiB", 2 * TIB),
        ("1PB", 10**15),
        ("1PiB", 1024**5),
        (" 64MB ", 64_000_000),
    ],
)
def test_parse_size(text: str, expected: int) -> None:
    assert parse_size_bytes(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a size"),
        ("1024", "not a size"),
        ("MiB", "not a size"),
        ("-1GiB", "not a size"),
        ("1M", "M is ambiguous: write MiB for powers of 1024 or MB for powers of 1000"),
        ("1g", "g is ambiguous"),
        ("1XB", "unknown size unit 'XB'"),
        ("0.3B", "not a whole number of bytes"),
        ("1.1KiB", "not a whole number of bytes"),
    ],
)
def test_parse_size_refuses(text: str, reason: str) -> None:
    with pytest.raises(UnitError, match=reason):
        parse_size_bytes(text)


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (7 * DAY, "7d"),
        (14 * DAY, "14d"),
        (90 * MINUTE, "90m"),
        (1500, "1500ms"),
        (0, "0"),
        (-1, "-1"),
    ],
)
def test_format_duration(ms: int, text: str) -> None:
    assert format_duration_ms(ms) == text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (GIB, "1GiB"),
        (10**9, "1GB"),
        (1536 * MIB, "1536MiB"),
        (1000, "1KB"),
        (1023, "1023"),
        (-1, "-1"),
    ],
)
def test_format_size(size: int, text: str) -> None:
    assert format_size_bytes(size) == text


def test_units_are_ordered_largest_first() -> None:
    # formatting relies on it: the first exact unit is the shortest spelling
    assert list(MS_PER_UNIT.values()) == sorted(MS_PER_UNIT.values(), reverse=True)
    iec = [f for u, f in BYTES_PER_UNIT.items() if u.endswith("iB")]
    si = [f for u, f in BYTES_PER_UNIT.items() if not u.endswith("iB")]
    assert iec == sorted(iec, reverse=True)
    assert si == sorted(si, reverse=True)


_DURATION_UNITS = list(MS_PER_UNIT)


@st.composite
def durations(draw: st.DrawFn) -> tuple[str, int]:
    """A combined duration spelling ("2d5m") and the milliseconds it means."""
    chosen = draw(st.lists(st.sampled_from(_DURATION_UNITS), min_size=1, unique=True))
    chosen.sort(key=_DURATION_UNITS.index)
    parts = [(draw(st.integers(0, 10_000)), unit) for unit in chosen]
    cased = [unit.upper() if draw(st.booleans()) else unit for _, unit in parts]
    text = "".join(f"{count}{unit}" for (count, _), unit in zip(parts, cased, strict=True))
    return text, sum(count * MS_PER_UNIT[unit] for count, unit in parts)


@settings(max_examples=examples(200))
@given(durations())
def test_generated_durations_parse_to_their_sum(case: tuple[str, int]) -> None:
    text, expected = case
    assert parse_duration_ms(text) == expected


@settings(max_examples=examples(200))
@given(st.integers(1, 2**63 - 1))
def test_format_duration_round_trips(ms: int) -> None:
    assert parse_duration_ms(format_duration_ms(ms)) == ms


@settings(max_examples=examples(200))
@given(st.integers(0, 2**20), st.sampled_from(list(BYTES_PER_UNIT)))
def test_sizes_parse_exactly(count: int, unit: str) -> None:
    assert parse_size_bytes(f"{count}{unit}") == count * BYTES_PER_UNIT[unit]


@settings(max_examples=examples(200))
@given(st.integers(1, 2**63 - 1))
def test_format_size_round_trips(size: int) -> None:
    text = format_size_bytes(size)
    parsed = parse_integer(text) if text.isdigit() else parse_size_bytes(text)
    assert parsed == size


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reader", [parse_decimal, parse_integer, parse_duration_ms])
def test_a_long_non_number_is_refused_in_linear_time(reader: object) -> None:
    """Finding 6/8 (bounded reading): the decimal pattern backtracked quadratically, so a
    config value of 40,000 digits and a letter took a minute, a 5 MiB one hours (the
    timeout marker turns that into a failure)."""
    assert callable(reader)
    with pytest.raises(UnitError):
        reader("1" * 400_000 + "x")


@pytest.mark.parametrize(
    "text", ["9" * 5000, "-" + "9" * 41, "9" * 5000 + ".0", "1e" + "9" * 5000, "1e99999999999"]
)
def test_an_integer_beyond_a_long_by_far_is_out_of_range(text: str) -> None:
    """Finding 8: no int() on 4,300+ digits, no Decimal overflow: "out of range"."""
    with pytest.raises(UnitError, match="out of range"):
        parse_integer(text)
