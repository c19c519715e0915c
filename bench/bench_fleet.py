"""`reconciler fleet drift` on a synthetic fleet, next to the Python planner over the same data.

Generates a fleet with bench/fleet_gen.py (default 100 clusters x 10,000 topics x 7 dates,
seeded), writes the compiled desired state and the snapshot lines, then measures in one run:

- the Spark job: `reconciler fleet drift --master local[2]` in a subprocess (wall time; peak
  RSS of the driver: the Python process and the JVM, read from /proc while it runs);
- the Python planner over the same files: for every cluster and date, the snapshot lines
  loaded (reconciler.cluster.jsonl.load), `make_plan` and `drift`, one process, one core, as
  `reconciler drift` does it (wall time, its peak RSS); the desired states it plans against
  are built in memory beforehand and not timed, which favours it.

Both must find the same number of drift items (the planner's less the blocked items of rules
only it decides: fleet/drift_columns.py PLANNER_ONLY). Generated data is kept in --data (default a
directory under /tmp named after the shape) and reused when present.

    .venv/bin/python -m bench.bench_fleet [--clusters 100 --topics 10000 --dates 7]
        [--master local[2]] [--driver-memory 6g] [--data DIR] [--skip-python] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import fleet_gen
from reconciler.cluster import jsonl
from reconciler.fleet.drift_columns import PLANNER_ONLY
from reconciler.planning.drift import drift
from reconciler.planning.plan import make_plan


def generate(shape: fleet_gen.Shape, data: Path) -> dict[str, object]:
    done = data / "done.json"
    if done.is_file():
        return dict(json.loads(done.read_text()), reused=True)
    shutil.rmtree(data, ignore_errors=True)
    began = time.monotonic()
    written = fleet_gen.write(shape, data / "desired", data / "snapshots")
    size = sum(p.stat().st_size for p in (data / "snapshots").rglob("*.jsonl"))
    facts: dict[str, object] = {
        "clusters": written.clusters,
        "snapshots": written.snapshots,
        "topic_lines": written.topic_lines,
        "desired_lines": written.desired_lines,
        "snapshot_mib": round(size / 2**20),
        "generated_in_s": round(time.monotonic() - began, 1),
    }
    done.write_text(json.dumps(facts))
    return facts


def _tree(pid: int) -> list[int]:
    """pid and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _hwm_kib(pid: int) -> tuple[str, int] | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return name, int(line.split()[1])
    return None


def run_spark(data: Path, out: Path, master: str, driver_memory: str) -> dict[str, object]:
    command = [
        sys.executable, "-m", "reconciler", "fleet", "drift",
        "--desired", str(data / "desired"), "--snapshots", str(data / "snapshots"),
        "--out", str(out), "--master", master,
        "--conf", f"spark.driver.memory={driver_memory}",
    ]  # fmt: skip
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    peaks: dict[int, tuple[str, int]] = {}
    began = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for pid in _tree(proc.pid):
                got = _hwm_kib(pid)
                if got is not None:
                    peaks[pid] = (got[0], max(got[1], peaks.get(pid, ("", 0))[1]))
            stop.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.monotonic() - began
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"fleet drift exited {proc.returncode}: {stderr.decode()[-3000:]}")
    jvm = max((kib for name, kib in peaks.values() if name == "java"), default=0)
    python = max((kib for name, kib in peaks.values() if name.startswith("python")), default=0)
    return {
        "wall_s": round(wall, 1),
        "driver_jvm_peak_rss_mib": round(jvm / 1024),
        "driver_python_peak_rss_mib": round(python / 1024),
        "output": stdout.decode().strip().splitlines()[0],
    }


def run_python(shape: fleet_gen.Shape, data: Path) -> dict[str, object]:
    """The planner over every cluster and date, reading the same snapshot files."""
    desired = {g.config.name: (g.config, g.desired) for g in _desired_only(shape)}
    began = time.monotonic()
    items = planner_only = 0
    load_s = plan_s = 0.0
    for path in sorted((data / "snapshots").rglob("*.jsonl")):
        t0 = time.monotonic()
        cluster, _, state = jsonl.load(path)
        t1 = time.monotonic()
        config, specs = desired[cluster]
        report = drift(make_plan(specs, state, config, based_on=""), specs, state)
        items += len(report.items)
        # the blocked items of rules only the planner decides (fleet/drift_columns.py PLANNER_ONLY:
        # here mostly the KIP-578 limits, which the generated fleet sets low on purpose)
        planner_only += sum(
            1 for i in report.items if i.kind == "blocked" and i.field in PLANNER_ONLY
        )
        load_s += t1 - t0
        plan_s += time.monotonic() - t1
    return {
        "wall_s": round(time.monotonic() - began, 1),
        "load_snapshots_s": round(load_s, 1),
        "plan_and_drift_s": round(plan_s, 1),
        "drift_items": items,
        # what the job's drift table holds: every item but those of PLANNER_ONLY rules
        "drift_items_the_job_computes": items - planner_only,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _desired_only(shape: fleet_gen.Shape) -> list[fleet_gen.GeneratedCluster]:
    """The clusters' configs and desired states without their snapshot states (memory)."""
    kept = []
    for generated in fleet_gen.clusters(shape):
        kept.append(fleet_gen.GeneratedCluster(generated.config, generated.desired, ()))
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--dates", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--skip-python", action="store_true")
    parser.add_argument("--out", type=Path, help="keep the job's tables and pages here")
    args = parser.parse_args()
    shape = fleet_gen.Shape(
        clusters=args.clusters, topics=args.topics, dates=args.dates, seed=args.seed,
        inherited=False,
    )  # fmt: skip
    name = f"fleet-{shape.clusters}x{shape.topics}x{shape.dates}-s{shape.seed}"
    data = args.data or Path(tempfile.gettempdir()) / name
    load = os.getloadavg()
    print(
        f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}",
        flush=True,
    )
    print(json.dumps({"data": str(data), **generate(shape, data)}), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        out = args.out or Path(tmp) / "out"
        spark = run_spark(data, out, args.master, args.driver_memory)
        print(json.dumps({"spark": spark}), flush=True)
        if not args.skip_python:
            python = run_python(shape, data)
            print(json.dumps({"python_planner": python}), flush=True)
            speedup = float(str(python["wall_s"])) / float(str(spark["wall_s"]))
            rows = int(str(spark["output"]).split(": ", 1)[1].split(" drift")[0].replace(",", ""))
            same = rows == python["drift_items_the_job_computes"]
            print(json.dumps({"speedup": round(speedup, 2), "same_drift_count": same}), flush=True)
            if not same:
                raise SystemExit(f"the job found {rows} drift rows, the planner {python}")
    load = os.getloadavg()
    print(f"# load average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)


if __name__ == "__main__":
    main()
