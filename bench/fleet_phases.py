"""Where the fleet job's time goes: its steps run one by one in-process, each timed.

Runs on data bench_fleet.py generated (default the 100 x 10,000 x 7 fleet under /tmp), with the
job's own session settings, and writes the tables as `reconciler fleet drift` does: each
table's frame is the job's, and the two computed from the cached rows are staged before their
sorted write as job.run stages them. summary.md is left out.

    .venv/bin/python -m bench.fleet_phases [--data DIR] [--master local[2]]
        [--driver-memory 6g] [--conf KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import functools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyspark import StorageLevel

from reconciler.fleet import drift_columns, inputs, job


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--data", type=Path, default=Path(tempfile.gettempdir()) / "fleet-100x10000x7-s1"
    )
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = {"spark.driver.memory": args.driver_memory}
    conf |= dict(item.split("=", 1) for item in args.conf)
    began = time.monotonic()
    spark = job.session(args.master, conf)
    for key, value in job._SQL.items():
        spark.conf.set(key, value)
    mark = time.monotonic()
    print(f"start the SparkSession: {mark - began:.1f} s", flush=True)

    def step(name: str, action: Callable[[], object]) -> None:
        nonlocal mark
        action()
        now = time.monotonic()
        print(f"{name}: {now - mark:.1f} s", flush=True)
        mark = now

    with tempfile.TemporaryDirectory(prefix="fleet-phases-") as out:
        wanted = inputs.read_desired(spark, str(args.data / "desired"))
        observed = inputs.read_snapshots(spark, str(args.data / "snapshots"), None)
        prepared: list[drift_columns.Rows] = []
        step(
            "parse, join to the specs, cache the rows (drift_columns.prepare)",
            lambda: prepared.append(drift_columns.prepare(wanted, observed)),
        )
        rows = prepared[0]
        found = drift_columns.with_first_seen(
            drift_columns.items(rows), observed.snapshots
        ).persist(StorageLevel.MEMORY_AND_DISK)

        tables = job.outputs(found, rows.rows, observed, wanted)
        names = (
            "drift items, missing topics, first_seen; write drift",
            "write unmanaged",
            "write broker_load",
            "consistency; write consistency",
        )
        for name, table, output in zip(names, job.TABLES, tables, strict=True):
            path = f"{out}/{table}"
            step(name, functools.partial(job.write_sorted, *output, path))
    spark.stop()
    print(f"in all: {time.monotonic() - began:.1f} s", flush=True)


if __name__ == "__main__":
    main()
