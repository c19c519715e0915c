"""The job against a Spark standalone cluster: a master and one worker started on 127.0.0.1
from the pyspark distribution's own scripts, the job submitted from the CLI (`reconciler fleet
drift --master spark://...`). The worker's Python has PySpark but not reconciler (nor its
dependencies): the job ships what its executors run. Its tables must equal what `local[*]`
writes from the same input."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyspark
import pytest
from pyspark.sql import SparkSession

from bench import fleet_gen
from reconciler.fleet import job
from reconciler.fleet.java_regex import translate
from tests import spark_jvm
from tests.spec_repo import run_cli

# a way to deploy the job: `make compat` runs it (docs/testing.md)
pytestmark = pytest.mark.matrix

SPARK_HOME = Path(pyspark.__file__).resolve().parent
MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"
SHAPE = fleet_gen.Shape(clusters=6, topics=20, dates=3, seed=5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(path: Path, text: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for log in path.glob("*.out"):
            if text in log.read_text(errors="replace"):
                return
        time.sleep(0.5)
    logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in path.glob("*.out"))
    pytest.fail(f"no {text!r} in the standalone cluster's logs within {timeout} s:\n{logs}")


def ours(work: Path) -> list[int]:
    """Processes whose working directory or command line lies in `work` (the daemons and the
    executors the worker started there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(work)) or str(work) in command:
            found.append(int(entry.name))
    return found


def stop(pids: list[int]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while alive and time.monotonic() < deadline:
            alive = [p for p in alive if Path(f"/proc/{p}").exists()]
            time.sleep(0.2)
        if not alive:
            return


def bare_python(folder: Path) -> Path:
    """A virtualenv's Python that imports pyspark and py4j (this one's, linked, not copied:
    no download) and nothing else outside the standard library."""
    venv.EnvBuilder(with_pip=False).create(folder)
    linked = folder / "linked"
    linked.mkdir()
    for package in ("pyspark", "py4j"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        where = Path(next(iter(spec.submodule_search_locations))).resolve()
        (linked / where.name).symlink_to(where)
    (site,) = folder.glob("lib/python*/site-packages")
    (site / "linked.pth").write_text(f"{linked}\n")
    return folder / "bin" / "python"


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    work = tmp_path_factory.mktemp("spark-standalone")
    worker_python = bare_python(work / "bare")
    for module, found in (("pyspark", 0), ("reconciler", 1), ("regex", 1), ("yaml", 1)):
        probe = subprocess.run(
            [str(worker_python), "-c", f"import {module}"],
            cwd=work, env={"PATH": "/usr/bin:/bin"}, capture_output=True, check=False,
        )  # fmt: skip
        assert probe.returncode == found, (module, probe.stderr)
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_MASTER_HOST": "127.0.0.1",
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(work / "logs"),
        "SPARK_PID_DIR": str(work / "pids"),
        "SPARK_WORKER_DIR": str(work / "worker"),
        "SPARK_IDENT_STRING": "reconciler-test",
        "PYSPARK_PYTHON": str(worker_python),  # the executors' Python, as the driver says
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "SPARK_DAEMON_JAVA_OPTS": spark_jvm.ONE_JOB,  # the master's and worker's JVMs
    }
    daemon = ["bash", str(SPARK_HOME / "sbin" / "spark-daemon.sh")]
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    pids: list[int] = []
    try:
        subprocess.run(
            [*daemon, "start", MASTER, "1", "--host", "127.0.0.1", "--port", str(port),
             "--webui-port", str(free_port())],
            env=env, check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        pids += [int(p.read_text()) for p in (work / "pids").glob("*.pid")]
        wait_for(work / "logs", f"Starting Spark master at {url}")
        subprocess.run(
            [*daemon, "start", WORKER, "1", "--host", "127.0.0.1", "--port", str(free_port()),
             "--webui-port", str(free_port()), "--cores", "2", "--memory", "1g", url],
            env=env, check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        pids += [int(p.read_text()) for p in (work / "pids").glob("*Worker*.pid")]
        wait_for(work / "logs", "Registering worker 127.0.0.1")
        yield url, env
    finally:
        for daemon_class in (WORKER, MASTER):
            subprocess.run(
                [*daemon, "stop", daemon_class, "1"], env=env, capture_output=True, timeout=60,
                check=False,
            )  # fmt: skip
        stop([*pids, *ours(work)])
        assert not [p for p in pids if Path(f"/proc/{p}").exists()], "a daemon outlived stop"


def table(spark: SparkSession, out: Path, name: str) -> list[tuple[Any, ...]]:
    rows = spark.read.parquet(str(out / name)).collect()
    return sorted((tuple(str(v) for v in r) for r in rows), key=str)


def test_the_cli_on_a_standalone_cluster_writes_the_tables_local_writes(
    spark: SparkSession,
    standalone: tuple[str, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, env = standalone
    fleet_gen.write(SHAPE, tmp_path / "desired", tmp_path / "snapshots")
    # a pattern only Python reads (an inline flag): the executors run reconciler's own match
    # (names.py) in a Python UDF
    case_blind = r"(?i)^(?:qa|perf)-sandbox\."
    assert translate(case_blind) is None
    for path in (tmp_path / "desired").glob("*.jsonl"):
        lines = path.read_text().splitlines()
        header = json.loads(lines[0])
        header["ignore"] = [*header["ignore"], case_blind]
        path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    local = tmp_path / "local"
    job.run(spark, str(tmp_path / "desired"), str(tmp_path / "snapshots"), str(local))

    remote = tmp_path / "remote"
    for key in ("SPARK_HOME", "SPARK_LOCAL_IP", "PYSPARK_PYTHON"):
        monkeypatch.setenv(key, env[key])  # run_cli passes this process's environment on
    submitted = run_cli(
        tmp_path, "127.0.0.1:1", "fleet", "drift", "--master", url,
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.sql.shuffle.partitions=4", "--conf", "spark.executor.memory=1g",
        "--conf", f"spark.executor.extraJavaOptions={spark_jvm.ONE_JOB}",  # one job: C1 only
        "--desired", str(tmp_path / "desired"), "--snapshots", str(tmp_path / "snapshots"),
        "--out", str(remote), timeout=600,
    )  # fmt: skip
    assert submitted.code == 0, submitted.stdout + submitted.stderr[-5000:]
    assert "drift row(s)" in submitted.stdout
    # the work ran on the standalone cluster: its worker started an executor for the app
    assert any((Path(env["SPARK_WORKER_DIR"])).glob("app-*/0"))
    for name in job.TABLES:
        assert table(spark, remote, name) == table(spark, local, name), name
    assert (remote / "summary.md").read_text() == (local / "summary.md").read_text()
