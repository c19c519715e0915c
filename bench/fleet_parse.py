"""The fleet job's parse of the snapshot lines, two ways: what the job does (the text source,
then `from_json` on each line) against Spark's JSON data source on the same files and schema.

Each way selects the fields the job reads of a topic line and writes them to Spark's no-op
sink, so the time is reading and parsing alone; each runs `--rounds` times, alternating.

    .venv/bin/python -m bench.fleet_parse [--data DIR] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from reconciler.fleet import inputs, job
from reconciler.fleet.inputs import GLOB
from reconciler.fleet.schemas import SNAPSHOT_LINE


def _fields(r: Column) -> list[Column]:
    return [
        r.record,
        r.taken_at,
        r.topic,
        r.internal,
        F.sort_array(r.partitions).replicas,
        r.overrides,
        F.size(r.reassignments),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--data", type=Path, default=Path(tempfile.gettempdir()) / "fleet-100x10000x7-s1"
    )
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = job.session("local[2]", {"spark.driver.memory": "6g"})  # with the job's settings
    root = str(args.data / "snapshots")
    file = F.col("_metadata.file_path").alias("file")

    def text() -> DataFrame:
        raw = spark.read.option("pathGlobFilter", GLOB).text(root)
        parsed = inputs._parsed(raw, SNAPSHOT_LINE, "cluster", "date")  # the job's own parse
        return parsed.select("cluster", "date", "file", *_fields(F.col("r")))

    def source() -> DataFrame:
        lines = spark.read.schema(SNAPSHOT_LINE).option("pathGlobFilter", GLOB).json(root)
        r = F.struct(*(F.col(field.name) for field in SNAPSHOT_LINE.fields))
        return lines.select("cluster", "date", file, *_fields(r))

    for round_ in range(1, args.rounds + 1):
        for name, frame in (("text + from_json", text), ("JSON data source", source)):
            began = time.monotonic()
            frame().write.format("noop").mode("overwrite").save()
            print(f"round {round_}, {name}: {time.monotonic() - began:.1f} s", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
