"""Validating generated spec repositories of 1,000 and 10,000 topics: time and peak memory.

The repository is realistic in shape: 50 topics per file across team directories, file
defaults, configs with human units, depends_on chains, a templated file per team rendered for
two clusters. Measured:

- `load_repo` in-process: best wall time of N runs, and the peak of Python allocations during
  one run (tracemalloc; it slows the run, so it is measured separately);
- `reconciler validate` end to end in a subprocess: best wall time of N runs and its peak
  resident set size (ru_maxrss of the children, which includes the interpreter and imports; the
  largest child so far, so sizes run in increasing order);
- the floor it is compared with: a bare parse of the same files with PyYAML's C loader
  (`yaml.load(text, CSafeLoader)`) in a subprocess, process start included, best of N (a
  template's `{{ ... }}` expressions replaced by a number first, so it is YAML).

    .venv/bin/python bench/bench_validate.py [--sizes 1000 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from reconciler.spec.loader import load_repo

TOPICS_PER_FILE = 50
TEAMS = ("payments", "inventory", "shipping", "analytics", "search", "identity", "billing")

REPO_CONFIG = """\
clusters:
  local:
    bootstrap: "${KAFKA_BOOTSTRAP:-127.0.0.1:9092}"
    vars: {env: dev, replication: 3}
    policy: {name_pattern: '^[a-z0-9]+(\\.[a-z0-9-]+)+$'}
  prod:
    bootstrap: "${PROD_KAFKA_BOOTSTRAP:-kafka-prod.example.internal:9092}"
    vars: {env: prod, replication: 3}
"""


def _topic(team: str, index: int, depends: str | None, templated: bool) -> str:
    partitions = 3 + index % 10
    if templated:
        partitions_text = f"{{{{ {partitions} * 2 if cluster == 'prod' else {partitions} }}}}"
    else:
        partitions_text = str(partitions)
    lines = [
        f"  - name: {team}.stream-{index:05d}.v1",
        f"    description: generated topic {index} of team {team}",
        f"    partitions: {partitions_text}",
        "    keyed: true" if index % 3 == 0 else "    keyed: false",
        "    config:",
        f"      retention.ms: {1 + index % 14}d",
        "      cleanup.policy: delete" if index % 5 else "      cleanup.policy: [compact, delete]",
        "      max.message.bytes: 2MiB",
    ]
    if depends:
        lines.append(f"    depends_on: [{depends}]")
    return "\n".join(lines) + "\n"


def generate(root: Path, topics: int) -> int:
    """Write a spec repository of `topics` topics under `root`; returns the number of files."""
    (root / "reconciler.yaml").write_text(REPO_CONFIG)
    files = 0
    index = 0
    while index < topics:
        team = TEAMS[files % len(TEAMS)]
        directory = root / "topics" / team
        directory.mkdir(parents=True, exist_ok=True)
        count = min(TOPICS_PER_FILE, topics - index)
        templated = files % 10 == 9  # one file in ten is a template
        body = [
            "# yaml-language-server: $schema=../../schemas/topics.schema.json\n",
            f"defaults:\n  owner: {team}\n  replication_factor: 3\n",
            "  config: {min.insync.replicas: 2, compression.type: zstd}\n",
            "topics:\n",
        ]
        previous: str | None = None
        for offset in range(count):
            body.append(_topic(team, index + offset, previous if offset % 4 else None, templated))
            previous = f"{team}.stream-{index + offset:05d}.v1"
        suffix = ".yaml.j2" if templated else ".yaml"
        (directory / f"part-{files:04d}{suffix}").write_text("".join(body))
        files += 1
        index += count
    return files + 1  # and reconciler.yaml


BARE_PARSE = """
import re, sys, yaml
from pathlib import Path
expression = re.compile(r"[{][{].*?[}][}]")
topics = 0
for path in sorted(Path(sys.argv[1]).rglob("*")):
    if path.is_file() and path.name.endswith((".yaml", ".yaml.j2")):
        text = path.read_text(encoding="utf-8")
        if path.name.endswith(".j2"):
            text = expression.sub("0", text)
        topics += len((yaml.load(text, Loader=yaml.CSafeLoader) or {}).get("topics") or [])
print(topics)
"""


def _timed(command: list[str]) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(
        command, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )  # fmt: skip
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(proc.stdout + proc.stderr)
    return wall, proc.stdout


def _load(root: Path) -> int:
    result = load_repo(root, env={})
    if not result.valid:
        raise SystemExit(f"generated repository is invalid: {result.diagnostics[:3]}")
    return len(result.topic_names)


def measure(topics: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = generate(root, topics)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        timings = []
        for _ in range(runs):
            began = time.perf_counter()
            declared = _load(root)
            timings.append(time.perf_counter() - began)
        assert declared == topics, declared
        tracemalloc.start()
        _load(root)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        cli = min(
            _timed([sys.executable, "-m", "reconciler", "--repo", str(root), "validate"])[0]
            for _ in range(runs)
        )
        bare_runs = [_timed([sys.executable, "-c", BARE_PARSE, str(root)]) for _ in range(runs)]
        assert int(bare_runs[0][1]) == topics, bare_runs[0][1]
        bare = min(wall for wall, _ in bare_runs)
        rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    return {
        "topics": topics,
        "files": files,
        "mib": size / 2**20,
        "load": min(timings),
        "peak": peak / 2**20,
        "cli": cli,
        "rss": rss_kib / 1024,
        "bare": bare,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])  # increasing
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPU(s), {platform.machine()}, "
        f"load average {load}"
    )
    print(
        "| topics | files | spec size (MiB) | `load_repo` best of "
        f"{args.runs} (s) | peak Python memory (MiB) | `reconciler validate` best of "
        f"{args.runs} (s) | validate peak RSS (MiB) | bare C-loader parse (s) | ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        m = measure(size, args.runs)
        print(
            f"| {m['topics']:,.0f} | {m['files']:.0f} | {m['mib']:.1f} | {m['load']:.2f} | "
            f"{m['peak']:.0f} | {m['cli']:.2f} | {m['rss']:.0f} | {m['bare']:.2f} | "
            f"{m['cli'] / m['bare']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
