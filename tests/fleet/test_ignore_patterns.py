"""policy.ignore in the JVM: a translated pattern finds exactly what Python's `re.search` finds
on legal topic names, checked on a real SparkSession; a pattern outside the subset is not
translated, and the job then falls back to the planner's own function."""

from __future__ import annotations

import random
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from reconciler.fleet.ignore import ignored
from reconciler.fleet.java_regex import LEGAL_NAME, compiles, translate
from reconciler.fleet.names import ignored_name

NAME_CHARS = "abcqxyzABQZ019._-"
names = st.text(NAME_CHARS, min_size=1, max_size=12)

# Atoms of the subset, and pieces of syntax around it, combined at random: many results are
# not valid Python patterns or fall outside the subset, which exercises the refusals too.
ATOMS = (
    "a", "b", "x", "A", "Q", "0", "9", ".", "-", "_", r"\.", r"\-", r"\_", r"\d", r"\D",
    r"\w", r"\W", r"\s", r"\S", r"\b", r"\B", r"\A", r"\Z", "^", "$", r"\x61", r"\u0041",
    "[a-c]", "[^a-c]", "[]a]", "[^]x]", r"[\d.]", "[.-]", "[-a]", "[a-]", r"[\w-]",
    "[&&a]", "[[a]", "[a[]", "{", "}", "{,2}", "{2,}", "{1,3}", "{2}", "{}", "{,}",
    "*", "+", "?", "*?", "+?", "??", "|", "(", ")", "(?:", "(?P<t>", "(?P<u_v>",
    "(?i)", "(?=", "(?!", r"\1", "a*+", "é", "&", "#", " ", "'", '"', "\\Q", "\\E",
)  # fmt: skip
patterns = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=8).map("".join)


def _search(pattern: str, name: str) -> bool:
    with warnings.catch_warnings():  # `[[a]`: Python's "possible nested set", drawn on purpose
        warnings.simplefilter("ignore", FutureWarning)
        return re.search(pattern, name) is not None


def test_examples() -> None:
    assert translate(r"^(?P<team>qa|perf)-sandbox\.") == r"^(?:qa|perf)\x{2D}sandbox\x{2E}"
    assert translate("a{,3}") == "a{0,3}"
    assert translate("x{2") == r"x\x{7B}2"
    assert translate(r"\Z") == r"\z"
    # a count takes ASCII digits only, as Python's parser reads it: `{٣}` is three literals
    assert translate("a{\u0663}") == r"a\x{7B}\x{663}\x{7D}"
    for outside in ("(?i)tmp", r"(a)\1", "(?=a)", "(?<=a)b", "a*+", "(?>a)", r"\N{DIGIT ONE}"):
        assert translate(outside) is None, outside
    assert translate("(") is None  # not a Python pattern


@pytest.mark.timeout(300)
@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(cases=st.lists(st.tuples(patterns, st.lists(names, min_size=1, max_size=8)), max_size=40))
def test_translated_patterns_find_what_python_finds(
    spark: SparkSession, cases: list[tuple[str, list[str]]]
) -> None:
    rows = [
        (pattern, java, name, _search(pattern, name))
        for pattern, batch in cases
        if (java := translate(pattern)) is not None
        for name in batch
    ]
    if not rows:
        return
    frame = spark.createDataFrame(rows, "pattern string, java string, name string, python boolean")
    disagree = (
        frame.where(F.expr("name rlike java") != F.col("python"))
        .select("pattern", "java", "name", "python")
        .collect()
    )
    assert disagree == []


def test_generated_patterns_translate_often_enough() -> None:
    """The property above is only as good as the share of its patterns that translate."""
    random.seed(3)
    tried = translated = 0
    for _ in range(2000):
        pattern = "".join(random.choice(ATOMS) for _ in range(random.randint(1, 6)))
        if not compiles(pattern):
            continue
        tried += 1
        translated += translate(pattern) is not None
    assert tried > 200 and translated > tried // 3, (tried, translated)


def test_the_column_matches_the_planner_on_both_paths(spark: SparkSession) -> None:
    """Java when every cluster's patterns translate, the planner's function in a UDF when one
    does not; the same answers either way, null for a cluster without a desired state."""
    topics = ["_reconciler_lock", "connect-offsets", "qa-sandbox.x", "orders", "TMP-1", "tmp-2"]
    simple = {"a": ("^connect-", r"^(?P<team>qa|perf)-sandbox\."), "b": (), "c": ("[",)}
    flagged = {**simple, "d": ("(?i)^tmp-",)}
    for clusters in (simple, flagged):
        frame = spark.createDataFrame(
            [(c, t) for c in (*clusters, "unknown") for t in topics], "cluster string, topic string"
        )
        got = {
            (r["cluster"], r["topic"]): r["ignored"]
            for r in frame.select(
                "cluster",
                "topic",
                ignored(clusters, F.col("topic"), F.col("cluster")).alias("ignored"),
            ).collect()
        }
        for cluster in (*clusters, "unknown"):
            for topic in topics:
                want = ignored_name(topic, clusters[cluster]) if cluster in clusters else None
                assert got[(cluster, topic)] == want, (clusters, cluster, topic)
    assert re.fullmatch(LEGAL_NAME[1:-1] + "+", "a.B_-9")
