"""`reconciler plan` end to end against a real local cluster holding 1,000 and 10,000 topics.

Starts its own three-broker KRaft cluster (racks a/b/c, every request logged), creates the
topics through a few batched CreateTopics, writes a spec repository describing them (50 topics
per file; about 90% unchanged, 5% with a config change, 3% growing partitions, 2% new), then
runs `reconciler plan --cluster bench --format json` in a subprocess. Measured per size:

- wall time of the whole command (best and median of N runs), and its peak RSS (ru_maxrss of
  the child: interpreter, imports, specs, state and plan);
- the round trips it sent, counted by the brokers (requests.log lines with the run's own
  client.id, forwarded copies left out);
- in-process split: loading the specs, reading the state, planning.

    .venv/bin/python bench/bench_plan.py [--sizes 1000 10000] [--runs 3]

Brokers get `--jvm-opts` (default a 2 GiB heap: with the test clusters' 512 MiB a broker
holding 10,000 partitions spends most of its time in full GCs). The cluster is stopped at the
end (and dies with this process if it is killed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.cluster import JVM_OPTS_ENV, default_overrides
from reconciler.local.distribution import ensure_distribution
from reconciler.planning.plan import make_plan
from reconciler.workflow.connection import read_state
from reconciler.workflow.context import Context
from tests.request_log import requests_by

PER_FILE = 50


def kind(i: int) -> str:
    """Which change topic i gets: unchanged, config, grow or new (deterministic)."""
    slot = i % 100
    if slot < 2:
        return "new"
    if slot < 5:
        return "grow"
    if slot < 10:
        return "config"
    return "same"


def create_topics(bootstrap: str, size: int, prefix: str) -> float:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = []
    began = time.monotonic()
    batch: list[NewTopic] = []
    for i in range(size):
        if kind(i) == "new":
            continue
        name = f"{prefix}.t{i:05d}"
        names.append(name)
        batch.append(NewTopic(name, 1, 1, config={"retention.ms": "86400000"}))
        if len(batch) == 1000:
            for future in admin.create_topics(batch, operation_timeout=120).values():
                future.result()
            batch = []
    if batch:
        for future in admin.create_topics(batch, operation_timeout=120).values():
            future.result()
    # Brokers learn new topics from the controller asynchronously: wait until several metadata
    # reads in a row (answered by whichever broker librdkafka picks) list every topic.
    wanted, agreeing = set(names), 0
    while agreeing < 6:
        agreeing = agreeing + 1 if wanted <= set(admin.list_topics(timeout=30).topics) else 0
        time.sleep(0.5)
    return time.monotonic() - began


def write_repo(root: Path, bootstrap: str, size: int, prefix: str) -> None:
    (root / "topics").mkdir(parents=True)
    clusters = {"bench": {"bootstrap": bootstrap, "client": {"client.id": "bench"},
                          "policy": {"ignore": ["^_"]}}}  # fmt: skip
    (root / "reconciler.yaml").write_text(yaml.safe_dump({"clusters": clusters}))
    for start in range(0, size, PER_FILE):
        topics = []
        for i in range(start, min(start + PER_FILE, size)):
            change = kind(i)
            topics.append(
                {
                    "name": f"{prefix}.t{i:05d}",
                    "partitions": 2 if change == "grow" else 1,
                    "replication_factor": 1,
                    "config": {"retention.ms": "2d" if change == "config" else "1d"},
                }
            )
        path = root / "topics" / f"team{start // 1000:02d}" / f"f{start:05d}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump({"topics": topics}, sort_keys=False))


def set_client_id(root: Path, client_id: str) -> None:
    config = yaml.safe_load((root / "reconciler.yaml").read_text())
    config["clusters"]["bench"]["client"]["client.id"] = client_id
    (root / "reconciler.yaml").write_text(yaml.safe_dump(config))


def run_cli(root: Path) -> tuple[float, dict[str, int]]:
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "reconciler", "--repo", str(root), "plan", "--cluster", "bench",
         "--format", "json", "--detailed-exitcode"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.monotonic() - began
    if proc.returncode != 2:
        raise SystemExit(f"plan exited {proc.returncode}: {proc.stderr[-2000:]}")
    return wall, dict(json.loads(proc.stdout)["summary"])


def measure(cl: local_state.LocalCluster, size: int, runs: int, work: Path) -> dict[str, object]:
    prefix = f"b{size}"
    created = create_topics(cl.bootstrap, size, prefix)
    root = work / f"repo{size}"
    write_repo(root, cl.bootstrap, size, prefix)

    walls: list[float] = []
    trips: list[Counter[str]] = []
    summary: dict[str, int] = {}
    for run in range(runs):
        client_id = f"bench-{size}-{run}"
        set_client_id(root, client_id)
        wall, summary = run_cli(root)
        walls.append(wall)
        trips.append(requests_by(cl, client_id))
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    t0 = time.monotonic()
    specs = Context(root).specs("bench")
    t1 = time.monotonic()
    state = read_state(specs.cluster)
    t2 = time.monotonic()
    make_plan(specs.desired, state, specs.cluster, based_on="")
    t3 = time.monotonic()
    return {
        "topics": size,
        "created_in_s": round(created, 1),
        "summary": summary,
        "wall_best_s": round(min(walls), 2),
        "wall_median_s": round(statistics.median(walls), 2),
        "peak_rss_mib": round(rss_mib),
        "round_trips_per_run": [sum(t.values()) for t in trips],
        "round_trips_by_api_first_run": dict(sorted(trips[0].items())),
        "load_specs_s": round(t1 - t0, 2),
        "read_state_s": round(t2 - t1, 2),
        "make_plan_s": round(t3 - t2, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--jvm-opts", default="-Xms1g -Xmx2g", help="extra broker JVM options (heap for 10k+)"
    )
    args = parser.parse_args()
    os.environ[JVM_OPTS_ENV] = args.jvm_opts
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 65536), hard), hard))
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        work = Path(tmp)
        began = time.monotonic()
        cl = local_cluster.start(
            work / "kafka", ensure_distribution(), brokers=3, overrides=default_overrides(3),
            tie_to_parent=True, request_log=True,
        )  # fmt: skip
        print(f"# 3-broker cluster started in {time.monotonic() - began:.1f} s")
        try:
            for size in sorted(args.sizes):
                print(json.dumps(measure(cl, size, args.runs, work)), flush=True)
        finally:
            local_cluster.stop(cl)


if __name__ == "__main__":
    main()
