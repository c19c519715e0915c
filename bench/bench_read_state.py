"""Reading the state of 1,000 and 10,000 topics, next to the brokers' own time for the requests.

Starts its own three-broker KRaft cluster (every request logged), creates the topics `r.tNNNNN`
(one config override each) in batches of 1,000, and per size measures:

- `workflow.read_state` in this process, N runs: wall time (best, median), this process's CPU
  time, and the brokers' own time for that run's requests: each broker logs every request it
  served (requests.log, with totalTimeMs and its parts); a run uses a client.id of its own, so
  its lines are its requests. "brokers" is the sum of their totalTimeMs (the requests a client
  sends over one connection are served one after another), "ratio" wall / brokers;
- the peak RSS of a subprocess doing one read (its VmHWM);
- at the largest size, the peak RSS and wall time of a whole `reconciler plan` subprocess (spec
  repository: 50 topics per file, ~90% unchanged, 5% config changes, 3% more partitions, 2% new).

Every figure carries os.getloadavg() at its end (the machine may be shared: repeat when high).
`--baseline PATH` also measures another version of reconciler/cluster/adapter/read.py (a copy
kept outside the repository), alternating with the current one run by run, so both see the same
cluster and the same load.

    .venv/bin/python bench/bench_read_state.py [--sizes 1000 10000] [--runs 3]
        [--baseline /tmp/read_orig.py] [--no-plan]

Brokers get `--jvm-opts` (default a 2 GiB heap). The cluster is stopped at the end (and dies
with this process if it is killed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PER_FILE = 50
PREFIX = "r"
OVERRIDE = {"retention.ms": "86400000"}
_TIMES = re.compile(r'"(\w+TimeMs)":([\d.]+)')
_HEADER = re.compile(r'"requestApiKeyName":"(\w+)"')
_TOPIC_RESOURCE = '"resourceType":2,"resourceName"'


def use_read_module(path: str | None) -> None:
    """Make Cluster use the read.py at `path` instead of the current one (None: keep)."""
    if path is None:
        return
    from reconciler.cluster.adapter import cluster

    spec = importlib.util.spec_from_file_location("reconciler_read_variant", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cluster.read = module  # type: ignore[attr-defined]  # Cluster calls read.<function> at call time


# --- the children: one read, or one plan, under their own ru_maxrss ------------------------------


def child(mode: str, root: Path, variant: str | None, rss_file: Path) -> None:
    try:
        use_read_module(variant)
        if mode == "read":
            from reconciler.workflow.connection import read_state
            from reconciler.workflow.context import Context

            state = read_state(Context(root).cluster_config("bench"))
            print(len(state.topics))
            return
        from reconciler.cli import main

        try:
            main(["--repo", str(root), "plan", "--cluster", "bench", "--format", "json",
                  "--detailed-exitcode"])  # fmt: skip
        except SystemExit as exc:
            raise SystemExit(exc.code) from None
    finally:
        rss_file.write_text(str(peak_rss_kib()))


def peak_rss_kib() -> int:
    """This process's peak resident set (VmHWM). Not ru_maxrss: a child's ru_maxrss starts at
    its parent's RSS at fork time (Linux carries the forked memory's high-water mark over exec),
    which would make a child of this big parent look as big as the parent."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_child(mode: str, root: Path, variant: str | None) -> tuple[float, float, str]:
    """(wall s, peak RSS MiB, stdout) of one child."""
    with tempfile.TemporaryDirectory(prefix="bench-child-") as tmp:
        rss_file = Path(tmp) / "rss"
        cmd = [sys.executable, __file__, "--child", mode, "--repo", str(root),
               "--rss-file", str(rss_file)]  # fmt: skip
        if variant is not None:
            cmd += ["--variant", variant]
        began = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.monotonic() - began
        expected = 2 if mode == "plan" else 0  # plan --detailed-exitcode: 2 = changes to make
        if proc.returncode != expected:
            raise SystemExit(f"{mode} child exited {proc.returncode}: {proc.stderr[-2000:]}")
        return wall, int(rss_file.read_text()) / 1024, proc.stdout


# --- the cluster, its topics and a spec repository ----------------------------------------------


def kind(i: int) -> str:
    """Which change topic i's spec asks for (as bench_plan.py): same, config, grow; 2% of the
    specs are extra topics the cluster does not have."""
    slot = i % 100
    if slot < 2:
        return "new"
    if slot < 5:
        return "grow"
    if slot < 10:
        return "config"
    return "same"


def name(i: int) -> str:
    return f"{PREFIX}.t{i:05d}"


def create_topics(bootstrap: str, start: int, end: int) -> float:
    """Create topics start..end-1 in batches of 1,000; wait until metadata lists them all."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    began = time.monotonic()
    there = set(admin.list_topics(timeout=30).topics)
    names = [name(i) for i in range(start, end) if name(i) not in there]
    for first in range(0, len(names), 1000):
        batch = [NewTopic(n, 1, 1, config=dict(OVERRIDE)) for n in names[first : first + 1000]]
        for future in admin.create_topics(batch, operation_timeout=120).values():
            future.result()
    # Brokers learn new topics from the controller asynchronously: wait until several metadata
    # reads in a row (answered by whichever broker librdkafka picks) list every topic.
    wanted, agreeing = {name(i) for i in range(end)}, 0
    while agreeing < 6:
        agreeing = agreeing + 1 if wanted <= set(admin.list_topics(timeout=30).topics) else 0
        time.sleep(0.5)
    return time.monotonic() - began


def write_repo(root: Path, bootstrap: str, size: int) -> None:
    import yaml

    (root / "topics").mkdir(parents=True, exist_ok=True)
    for old in (root / "topics").rglob("*.yaml"):
        old.unlink()
    clusters = {"bench": {"bootstrap": bootstrap, "client": {"client.id": "bench"},
                          "policy": {"ignore": ["^_"]}}}  # fmt: skip
    (root / "reconciler.yaml").write_text(yaml.safe_dump({"clusters": clusters}))
    for start in range(0, size, PER_FILE):
        topics = []
        for i in range(start, min(start + PER_FILE, size)):
            change = kind(i)
            topics.append(
                {
                    "name": name(i),
                    "partitions": 2 if change == "grow" else 1,
                    "replication_factor": 1,
                    "config": {"retention.ms": "2d" if change == "config" else "1d"},
                }
            )
            if change == "new":
                topics.append(dict(topics[-1], name=f"{PREFIX}.new{i:05d}"))
        path = root / "topics" / f"team{start // 1000:02d}" / f"f{start:05d}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump({"topics": topics}, sort_keys=False))


def set_client_id(root: Path, client_id: str) -> None:
    import yaml

    config = yaml.safe_load((root / "reconciler.yaml").read_text())
    config["clusters"]["bench"]["client"]["client.id"] = client_id
    (root / "reconciler.yaml").write_text(yaml.safe_dump(config))


# --- the brokers' own time ----------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    """One request as a broker logged it."""

    node: int
    api: str
    topics: int  # topic resources in a DescribeConfigs request
    times: dict[str, float]  # totalTimeMs, requestQueueTimeMs, localTimeMs, ...


class RequestLogs:
    """The brokers' requests.log files, read from where the last look ended."""

    def __init__(self, cluster: Any) -> None:
        self.paths = {n.id: cluster.node_dir(n) / "requests.log" for n in cluster.nodes}
        self.offsets = {node: self._size(path) for node, path in self.paths.items()}

    @staticmethod
    def _size(path: Path) -> int:
        return path.stat().st_size if path.exists() else 0

    def mark(self) -> None:
        self.offsets = {node: self._size(path) for node, path in self.paths.items()}

    def served(self, client_id: str, settle: float = 1.0) -> list[Served]:
        """The requests `client_id` sent since the last mark (forwarded copies left out); waits
        `settle` seconds first, since brokers append to the log asynchronously."""
        time.sleep(settle)
        needle = f'"clientId":"{client_id}"'
        found = []
        for node, path in self.paths.items():
            if not path.exists():
                continue
            with path.open("rb") as log:
                log.seek(self.offsets[node])
                for raw in log:
                    head = raw[:400].decode("utf-8", "replace")
                    if needle not in head or '"isForwarded":false' not in head:
                        continue
                    line = raw.decode("utf-8", "replace")
                    api = _HEADER.search(head)
                    tail = line[line.rfind('"connection":') :]
                    request = line[: line.find('"response":')]
                    found.append(
                        Served(
                            node=node,
                            api=api.group(1) if api else "?",
                            topics=request.count(_TOPIC_RESOURCE),
                            times={k: float(v) for k, v in _TIMES.findall(tail)},
                        )
                    )
        self.mark()
        return found


def brokers_ms(served: list[Served]) -> float:
    return sum(s.times.get("totalTimeMs", 0.0) for s in served)


def by_api(served: list[Served]) -> dict[str, dict[str, float]]:
    """Per API: requests, and the sum of each time."""
    out: dict[str, dict[str, float]] = {}
    for s in served:
        row = out.setdefault(s.api, {"n": 0})
        row["n"] += 1
        for key in ("totalTimeMs", "localTimeMs", "requestQueueTimeMs", "sendTimeMs"):
            row[key] = round(row.get(key, 0.0) + s.times.get(key, 0.0), 1)
    return dict(sorted(out.items()))


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# --- the measurements ---------------------------------------------------------------------------


def read_in_process(root: Path, logs: RequestLogs, variant: str | None) -> dict[str, Any]:
    from reconciler.cluster.adapter import cluster
    from reconciler.workflow.connection import read_state
    from reconciler.workflow.context import Context

    original = cluster.read  # type: ignore[attr-defined]
    use_read_module(variant)
    try:
        client_id = f"bench-read-{uuid.uuid4().hex[:8]}"
        set_client_id(root, client_id)
        config = Context(root).cluster_config("bench")
        logs.mark()
        wall0, cpu0 = time.perf_counter(), time.process_time()
        state = read_state(config)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        after = load()
    finally:
        cluster.read = original  # type: ignore[attr-defined]
    served = logs.served(client_id)
    chunks = [(s.node, s.topics) for s in served if s.api == "DESCRIBE_CONFIGS" and s.topics]
    return {
        "topics": len(state.topics),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "brokers_s": round(brokers_ms(served) / 1000, 2),
        "ratio": round(wall / max(brokers_ms(served) / 1000, 1e-9), 2),
        "round_trips": len(served),
        "topic_config_requests_node_topics": chunks,
        "by_api": by_api(served),
        "load": after,
    }


def summary(size: int, every: list[dict[str, Any]]) -> dict[str, Any]:
    """Best and median of the runs that saw every topic (a broker that has not learnt all of
    them yet answers for fewer: such runs are counted, not summed up)."""
    runs = [r for r in every if r["topics"] >= size] or every
    walls = [r["wall_s"] for r in runs]
    brokers = [r["brokers_s"] for r in runs]
    return {
        "runs": len(runs),
        "runs_that_saw_fewer_topics": len(every) - len(runs),
        "wall_best_s": min(walls),
        "wall_median_s": round(statistics.median(walls), 2),
        "brokers_best_s": min(brokers),
        "brokers_median_s": round(statistics.median(brokers), 2),
        "ratio_median": round(statistics.median(r["ratio"] for r in runs), 2),
        "ratio_of_medians": round(statistics.median(walls) / statistics.median(brokers), 2),
        "cpu_median_s": round(statistics.median(r["cpu_s"] for r in runs), 2),
        "round_trips": sorted({r["round_trips"] for r in runs}),
        "loads_1min": [r["load"][0] for r in runs],
    }


def settle(root: Path, size: int, tries: int = 20) -> None:
    """Read the state (unmeasured) until two reads in a row see every topic: right after
    creating thousands, a broker may still answer for fewer."""
    from reconciler.workflow.connection import read_state
    from reconciler.workflow.context import Context

    agreeing = 0
    for _ in range(tries):
        set_client_id(root, f"bench-settle-{uuid.uuid4().hex[:8]}")
        seen = len(read_state(Context(root).cluster_config("bench")).topics)
        agreeing = agreeing + 1 if seen >= size else 0
        if agreeing == 2:
            return
        time.sleep(1.0)
    print(f"# warning: reads still see fewer than {size} topics", flush=True)


def measure(cl: Any, size: int, args: argparse.Namespace, root: Path) -> None:
    write_repo(root, cl.bootstrap, size)
    logs = RequestLogs(cl)
    variants: list[tuple[str, str | None]] = [("current", None)]
    if args.baseline:
        variants.insert(0, ("baseline", args.baseline))
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in variants}
    settle(root, size)
    for run in range(args.runs):
        for label, path in variants if run % 2 == 0 else variants[::-1]:
            result = read_in_process(root, logs, path)
            runs[label].append(result)
            print(json.dumps({"size": size, "variant": label, "run": run, **result}), flush=True)
    for label, path in variants:
        rss = []
        for _ in range(args.rss_runs):
            wall, peak, _ = run_child("read", root, path)
            rss.append((round(peak), round(wall, 2), load()))
        row = {"size": size, "variant": label, "read_state": summary(size, runs[label]),
               "read_child_peak_rss_mib_wall_s_load": rss}  # fmt: skip
        print(json.dumps(row), flush=True)
    if args.plan and size == max(args.sizes):
        for label, path in variants:
            plans = []
            for _ in range(args.rss_runs):
                set_client_id(root, f"bench-plan-{uuid.uuid4().hex[:8]}")
                wall, peak, _ = run_child("plan", root, path)
                plans.append((round(peak), round(wall, 2), load()))
            row = {"size": size, "variant": label, "plan_child_peak_rss_mib_wall_s_load": plans}
            print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rss-runs", type=int, default=1, help="children per RSS figure")
    parser.add_argument("--baseline", help="another read.py to measure alongside the current one")
    parser.add_argument("--no-plan", dest="plan", action="store_false")
    parser.add_argument(
        "--jvm-opts", default="-Xms1g -Xmx2g", help="extra broker JVM options (heap for 10k+)"
    )
    parser.add_argument(
        "--existing", type=Path, help="use the running local cluster of this state dir instead"
    )
    parser.add_argument("--child", choices=["read", "plan"], help=argparse.SUPPRESS)
    parser.add_argument("--repo", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--rss-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.repo, args.variant, args.rss_file)
        return

    from reconciler.local import cluster as local_cluster
    from reconciler.local.cluster import JVM_OPTS_ENV, default_overrides
    from reconciler.local.distribution import ensure_distribution

    if args.existing:
        from reconciler.local.state import load_state

        found = load_state(args.existing)
        if found is None:
            raise SystemExit(f"no local cluster in {args.existing}")
        with tempfile.TemporaryDirectory(prefix="bench-read-") as tmp:
            run_sizes(found, args, Path(tmp))
        return
    os.environ[JVM_OPTS_ENV] = args.jvm_opts
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 65536), hard), hard))
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="bench-read-") as tmp:
        work = Path(tmp)
        began = time.monotonic()
        cl = local_cluster.start(
            work / "kafka", ensure_distribution(), brokers=3, overrides=default_overrides(3),
            tie_to_parent=True, request_log=True,
        )  # fmt: skip
        print(f"# 3-broker cluster started in {time.monotonic() - began:.1f} s, load {load()}")
        try:
            run_sizes(cl, args, work)
        finally:
            local_cluster.stop(cl)


def run_sizes(cl: Any, args: argparse.Namespace, work: Path) -> None:
    made = 0
    for size in sorted(args.sizes):
        took = create_topics(cl.bootstrap, made, size)
        print(f"# {size} topics (created in {took:.1f} s), load {load()}", flush=True)
        made = size
        measure(cl, size, args, work / "repo")


if __name__ == "__main__":
    main()
