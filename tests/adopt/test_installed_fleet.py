"""`reconciler fleet drift` from the wheel with the `fleet` extra, in a fresh virtualenv outside
the checkout, run by its absolute path with a minimal environment (`env -i`), as pipx, cron or
a CI step runs it: nothing activated, `python3` on PATH the system's, which lacks reconciler.
A cluster's policy.ignore needs Python's regex dialect, so Spark's Python workers run
reconciler's own match: the tables must still equal the Python planner's."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from bench import fleet_gen
from reconciler.fleet.java_regex import translate
from tests.adopt.conftest import Installed
from tests.fleet.test_differential import Fleet, python_drift, spark_drift

# a way to deploy the job (pip install of the wheel): `make compat` runs it (docs/testing.md)
pytestmark = pytest.mark.matrix

SHAPE = fleet_gen.Shape(clusters=4, topics=12, dates=2, seed=31)
# An inline flag: Python's dialect only, so the job matches it in a Python UDF on the workers
CASE_BLIND = r"(?i)^(?:qa|perf)-sandbox\."
CACHE = Path(os.environ.get("RECONCILER_CACHE", Path.home() / ".cache" / "reconciler"))

# The drift table as JSON lines, read with the installed venv's own pyspark
_DUMP = """
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1").getOrCreate())
for r in spark.read.parquet(sys.argv[1]).collect():
    print(json.dumps(r.asDict(), default=str))
spark.stop()
"""


def test_fleet_drift_runs_from_a_pip_install_with_a_bare_environment(
    installed: Installed, tmp_path: Path
) -> None:
    pip = subprocess.run(
        [str(installed.bin / "pip"), "install", "-q", f"{installed.wheel}[fleet]"],
        env={**os.environ, "PIP_CACHE_DIR": str(CACHE / "pip")},
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    fleet_gen.write(SHAPE, tmp_path / "desired", tmp_path / "snapshots")
    assert translate(CASE_BLIND) is None  # the job's Python UDF path, run by Spark's workers
    for path in (tmp_path / "desired").glob("*.jsonl"):  # every cluster's policy.ignore gets it
        lines = path.read_text().splitlines()
        header = json.loads(lines[0])
        header["ignore"] = [*header["ignore"], CASE_BLIND]
        path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "out"
    ran = subprocess.run(
        ["env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}",
         str(installed.bin / "reconciler"), "fleet", "drift", "--master", "local[2]",
         "--desired", str(tmp_path / "desired"), "--snapshots", str(tmp_path / "snapshots"),
         "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr and "drift row(s)" in ran.stdout

    dumped = subprocess.run(
        [str(installed.bin / "python"), "-c", _DUMP, str(out / "drift")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [json.loads(line) for line in dumped.stdout.splitlines() if line.startswith("{")]
    generated = tuple(
        replace(g, config=replace(g.config, policy=replace(
            g.config.policy, ignore=(*g.config.policy.ignore, CASE_BLIND))))
        for g in fleet_gen.clusters(SHAPE)
    )  # fmt: skip
    fleet = Fleet(generated, out, {"drift": rows}, "")
    expected = python_drift(fleet)
    assert sum(len(v) for v in expected.values()) > 0
    assert spark_drift(fleet) == {k: v for k, v in expected.items() if v}
