"""spark-submit of the job's entry point, the form docs/fleet.md gives for a Spark cluster:
spark-submit runs reconciler/cli/spark_submit.py (a file, the CLI's `fleet drift`) on the
master it chose; the job itself names none. On a local master, one JVM: test_standalone.py
proves the work reaches a standalone cluster's executors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyspark
import pytest
from pyspark.sql import SparkSession

from reconciler.cli import spark_submit
from reconciler.fleet import job
from tests.fleet.conftest import SmallRun

# a way to deploy the job: `make compat` runs it (docs/testing.md)
pytestmark = pytest.mark.matrix

SPARK_HOME = Path(pyspark.__file__).resolve().parent


def table(spark: SparkSession, out: Path, name: str) -> list[tuple[Any, ...]]:
    rows = spark.read.parquet(str(out / name)).collect()
    return sorted((tuple(str(v) for v in r) for r in rows), key=str)


def test_spark_submit_of_the_entry_point_writes_the_tables_local_writes(
    spark: SparkSession, small_run: SmallRun, tmp_path: Path
) -> None:
    """The arguments of `reconciler fleet drift`, on spark-submit's master: the tables equal
    those the session's job wrote from the same input (small_run)."""
    submitted = subprocess.run(
        [str(SPARK_HOME / "bin" / "spark-submit"), "--master", "local[2]",
             "--driver-memory", "2g",  # as the shared test session (tests/fleet/conftest.py)
         "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
         "--conf", "spark.sql.shuffle.partitions=4",
         spark_submit.__file__, "--desired", str(small_run.desired),
         "--snapshots", str(small_run.snapshots), "--out", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1",
             "PYSPARK_PYTHON": sys.executable, "NO_COLOR": "1"},
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr[-5000:]
    assert "Traceback" not in submitted.stderr, submitted.stderr[-5000:]
    assert "drift row(s)" in submitted.stdout
    out = tmp_path / "out"
    for name in job.TABLES:
        assert table(spark, out, name) == table(spark, small_run.out, name), name
    assert (out / "summary.md").read_text() == (small_run.out / "summary.md").read_text()
