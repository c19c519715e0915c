"""The `ignored` column: the planner's `ignored` (reserved prefix, policy.ignore) per cluster.

When every cluster's patterns translate to Java's dialect (java_regex.py), the column is
`rlike` in the JVM, one regex per distinct set of patterns; otherwise it is the planner's own
function in a Python UDF (names.py) for every row, which costs the job a Python call per
snapshot row. Patterns Python cannot compile are skipped on both paths, as the planner skips
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql import Column
from pyspark.sql import functions as F

from reconciler.fleet.java_regex import compiles, translate
from reconciler.fleet.names import ignored_name
from reconciler.planning.diff import RESERVED_PREFIX


def ignored(patterns: Mapping[str, Sequence[str]], topic: Column, cluster: Column) -> Column:
    """True where the planner never plans nor reports `topic` on `cluster` (null for a
    cluster `patterns` does not name)."""
    java = _translated(patterns)
    if java is None:
        # A lambda, not ignored_name itself: pyspark reads a function's type hints as a
        # request for a pandas UDF, and this one takes plain values.
        udf = F.udf(
            lambda name, at: ignored_name(name, patterns.get(at)) if at in patterns else None,
            "boolean",
            useArrow=False,
        )
        return udf(topic, cluster)
    matched: Column = F.lit(False)
    by_set: dict[str, list[str]] = {}
    for name, regex in java.items():
        if regex is not None:
            by_set.setdefault(regex, []).append(name)
    for regex, clusters in sorted(by_set.items()):
        matched = F.when(cluster.isin(sorted(clusters)), topic.rlike(regex)).otherwise(matched)
    return F.when(cluster.isin(sorted(patterns)), topic.startswith(RESERVED_PREFIX) | matched)


def _translated(patterns: Mapping[str, Sequence[str]]) -> dict[str, str | None] | None:
    """cluster -> one Java regex for all its patterns (None: no patterns), or None when a
    pattern does not translate."""
    found: dict[str, str | None] = {}
    for cluster, listed in patterns.items():
        parts = []
        for pattern in listed:
            if not compiles(pattern):
                continue
            java = translate(pattern)
            if java is None:
                return None
            parts.append(f"(?:{java})")
        found[cluster] = "|".join(parts) or None
    return found
