"""One SparkSession for the whole test session (starting a JVM costs seconds), quiet, on
127.0.0.1, with few shuffle partitions: the fleet tests' data is small. PySpark comes with the
`fleet` extra that `make test` installs; without it these tests fail rather than skip."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from reconciler.fleet import job

TEST_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
}


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = job.session("local[2]", TEST_CONF)
    try:
        yield session
    finally:
        session.stop()
