"""The state read's peak memory against how many topics one request carries.

librdkafka turns an answer into Python objects as it arrives (every config entry and synonym a
ConfigEntry: ~36 KiB per topic for DescribeConfigs, ~3.6 KiB for Metadata), so the memory of a
read is set by the topics per request times the requests outstanding, not by the topic count
alone. Starts a one-broker local cluster, creates --topics one-partition topics (one override
each), then reads the state (`Cluster.read_state`, what plan reads) in a fresh process per
setting, three times each, and prints its peak RSS:

- `one request`: every topic's configs and Metadata in one request each: what a constant
  count of 8 requests carries per request at 8 times this size;
- `8 at once`: the read before 2026-11-29: 8 DescribeConfigs all outstanding, one Metadata;
- `now`: read.py as it is (chunk_bounds: 8 requests, or one per CHUNK_TOPICS topics beyond,
  IN_FLIGHT outstanding; Metadata one request per METADATA_TOPICS).

    .venv/bin/python -m bench.bench_read_memory [--topics 8000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SETTINGS = {
    "one request": "read.TOPIC_CHUNKS, read.CHUNK_TOPICS, read.IN_FLIGHT = 1, 10**9, 10**9; "
    "read.METADATA_TOPICS = 10**9",
    "8 at once": "read.TOPIC_CHUNKS, read.CHUNK_TOPICS, read.IN_FLIGHT = 8, 10**9, 10**9; "
    "read.METADATA_TOPICS = 10**9",
    "now": "pass",
}

READ = """
import resource, sys
from reconciler.cluster.adapter import Cluster, Connection, read
{setting}
conn = Connection("bench", sys.argv[1], (("request.timeout.ms", "300000"),), 300)
with Cluster(conn) as cluster:
    state = cluster.read_state()
print(len(state.topics))
"""


def create(bootstrap: str, count: int) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for low in range(0, count, 1000):
        batch = [NewTopic(f"m.t{i:06d}", 1, 1, config={"retention.ms": "86400000"})
                 for i in range(low, min(count, low + 1000))]  # fmt: skip
        for future in admin.create_topics(batch, request_timeout=120).values():
            future.result()
    deadline = time.monotonic() + 600
    while sum(t.startswith("m.") for t in admin.list_topics(timeout=60).topics) < count:
        if time.monotonic() > deadline:
            raise SystemExit("the broker did not show every topic within 600 s")
        time.sleep(2)


def measure(bootstrap: str, label: str, count: int) -> dict[str, object]:
    code = READ.format(setting=SETTINGS[label])
    began = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code, bootstrap], stdout=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    assert proc.stdout is not None
    read_count = int(proc.stdout.read() or 0)
    if os.waitstatus_to_exitcode(status) != 0 or read_count < count:
        raise SystemExit(f"{label}: the read failed or saw {read_count} of {count} topics")
    return {"setting": label, "topics": read_count, "wall_s": round(time.monotonic() - began, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024), "load": os.getloadavg()[0]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from reconciler.local import cluster as local_cluster
    from reconciler.local.distribution import ensure_distribution

    work = Path(tempfile.mkdtemp(prefix="bench-read-memory-"))
    try:
        cl = local_cluster.start(work / "kafka", ensure_distribution(), brokers=1,
                                 tie_to_parent=True, heap_mib=1536)  # fmt: skip
        try:
            create(cl.bootstrap, args.topics)
            for _ in range(args.runs):  # interleaved, so load changes hit every setting
                for label in SETTINGS:
                    print(json.dumps(measure(cl.bootstrap, label, args.topics)), flush=True)
        finally:
            local_cluster.stop(cl)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"# this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")


if __name__ == "__main__":
    main()
