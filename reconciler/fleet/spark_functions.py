"""The Spark SQL functions the job uses whose Python API differs between PySpark 3.5 and 4.x.

The job runs on both (guard.py). Everything else it calls exists in 3.5 already; these are the
ones 4.0 added to the Python API, or whose 3.5 form takes no column where the job passes one
(3.5 hands such an argument to the JVM as it is, and fails with "Column is not iterable").
Each is given here with the same result on either version (the same SQL where both have it,
else per version), so that a row never depends on the Spark it ran on.
tests/fleet/test_spark_versions.py type-checks the job against PySpark 3.5's own annotations
(a 4.0-only name outside this module fails it), keeps the calls 3.5 takes no column in out of
the other modules, and compares the tables of the same job on both versions row for row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from pyspark.sql import Column
from pyspark.sql import functions as F

# is_valid_utf8 is 4.0's (F.is_valid_utf8 and the SQL function alike); None on 3.5
_IS_VALID_UTF8 = cast("Callable[[Column], Column] | None", getattr(F, "is_valid_utf8", None))


def try_to_date(text: Column, pattern: str) -> Column:
    """`text` as a DATE read with the datetime `pattern`, null where it is not one (never an
    error, ANSI mode or not). F.try_to_date is 4.0's; try_to_timestamp, which 3.5 has, parses
    by the same rules, and its midnight in the session's time zone is that date."""
    return F.try_to_timestamp(text, F.lit(pattern)).cast("date")


def try_cast(sql: str, to: str) -> Column:
    """The SQL expression `sql` cast to `to`, null where it does not convert (where plain
    CAST would fail under ANSI mode, or, without it, read "3.0" as 3). Column.try_cast is
    4.0's; the SQL form TRY_CAST is in both, so it takes the expression as SQL text."""
    return F.expr(f"TRY_CAST({sql} AS {to})")


def is_valid_utf8(text: Column) -> Column:
    """Whether the bytes of the string `text` are valid UTF-8 (null for null). On 3.5, which
    has no such function: whether they survive a decode and encode unchanged, since decoding
    replaces each invalid byte with U+FFFD (three other bytes). 4.0's own function is used
    where it exists: 4.0's ENCODE fails on such a string rather than replace."""
    if _IS_VALID_UTF8 is not None:
        return _IS_VALID_UTF8(text)
    return F.decode(F.encode(text, "UTF-8"), "UTF-8") == text


def map_contains_key(mapping: Column, key: Column) -> Column:
    """Whether the map `mapping` has the key `key`, a column (a lambda's variable). 3.5's
    F.map_contains_key takes a Python value only; the SQL function, in both, takes columns."""
    return F.call_function("map_contains_key", mapping, key)
