"""Cold and warm start-up of the local KRaft cluster, as `reconciler local up` does it.

cold: an empty jar cache (Maven fetches Kafka from Maven Central, then format and start);
warm: jars cached. Each run is a fresh cluster (new storage), stopped with `local down`.

    .venv/bin/python bench/bench_local_startup.py [--warm-runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECONCILER = [sys.executable, "-m", "reconciler"]


def up_down(brokers: int, cache: Path | None) -> tuple[float, float, float]:
    """Return (wall seconds of `local up`, seconds the brokers took, seconds of `local down`)."""
    env = dict(os.environ)
    if cache is not None:
        env["RECONCILER_CACHE"] = str(cache)
    with tempfile.TemporaryDirectory() as state:
        began = time.monotonic()
        up = subprocess.run(
            [*RECONCILER, "local", "--state-dir", state, "up", "--brokers", str(brokers)],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        wall = time.monotonic() - began
        match = re.search(r"started \d+ broker\(s\) in ([\d.]+) s", up.stderr)
        began = time.monotonic()
        subprocess.run(
            [*RECONCILER, "local", "--state-dir", state, "down"], check=True, capture_output=True
        )
        down = time.monotonic() - began
    return wall, float(match.group(1)) if match else float("nan"), down


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--warm-runs", type=int, default=3)
    args = parser.parse_args()
    print("| cluster | cache | `local up` wall (s) | brokers start (s) | `local down` (s) |")
    print("|---|---|---|---|---|")
    for brokers in (1, 3):
        with tempfile.TemporaryDirectory() as empty_cache:
            wall, start, down = up_down(brokers, Path(empty_cache))
        print(
            f"| {brokers} broker(s) | cold (empty) | {wall:.1f} | {start:.1f} | {down:.1f} |",
            flush=True,
        )
        runs = [up_down(brokers, None) for _ in range(args.warm_runs)]
        med = [statistics.median(r[i] for r in runs) for i in range(3)]
        print(
            f"| {brokers} broker(s) | warm (median of {args.warm_runs}) "
            f"| {med[0]:.1f} | {med[1]:.1f} | {med[2]:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
