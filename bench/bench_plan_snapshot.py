"""`reconciler plan --state SNAPSHOT` at 10,000 and 100,000 topics: wall time and peak RSS.

No broker is involved: the state comes from a snapshot file shaped like one of a Kafka 4.1
cluster (three racked brokers, every topic carrying every topic config Kafka reports, its
overrides as DYNAMIC_TOPIC_CONFIG and the rest as DEFAULT_CONFIG or inherited from the
broker), so the figures isolate what reconciler itself costs: loading the specs, reading the
snapshot, planning and printing. The spec repository is bench_plan.py's (50 topics per file;
about 90% unchanged, 5% with a config change, 3% growing partitions, 2% new).

    .venv/bin/python -m bench.bench_plan_snapshot [--sizes 10000 100000] [--runs 3]

Peak RSS is the child's ru_maxrss (interpreter, imports, specs, state and plan), measured one
size at a time in a fresh process each run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_plan import kind, write_repo
from reconciler.spec.catalog import CATALOG

BROKERS = (1, 2, 3)
# What a broker of the local test clusters sets itself (STATIC_BROKER_CONFIG when inherited).
STATIC = {"min.insync.replicas": "1", "segment.bytes": "1073741824"}


def snapshot(size: int, prefix: str) -> dict[str, object]:
    """A snapshot of the cluster bench_plan.create_topics would have made, without a cluster."""
    topics = []
    for i in range(size):
        if kind(i) == "new":
            continue
        name = f"{prefix}.t{i:05d}"
        configs: dict[str, list[object]] = {}
        for key, defn in sorted(CATALOG.items()):
            if key == "retention.ms":
                configs[key] = ["86400000", "DYNAMIC_TOPIC_CONFIG"]
            elif key in STATIC:
                configs[key] = [STATIC[key], "STATIC_BROKER_CONFIG"]
            elif defn.default is not None:
                configs[key] = [defn.default, "DEFAULT_CONFIG"]
        leader = BROKERS[i % len(BROKERS)]
        topics.append(
            {
                "name": name,
                "topic_id": f"{i:022d}",
                "internal": False,
                "partitions": [
                    {"partition": 0, "leader": leader, "replicas": [leader], "isr": [leader]}
                ],
                "configs": configs,
            }
        )
    return {
        "format_version": 1,
        "cluster": "bench",
        "taken_at": "2026-11-25T00:00:00+00:00",
        "cluster_id": "bench-cluster",
        "controller_id": 1,
        "brokers": [
            {"id": b, "host": "127.0.0.1", "port": 9090 + b, "rack": "abc"[b - 1]} for b in BROKERS
        ],
        "broker_defaults": {"num.partitions": "1", "default.replication.factor": "1", **STATIC},
        "topics": topics,
        "reassignments": [],
    }


def run_plan(root: Path, state: Path) -> tuple[float, float, dict[str, int]]:
    """One `plan --state` in a fresh process: (wall seconds, peak RSS MiB, plan summary)."""
    code = (
        "import resource, runpy, sys\n"
        "sys.argv = ['reconciler'] + sys.argv[1:]\n"
        "try:\n"
        "    runpy.run_module('reconciler', run_name='__main__')\n"
        "finally:\n"
        "    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "    print(f'RSS {rss}', file=sys.stderr)\n"
    )
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", code, "--repo", str(root), "plan", "--cluster", "bench",
         "--state", str(state), "--format", "json", "--detailed-exitcode"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.monotonic() - began
    if proc.returncode != 2:
        raise SystemExit(f"plan exited {proc.returncode}: {proc.stderr[-2000:]}")
    rss_kib = int(proc.stderr.rsplit("RSS ", 1)[1].split()[0])
    return wall, rss_kib / 1024, dict(json.loads(proc.stdout)["summary"])


def measure(size: int, runs: int, work: Path) -> dict[str, object]:
    prefix = f"b{size}"
    root = work / f"repo{size}"
    write_repo(root, "127.0.0.1:1", size, prefix)
    state = work / f"state{size}.json"
    state.write_text(json.dumps(snapshot(size, prefix)))
    walls, rss = [], []
    summary: dict[str, int] = {}
    for _ in range(runs):
        wall, peak, summary = run_plan(root, state)
        walls.append(wall)
        rss.append(peak)
    return {
        "topics": size,
        "snapshot_mib": round(state.stat().st_size / 2**20, 1),
        "summary": summary,
        "wall_best_s": round(min(walls), 2),
        "wall_median_s": round(statistics.median(walls), 2),
        "peak_rss_mib": round(max(rss)),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="bench-plan-snapshot-") as tmp:
        for size in args.sizes:
            print(json.dumps(measure(size, args.runs, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
