"""JVM options for the Spark JVMs the suite launches to run one job each (a `fleet drift`
command, spark-submit, a standalone cluster's daemons and executors): C1, the JIT's quick tier,
only. A cold driver running the job once on a test fleet spent about a third of its CPU in
the C2 compiler's threads, for code it then ran a few times; with C2 off that CPU is saved
(docs/testing.md has the measurement). The job's own Spark settings are untouched, so these
runs still prove them; only the suite's long-lived SparkSession (tests/fleet/conftest.py),
which runs some forty jobs, keeps both tiers.

Spark's launcher puts SPARK_SUBMIT_OPTS on the driver's command line (spark-submit and
PySpark's own launch alike), and every command the tests run inherits it, except the PySpark
3.5 command of tests/fleet/test_spark_versions.py, which gets no SPARK_* variable: there C1
alone cost more CPU than it saved."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

ONE_JOB = "-XX:TieredStopAtLevel=1"
VARIABLE = "SPARK_SUBMIT_OPTS"


def one_job_drivers() -> None:
    """Every Spark driver this process starts from here on, or its commands start, runs C1
    only (added to whatever SPARK_SUBMIT_OPTS already holds)."""
    held = os.environ.get(VARIABLE, "")
    if ONE_JOB not in held.split():
        os.environ[VARIABLE] = f"{held} {ONE_JOB}".strip()


@contextmanager
def both_tiers() -> Iterator[None]:
    """SPARK_SUBMIT_OPTS without ONE_JOB while a long-lived JVM starts (the launcher reads
    it then), restored after."""
    held = os.environ.get(VARIABLE)
    if held is not None:
        rest = " ".join(o for o in held.split() if o != ONE_JOB)
        if rest:
            os.environ[VARIABLE] = rest
        else:
            del os.environ[VARIABLE]
    try:
        yield
    finally:
        if held is not None:
            os.environ[VARIABLE] = held
