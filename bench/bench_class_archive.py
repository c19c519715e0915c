"""A local node's start with and without the class-data-sharing archive of Kafka's classes
(reconciler/local/class_archive.py): the nodes' CPU and the wall until every broker registered.

The archive is written first into a scratch cache (a 1-node cluster started and stopped), then
starts without it (`-Xshare:off`) and with it alternate, each a fresh cluster.

    .venv/bin/python -m bench.bench_class_archive [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from reconciler.local import cluster as local_cluster
from reconciler.local.distribution import Distribution, ensure_distribution
from reconciler.local.toolchain import find_java


def _cpu(pids: list[int]) -> float:
    """User and system CPU seconds of these processes so far."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _start(dist: Distribution, brokers: int, options: str) -> tuple[float, float]:
    os.environ[local_cluster.JVM_OPTS_ENV] = options
    with tempfile.TemporaryDirectory() as state:
        began = time.monotonic()
        cluster = local_cluster.start(Path(state), dist, brokers=brokers, tie_to_parent=True)
        wall = time.monotonic() - began
        cpu = _cpu([n.pid for n in cluster.nodes if n.pid])
        local_cluster.stop(cluster)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    dist = ensure_distribution()  # the jars from the real cache, the archive in a scratch one
    java, _ = find_java()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["RECONCILER_CACHE"] = cache
        from reconciler.local import class_archive

        _start(dist, 1, "")
        print(f"# archive {class_archive.archive(java, dist)} written", flush=True)
        for brokers in (1, 3):
            for round_ in range(1, args.rounds + 1):
                for label, options in (("without", "-Xshare:off"), ("with", "")):
                    wall, cpu = _start(dist, brokers, options)
                    print(
                        f"{brokers} broker(s), round {round_}, {label} the archive: "
                        f"{wall:.1f} s, {cpu:.2f} CPU s",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
