"""One SparkSession for the whole test session (starting a JVM costs seconds), quiet, on
127.0.0.1, with few shuffle partitions and no code generation: the fleet tests' data is small.
PySpark comes with the `fleet` extra that `make test` installs; without it these tests fail
rather than skip."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from bench import fleet_gen
from reconciler.fleet import job
from tests.spark_jvm import both_tiers

# The fleets here are a few hundred rows, where Spark's planning, not the data, is the cost:
# adaptive re-planning, Janino compiles and plan text were about half of a job's CPU
# (docs/fleet.md, "Spark versions"). Off for the shared session: measured 64 s of JVM CPU
# against 114 s for a warm run of SMALL.
PLANNING_LIGHT = {
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.maxPlanStringLength": "1000",
}

TEST_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    # One session serves every fleet test (some forty job runs, a 200 MB line among the
    # inputs): at the default 1 GiB its driver ran out of heap late in the run, in a parquet
    # write; a CLI run is one job a JVM and keeps the default
    "spark.driver.memory": "2g",
    **PLANNING_LIGHT,
}

# The same for a CLI run of the job in a JVM of its own (`--conf` options), where the test is
# about something else than Spark's planning (an s3a store, a failing write): the job's own
# settings are proven by test_standalone, test_spark_submit, test_spark_versions and
# tests/adopt/test_installed_fleet.py, which start their JVMs with the job's settings alone.
LIGHT_CONF = [arg for key, value in PLANNING_LIGHT.items() for arg in ("--conf", f"{key}={value}")]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    with both_tiers():  # it runs some forty jobs: C2's compiles pay off here
        session = job.session("local[2]", TEST_CONF)
    try:
        yield session
    finally:
        session.stop()


@dataclass(frozen=True)
class SmallRun:
    """A small generated fleet and the job's output for it, on the session's SparkSession."""

    desired: Path
    snapshots: Path
    out: Path


# Six clusters over five nights: every chart of report.html has something to draw
SMALL = fleet_gen.Shape(clusters=6, topics=20, dates=5, seed=5)


@pytest.fixture(scope="session")
def small_run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> SmallRun:
    root = tmp_path_factory.mktemp("small-fleet")
    fleet_gen.write(SMALL, root / "desired", root / "snapshots")
    job.run(spark, str(root / "desired"), str(root / "snapshots"), str(root / "out"))
    return SmallRun(root / "desired", root / "snapshots", root / "out")


# A clean fleet and the job's output for it, which test_inputs.py and test_whole.py copy,
# spoil in one way each and compare with: one job for both files, as a job on the session
# costs some 35 to 45 CPU s of planning and compiling whatever its rows (docs/testing.md,
# "One job where one does")
CLEAN = fleet_gen.Shape(clusters=4, topics=12, dates=3, seed=23, edge_cases=False)


@pytest.fixture(scope="session")
def clean(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CLEAN's desired/, snapshots/ and out/ (the job's tables): copy before changing any."""
    root = tmp_path_factory.mktemp("clean")
    fleet_gen.write(CLEAN, root / "desired", root / "snapshots")
    job.run(spark, str(root / "desired"), str(root / "snapshots"), str(root / "out"))
    return root
