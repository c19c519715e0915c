"""Human units for topic configs: durations (7d, 1h30m) and sizes (512MiB, 1GB), both ways.

Parsing turns a human spelling into the integer Kafka stores (milliseconds or bytes); formatting
turns an integer back into the shortest exact human spelling, for plans and docs. Every result
is exact: arithmetic is done on `Decimal`, never on floats, and a spelling that does not land on
a whole millisecond or byte (`0.5ms`, `1.3B`) is refused rather than rounded.

    parse_integer("1.024E8")   -> 102400000
    parse_duration_ms("1h30m") -> 5400000
    parse_size_bytes("512MiB") -> 536870912
    format_duration_ms(1209600000) -> "14d"
    format_size_bytes(1073741824) -> "1GiB"

Sizes: KiB/MiB/GiB/TiB/PiB are powers of 1024 (IEC); KB/MB/GB/TB/PB are powers of 1000 (SI). A
bare K/M/G/T is refused as ambiguous: Kafka operators use it for both, and guessing wrong is a
factor of 1.07 (G) to 1.13 (P) on a retention limit.

Failures raise `UnitError` whose message is only the reason (`"not a whole number of
milliseconds"`); the catalog wraps it in a message naming the config key, what is accepted and
the value it got.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

# Ordered largest first: formatting picks the first unit that divides exactly, and combined
# durations must list their parts in this order (1h30m, not 30m1h).
MS_PER_UNIT: Mapping[str, int] = MappingProxyType(
    {
        "w": 7 * 24 * 3_600_000,
        "d": 24 * 3_600_000,
        "h": 3_600_000,
        "m": 60_000,
        "s": 1_000,
        "ms": 1,
    }
)

# Ordered largest first for formatting; IEC before SI so 1073741824 prints as 1GiB, and a value
# that is an exact SI multiple but not an IEC one (1000000000) prints as 1GB.
BYTES_PER_UNIT: Mapping[str, int] = MappingProxyType(
    {
        "PiB": 1024**5,
        "TiB": 1024**4,
        "GiB": 1024**3,
        "MiB": 1024**2,
        "KiB": 1024,
        "PB": 1000**5,
        "TB": 1000**4,
        "GB": 1000**3,
        "MB": 1000**2,
        "KB": 1000,
        "B": 1,
    }
)

_LOWER_SIZE_UNITS = {unit.lower(): factor for unit, factor in BYTES_PER_UNIT.items()}
_AMBIGUOUS_SIZE_UNITS = frozenset({"k", "m", "g", "t", "p"})
_MAX_DIGITS = 40  # decimal exponent; a Java long has 19 digits

_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_INTEGER_RE = re.compile(r"[+-]?\d+")
# Decimal and scientific spellings (1.024E8, 1e3, 100.0): what Java and spreadsheets print.
_DECIMAL_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")  # unambiguous: linear
_DURATION_PART_RE = re.compile(rf"\s*({_NUMBER})\s*(ms|[wdhms])", re.IGNORECASE)
_SIZE_RE = re.compile(rf"({_NUMBER})\s*([a-z]+)", re.IGNORECASE)


class UnitError(ValueError):
    """A value could not be read as an integer, a duration or a size; the message is the reason."""


# The generic reasons: the caller's own message (what is accepted) already says as much, so it
# may leave these out; any other reason adds something the user needs (ambiguous unit, ...).
NOT_A_NUMBER = "not a number"
NOT_A_DURATION = "not a duration"
NOT_A_SIZE = "not a size"
GENERIC_REASONS = frozenset({NOT_A_NUMBER, NOT_A_DURATION, NOT_A_SIZE})


def parse_decimal(text: str) -> Decimal:
    """Read a plain, decimal or scientific number exactly: "0.5", "5E-1", "-1", "1.024E8"."""
    stripped = text.strip()
    if not _DECIMAL_RE.fullmatch(stripped):
        raise UnitError(NOT_A_NUMBER)
    try:
        return Decimal(stripped)
    except InvalidOperation as error:  # an exponent beyond Decimal's own range (1e99999999999)
        raise UnitError("out of range") from error


def parse_integer(text: str) -> int:
    """Read a plain or scientific integer spelling: "42", "-1", "+7", "1.024E8", "100.0".

    Kafka itself only parses plain integers; scientific forms are accepted because configs copied
    from Java tooling or spreadsheets use them, and they are exact when they denote an integer.
    """
    stripped = text.strip()
    if _INTEGER_RE.fullmatch(stripped):
        if len(stripped.lstrip("+-")) > _MAX_DIGITS:  # before int(), which refuses 4,300 digits
            raise UnitError("out of range")
        return int(stripped)
    return _whole(parse_decimal(stripped), "a whole number")


def parse_duration_ms(text: str) -> int:
    """Read a duration with units into milliseconds: "7d", "36h", "1h30m", "1.5h", "500ms".

    Units are w, d, h, m, s and ms, case-insensitive; combined parts go largest first and each
    unit appears once. A bare number is not a duration here: callers try `parse_integer` first.
    """
    stripped = text.strip()
    position = 0
    total = Decimal(0)
    previous_rank = -1
    ranks = list(MS_PER_UNIT)
    while position < len(stripped):
        match = _DURATION_PART_RE.match(stripped, position)
        if match is None:
            raise UnitError(NOT_A_DURATION)
        unit = match.group(2).lower()
        rank = ranks.index(unit)
        if rank <= previous_rank:
            raise UnitError(
                "list the parts of a duration largest first, each unit once, like 1h30m"
            )
        previous_rank = rank
        total += Decimal(match.group(1)) * MS_PER_UNIT[unit]
        position = match.end()
    if previous_rank < 0:
        raise UnitError(NOT_A_DURATION)
    return _whole(total, "a whole number of milliseconds")


def parse_size_bytes(text: str) -> int:
    """Read a size with a unit into bytes: "512MiB", "1GiB", "1GB", "100KiB", "1.5GiB", "1024B".

    KiB..PiB are powers of 1024, KB..PB powers of 1000, case-insensitive. A bare number is not a
    size here: callers try `parse_integer` first.
    """
    stripped = text.strip()
    match = _SIZE_RE.fullmatch(stripped)
    if match is None:
        raise UnitError(NOT_A_SIZE)
    unit = match.group(2).lower()
    if unit in _AMBIGUOUS_SIZE_UNITS:
        upper = unit.upper()
        raise UnitError(
            f"{match.group(2)} is ambiguous: write {upper}iB for powers of 1024 or {upper}B for "
            "powers of 1000"
        )
    factor = _LOWER_SIZE_UNITS.get(unit)
    if factor is None:
        raise UnitError(f"unknown size unit {match.group(2)!r}")
    return _whole(Decimal(match.group(1)) * factor, "a whole number of bytes")


def format_duration_ms(ms: int) -> str:
    """An exact one-unit spelling of a duration: 604800000 -> "7d", 5400000 -> "90m".

    One unit only (the largest that divides exactly), so the result reads at a glance and
    parses back to the same integer. Days are the largest: retention is thought of in days
    (Kafka's own default is 7 days), so 14 days prints as "14d", not "2w". Zero and negative
    values (Kafka's sentinels) stay numbers.
    """
    if ms <= 0:
        return str(ms)
    for unit, factor in MS_PER_UNIT.items():
        if unit != "w" and ms % factor == 0:
            return f"{ms // factor}{unit}"
    raise AssertionError("unreachable: 1ms divides every integer")


def format_size_bytes(size: int) -> str:
    """The shortest exact spelling of a size: 1073741824 -> "1GiB", 1000000 -> "1MB".

    Zero and negative values (Kafka's sentinels) stay numbers; a size no unit divides stays a
    plain byte count.
    """
    if size <= 0:
        return str(size)
    for unit, factor in BYTES_PER_UNIT.items():
        if factor > 1 and size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


def _whole(value: Decimal, what: str) -> int:
    """`value` as an int, or UnitError saying it is not `what`."""
    # Far beyond any Java long; refusing here keeps "1e999999" from building a huge integer.
    if value != 0 and value.adjusted() > _MAX_DIGITS:
        raise UnitError("out of range")
    try:
        integral = value.to_integral_value()
    except InvalidOperation as error:
        raise UnitError("out of range") from error
    if integral != value:
        raise UnitError(f"not {what}")
    return int(integral)
