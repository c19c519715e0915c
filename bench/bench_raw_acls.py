"""The planner's raw `acls:` decision (planning/raw_acl_changes.py) for N entries against N
bindings held, half of them shared: N/2 grants, N/2 revokes (each an acl_revoke hazard), 50
principals, in memory (no broker: the cost of the decision, not of DescribeAcls).

    .venv/bin/python bench/bench_raw_acls.py          # --sizes 1000 10000 --runs 3
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.state import ClusterState
from reconciler.planning.plan import make_plan
from reconciler.spec.model import ClusterConfig, DesiredState, Policy
from reconciler.spec.raw_acls import RawAcl

PRINCIPALS = 50


def _case(n: int) -> tuple[DesiredState, ClusterState]:
    given = tuple(
        RawAcl(f"User:team{i % PRINCIPALS}", "group", f"g{i}", "literal", ("Read",))
        for i in range(n)
    )
    held = tuple(
        AclBinding("group", f"g{i}", "literal", f"User:team{i % PRINCIPALS}", "Read")
        for i in range(0, 2 * n, 2)
    )
    state = ClusterState(cluster_id="bench", controller_id=1, brokers=())
    return DesiredState("bench", acls=given), dataclasses.replace(state, acls=ClusterAcls(held))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    config = ClusterConfig("bench", "127.0.0.1:9092", policy=Policy(manage=("^team", "^g")))
    print("| entries | changes | plan best (s) | median (s) |")
    print("|---:|---:|---:|---:|")
    for n in args.sizes:
        desired, state = _case(n)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            plan = make_plan(desired, state, config)
            times.append(time.perf_counter() - started)
        print(f"| {n:,} | {len(plan.acls):,} | {min(times):.2f} | {statistics.median(times):.2f} |")


if __name__ == "__main__":
    main()
