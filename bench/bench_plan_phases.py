"""Where one `reconciler plan` process spends its time, phase by phase, against a live cluster.

    .venv/bin/python -m bench.bench_plan_phases --repo REPO --cluster NAME [--runs 7]
        [--format json] [--no-preimport]

Runs the command in fresh interpreters, each with a probe that times, on the wall clock and in
CPU seconds of the whole process (every thread's):

- interpreter start: from the parent's spawn to the probe's first line;
- imports: every module a plan of this repository loads (listed by a first, unmeasured run),
  imported up front so that the phases below are the work alone (`--no-preimport`: leave them
  where the command imports them, the phases then include their own imports);
- then the command itself (reconciler.cli.main), its steps wrapped where they are called:
  loading and validating the specs, making each client (librdkafka's admin client,
  kafka-python's), the reads (DescribeCluster, the topic names, the topics with their configs,
  kafka-python's ListPartitionReassignments and fenced brokers on their thread beside), what
  other applies left, planning, Kafka's validate_only answers and rendering.

Steps on the kafka-python thread overlap the main thread's, and the in-use evidence is read
within planning: their wall times do not add up to the whole. Medians (min) over the runs;
the cluster and the repository are the caller's (e.g. `reconciler local up` and bench_plan's
`create_topics` and `write_repo`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bytecode import as_installed

# The probe a run executes: times the steps by wrapping them in their modules' namespaces.
PROBE = r"""
import json, os, sys, time, importlib
began_wall, began_cpu = time.time(), time.process_time()
out = {"start_wall": began_wall, "start_cpu": began_cpu}
modules_file, preimport = sys.argv[1], sys.argv[2] == "1"
args = sys.argv[3:]
if preimport:
    a, c = time.perf_counter(), time.process_time()
    for name in json.loads(open(modules_file).read()):
        try:
            importlib.import_module(name)
        except Exception:
            pass
    out["imports"] = (time.perf_counter() - a, time.process_time() - c)
else:
    out["imports"] = (0.0, 0.0)
steps = {}

def timed(label, module, attr):
    owner = importlib.import_module(module) if isinstance(module, str) else module
    inner = getattr(owner, attr)
    def wrapper(*a, **k):
        w, c = time.perf_counter(), time.process_time()
        try:
            return inner(*a, **k)
        finally:
            got = steps.setdefault(label, [0.0, 0.0])
            got[0] += time.perf_counter() - w
            got[1] += time.process_time() - c
    setattr(owner, attr, wrapper)

if preimport:
    from reconciler.workflow import context, plan as wplan
    from reconciler.cluster.adapter import cluster as acluster, read
    from reconciler.apply import leftovers
    from reconciler.render import json as rjson
    for label, owner, attr in [
        ("load specs", context.Context, "specs"),
        ("librdkafka client made", acluster, "librdkafka_admin"),
        ("kafka-python client made (thread)", acluster, "kafka_python_admin"),
        ("DescribeCluster", acluster.Cluster, "describe"),
        ("topic names (Metadata)", read, "topic_names"),
        ("topics, configs, defaults", read, "topics_and_defaults"),
        ("reassignments, fenced brokers (thread)", acluster, "_reassignments_apart"),
        ("what other applies left", leftovers, "observe"),
        ("planning (the in-use evidence's reads included)", wplan, "planned"),
        ("  of which the in-use evidence (ListGroups, ListOffsets)", acluster.Cluster, "evidence"),
        ("validate_only answers", wplan, "kafka_answers"),
        ("made_by", wplan, "made_by"),
        ("rendering", rjson, "render_json"),
    ]:
        timed(label, owner, attr)
from reconciler.cli import main
a, c = time.perf_counter(), time.process_time()
try:
    main(args)
except SystemExit:
    pass
out["command"] = (time.perf_counter() - a, time.process_time() - c)
out["steps"] = steps
out["modules"] = sorted(sys.modules)
os.write(2, ("PHASES " + json.dumps(out) + "\n").encode())
"""


def run(modules: Path, preimport: bool, args: list[str]) -> dict[str, object]:
    began = time.time()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(modules), "1" if preimport else "0", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    line = [x for x in done.stderr.splitlines() if x.startswith("PHASES ")]
    if not line:
        raise SystemExit(f"no phases reported (exit {done.returncode}): {done.stderr[-2000:]}")
    out: dict[str, object] = json.loads(line[-1][len("PHASES ") :])
    out["spawn"] = float(out["start_wall"]) - began  # type: ignore[arg-type]
    return out


def main() -> None:
    as_installed()  # bytecode, as pip installs it (bench/bytecode.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--format", default="json")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-preimport", action="store_true")
    options = parser.parse_args()
    args = ["--repo", str(options.repo), "plan", "--cluster", options.cluster,
            "--format", options.format]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        modules = Path(tmp) / "modules.json"
        modules.write_text("[]")
        first = run(modules, False, args)  # unmeasured: lists the modules a plan loads
        modules.write_text(json.dumps(first["modules"]))
        runs = [run(modules, not options.no_preimport, args) for _ in range(options.runs)]
    rows: dict[str, list[tuple[float, float]]] = {}
    for r in runs:
        rows.setdefault("interpreter start", []).append((float(r["spawn"]), float(r["start_cpu"])))  # type: ignore[arg-type]
        rows.setdefault("imports (up front)", []).append(tuple(r["imports"]))  # type: ignore[arg-type]
        for label, (wall, cpu) in r["steps"].items():  # type: ignore[attr-defined]
            rows.setdefault(label, []).append((wall, cpu))
        rows.setdefault("the command, all steps", []).append(tuple(r["command"]))  # type: ignore[arg-type]
    print(f"# {len(runs)} runs, {len(first['modules'])} modules, "  # type: ignore[arg-type]
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| phase | wall median (min) | CPU median (min) |")
    print("|---|---:|---:|")
    for label, values in rows.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        print(f"| {label} | {statistics.median(walls) * 1000:.0f} ({min(walls) * 1000:.0f}) ms "
              f"| {statistics.median(cpus) * 1000:.0f} ({min(cpus) * 1000:.0f}) ms |")  # fmt: skip


if __name__ == "__main__":
    main()
