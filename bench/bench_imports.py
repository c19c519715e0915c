"""What a command imports: modules loaded, CPU time and `python -X importtime`'s sum, per command.

    .venv/bin/python -m bench.bench_imports [--against DIR] [--rounds 11] [--repo REPO]

Runs `reconciler --help`, `plan --state SNAPSHOT` (a one-topic repository written here) and
`plan` of the same repository against a closed port with `--timeout 1` (every import a live plan
makes up to its first request), each in a fresh interpreter, rounds interleaved. With `--against`
(another checkout, e.g. `git worktree add /tmp/main main`) the same interpreter runs that tree's
package too (PYTHONPATH), side by side. CPU is user+sys of the child (`getrusage`), which a
loaded machine disturbs less than wall time; the module count does not vary at all.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bytecode import as_installed

# Runs the CLI as `python -m reconciler` does, then says how many modules it loaded.
COUNT = (
    "import runpy, sys\n"
    "sys.argv = ['reconciler', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('reconciler', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print('MODULES', len(sys.modules), file=sys.stderr)\n"
)
_IMPORT_TIME = re.compile(r"import time:\s+(\d+) \|")


def write_repo(root: Path) -> None:
    from reconciler.cluster.snapshot import write_snapshot
    from reconciler.cluster.state import BrokerState, ClusterState, PartitionState, TopicState

    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text("clusters:\n  dev: {bootstrap: '127.0.0.1:1'}\n")
    (root / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 1\n")
    partition = PartitionState(0, 1, (1,), (1,))
    topic = TopicState("a.b", False, (partition,), ())
    broker = BrokerState(1, "127.0.0.1", 1, None)
    write_snapshot(root / "snap.json", "dev", ClusterState("id", 1, (broker,), {"a.b": topic}))


def run(tree: Path, args: list[str], importtime: bool) -> tuple[float, int, float]:
    """(CPU seconds, modules loaded, -X importtime's sum in seconds) of one run."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    flags = ["-X", "importtime"] if importtime else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, *flags, "-c", COUNT, *args],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    modules = [line for line in done.stderr.splitlines() if line.startswith("MODULES")]
    imported = sum(int(m[1]) for m in _IMPORT_TIME.finditer(done.stderr)) / 1e6
    return cpu, int(modules[-1].split()[1]) if modules else -1, imported


def main() -> None:
    as_installed()  # bytecode, as pip installs it (bench/bytecode.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout, measured side by side")
    parser.add_argument("--rounds", type=int, default=11)
    options = parser.parse_args()
    trees = {"this": Path(__file__).resolve().parent.parent}
    if options.against is not None:
        trees["against"] = options.against.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        write_repo(repo)
        commands = {
            "--help": ["--help"],
            "plan --state SNAPSHOT": ["--repo", str(repo), "plan", "--cluster", "dev",
                                      "--state", str(repo / "snap.json")],
            "plan, unreachable": ["--repo", str(repo), "plan", "--cluster", "dev",
                                  "--timeout", "1"],
        }  # fmt: skip
        cpu: dict[tuple[str, str], list[float]] = {}
        imports: dict[tuple[str, str], list[float]] = {}
        modules: dict[tuple[str, str], int] = {}
        for _ in range(options.rounds):
            for command, args in commands.items():
                for name, tree in trees.items():
                    spent, modules[(name, command)], _ = run(tree, args, importtime=False)
                    cpu.setdefault((name, command), []).append(spent)
                    imports.setdefault((name, command), []).append(run(tree, args, True)[2])
    for command in commands:
        for name in trees:
            key = (name, command)
            print(
                f"{command:22} {name:8} {modules[key]:4} modules, CPU median "
                f"{statistics.median(cpu[key]) * 1000:4.0f} ms (min {min(cpu[key]) * 1000:.0f}), "
                f"-X importtime median {statistics.median(imports[key]) * 1000:4.0f} ms"
            )


if __name__ == "__main__":
    main()
