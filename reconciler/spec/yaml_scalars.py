"""What a YAML scalar means: YAML 1.2's core schema, and what YAML 1.1 tools make of it.

Spec files are read as YAML 1.2 (core schema, section 10.3.2 of the spec): `010` is 10, `0o10`
is 8, `0x1F` is 31, `true`/`True`/`TRUE` and `false` are booleans, `null` and `~` are null,
`.inf` and `.nan` are floats, and everything else is a string: `yes`, `on`, `1:30`, `1_000`.
YAML 1.1, which PyYAML implements, reads some of those differently (`010` as 8, `1:30` as 90,
`yes` as true, `1_000` as 1000), so a file another tool in the pipeline reads with YAML 1.1
would mean something else there. `yaml11_value` says what that is, for the reader's warning
(R015, `difference_message`).

Only the scalars of the core schema are ever built: no tag constructs a Python object.

An integer literal longer than `MAX_INTEGER_DIGITS` digits is no setting's value (Kafka's
largest, a Java long, has 19 digits) and would hit Python's 4,300-digit str/int limit: it stays
its text, as an `OversizedInteger`, which the reader reports once (R016) and later checks pass
over, so no message calls it a string or shows thousands of digits.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

Scalar = str | int | float | bool | None

TAG = "tag:yaml.org,2002:"

# YAML 1.2 core schema, section 10.3.2 (Tag Resolution), one pattern per row of its table.
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_INT_BASE_10 = re.compile(r"[-+]?[0-9]+")
_INT_BASE_8 = re.compile(r"0o[0-7]+")
_INT_BASE_16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INFINITY = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")

# PyYAML's own YAML 1.1 resolution, used only to say what a YAML 1.1 tool would read.
_YAML11_RESOLVER = yaml.resolver.Resolver()
_YAML11_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_YAML11_BUILDERS: dict[str, Any] = {
    TAG + "int": yaml.constructor.SafeConstructor.construct_yaml_int,
    TAG + "float": yaml.constructor.SafeConstructor.construct_yaml_float,
    TAG + "bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    TAG + "null": yaml.constructor.SafeConstructor.construct_yaml_null,
}

MAX_INTEGER_DIGITS = 100
_TOO_LARGE = 10**MAX_INTEGER_DIGITS


class OversizedInteger(str):
    """An integer literal of more than MAX_INTEGER_DIGITS digits, kept as its text."""

    @property
    def digits(self) -> int:
        """How many digits it has (in its own base)."""
        return len(self.lstrip("+-").removeprefix("0x").removeprefix("0o"))


def shown_integer(value: int) -> str:
    """An integer for a message: as written up to 20 digits, else in scientific notation (a
    float like 1e300 read as an integer would otherwise print 301 digits)."""
    return str(value) if -(10**20) < value < 10**20 else f"{value:.3e}"


def oversized(value: object) -> bool:
    """Whether `value` is an integer too large for any setting (or a message to show)."""
    if isinstance(value, OversizedInteger):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _TOO_LARGE


# Tags a scalar may carry explicitly; any other is refused (R010) by the reader.
SCALAR_TAGS = frozenset(TAG + name for name in ("str", "int", "float", "bool", "null", "timestamp"))


def core_value(text: str) -> Scalar:
    """A plain (unquoted, untagged) scalar resolved by the YAML 1.2 core schema."""
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    number: int | None = None
    if _INT_BASE_10.fullmatch(text):
        if len(text.lstrip("+-")) > MAX_INTEGER_DIGITS:  # before int(): its cost is quadratic
            return OversizedInteger(text)
        number = int(text)
    elif _INT_BASE_8.fullmatch(text):
        number = int(text[2:], 8)  # power-of-two bases convert in linear time, without limit
    elif _INT_BASE_16.fullmatch(text):
        number = int(text[2:], 16)
    if number is not None:
        return OversizedInteger(text) if oversized(number) else number
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INFINITY.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


def tagged_value(tag: str, text: str) -> Scalar:
    """A scalar with an explicit tag of SCALAR_TAGS (`!!int 3`): its YAML 1.2 value when the
    text is one of that type's forms, else the text itself, so the schema says what was
    expected. A date (`!!timestamp`) stays text: JSON has no dates."""
    value = core_value(text)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(value, OversizedInteger) and tag in (TAG + "int", TAG + "float"):
        return value
    match tag.removeprefix(TAG):
        case "int" if number and isinstance(value, int):
            return value
        case "float" if number and isinstance(value, int | float):
            return float(value)
        case "bool" if isinstance(value, bool):
            return value
        case "null" if value is None:
            return None
        case _:
            return text


def yaml11_value(text: str) -> Scalar:
    """What PyYAML's SafeLoader (YAML 1.1) reads a plain scalar as; dates stay text, as here."""
    tag = _YAML11_RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    build = _YAML11_BUILDERS.get(tag)
    if build is None:
        return text
    if tag == TAG + "int" and len(text) > 4 * MAX_INTEGER_DIGITS:
        # PyYAML builds a sexagesimal 1:2:3:... in quadratic time (minutes for a big file),
        # and the result would be too large for any setting anyway.
        return text
    try:
        value: Scalar = build(_YAML11_CONSTRUCTOR, yaml.ScalarNode(tag, text))
    except (ValueError, TypeError, yaml.YAMLError):
        return text
    if oversized(value):  # 0b, sexagesimal: too large to print, and no setting's value anyway
        return text
    return value


def same(a: Scalar, b: Scalar) -> bool:
    """Whether two readings are the same value of the same type (1 is not 1.0 nor true)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def difference_message(subject: str, now: Scalar, then: Scalar) -> str:
    """R015's message: how `subject` (`partitions: 010`) is read, how YAML 1.1 reads it, and
    how to write it so that every reader agrees."""
    if isinstance(now, str):
        fix = f"write {spelled(then)} if that is what you mean, or quote it to keep the text"
    else:
        fix = f"write {spelled(now)} or quote it"
    return (
        f"`{subject}` is read as {_described(now)} (YAML 1.2); YAML 1.1 tools read it as "
        f"{_described(then)}: {fix}"
    )


def spelled(value: Scalar) -> str:
    """How to write `value` so that YAML 1.1 and 1.2 read the same thing."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        # YAML 1.1 needs a dot in the mantissa and a signed exponent: 1.0e+30, not 1e+30.
        mantissa, _, exponent = repr(value).partition("e")
        mantissa += "" if "." in mantissa else ".0"
        return f"{mantissa}e{exponent}" if exponent else mantissa
    if isinstance(value, int):
        return str(value)
    return "'" + value.replace("'", "''") + "'"


def _described(value: Scalar) -> str:
    if isinstance(value, str):
        return f"the string {spelled(value)}"
    return spelled(value)
