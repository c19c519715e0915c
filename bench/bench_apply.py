"""Applying 1,000 and 10,000 topic creates, and a 1,000-topic config change, on a real cluster.

Starts a three-broker KRaft cluster (the code behind `reconciler local up`, with request logs),
writes a spec repository, and times `workflow.apply` in-process for:

- create N topics (1 partition, replication factor 1, one config override each);
- change one config key on 1,000 existing topics.

Counted from the brokers' request logs: every request the reconciler's client.id sent (the
plan's read, the lock, validate_only, the mutations, the metadata polls, the audit record).

    .venv/bin/python bench/bench_apply.py [--sizes 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
import uuid
from pathlib import Path

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import ensure_distribution
from reconciler.workflow.apply import apply as apply_saved
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.request_log import requests_by


def write_repo(
    root: Path, bootstrap: str, client_id: str, prefix: str, n: int, retention: str
) -> None:
    (root / "topics").mkdir(parents=True, exist_ok=True)
    (root / "reconciler.yaml").write_text(
        "clusters:\n  bench:\n"
        f"    bootstrap: '{bootstrap}'\n"
        f"    client: {{client.id: {client_id}}}\n"
        f"    policy: {{ignore: ['^(?!{re.escape(prefix)})'], max_partitions_per_topic: 100}}\n"
        "    limits: {max_broker_partitions: 100000, max_partitions: 1000000}\n"
    )
    lines = ["topics:"]
    for i in range(n):
        lines += [
            f"  - name: {prefix}.t{i:05d}",
            "    partitions: 1",
            "    replication_factor: 1",
            f"    config: {{retention.ms: {retention}}}",
        ]
    (root / "topics" / "bench.yaml").write_text("\n".join(lines) + "\n")


def run(cl: local_state.LocalCluster, root: Path, client_id: str) -> dict[str, object]:
    began = time.monotonic()
    plan = plan_of(Context(root), "bench")
    planned = time.monotonic() - began
    began = time.monotonic()
    result = apply_saved(Context(root), "bench", plan)
    applied = time.monotonic() - began
    assert result.ok, [r.message for r in result.failed][:3]
    counts = requests_by(cl, client_id)
    return {
        "changes": len(result.results),
        "plan_s": round(planned, 2),
        "apply_s": round(applied, 2),
        "requests": sum(counts.values()),
        "by_api": dict(sorted(counts.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bench-apply-") as tmp:
        cl = local_cluster.start(
            Path(tmp) / "kafka", ensure_distribution(), brokers=3,
            overrides=default_overrides(3), request_log=True,
        )  # fmt: skip
        try:
            for n in args.sizes:
                prefix = f"b{n}.{uuid.uuid4().hex[:6]}"
                root = Path(tmp) / prefix
                client = f"bench-{uuid.uuid4().hex[:8]}"
                write_repo(root, cl.bootstrap, client, prefix, n, "3d")
                print(json.dumps({"case": f"create {n} topics", **run(cl, root, client)}))
                if n == 1000:
                    client = f"bench-{uuid.uuid4().hex[:8]}"
                    write_repo(root, cl.bootstrap, client, prefix, n, "7d")
                    print(json.dumps({"case": f"change config of {n}", **run(cl, root, client)}))
        finally:
            local_cluster.stop(cl)


if __name__ == "__main__":
    main()
