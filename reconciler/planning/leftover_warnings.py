"""What other applies left on the cluster, as plan diagnostics: nothing a plan reader must miss.

    leftover_throttle (P130)  a replication throttle an apply recorded in its audit record and
                              never removed (it was killed, or the controller was away when it
                              tried): one per topic still listing throttled replicas, naming
                              the brokers still at the rate. The next apply removes it; `drift`
                              reports it. While Kafka still moves that topic's partitions (an
                              apply stopped following them), it says the reassignment is in
                              progress: the next apply follows it, then removes the throttle.
                              A throttle no apply recorded is an operator's and is never
                              reported or touched.
    apply_lock_held (P131)    another apply holds the cluster's lock: the plan shows the cluster
                              as that apply leaves it at this moment (half applied, perhaps),
                              and a saved plan carries the mark.

Both are warnings: neither stops an apply (the lock itself does, while it is held). Pure: the
state carries what apply/leftovers.py read (ClusterState.lock, .leftover_throttles).
"""

from __future__ import annotations

from collections.abc import Iterator

from reconciler.cluster.state import ClusterState
from reconciler.diagnostics import Diagnostic
from reconciler.planning import p_codes
from reconciler.spec.units import format_size_bytes


def diagnostics(state: ClusterState) -> Iterator[Diagnostic]:
    if state.lock is not None:
        since = f" since {state.lock.since}" if state.lock.since else ""
        yield p_codes.APPLY_LOCK_HELD(
            f"an apply holds the cluster's lock ({state.lock.holder}{since}): this plan shows "
            "the cluster as that apply leaves it now, perhaps half applied; plan again once it "
            "has finished and apply that plan"
        )
    for left in state.leftover_throttles:
        rate = f"{format_size_bytes(left.rate)}/s"
        brokers = (
            f"broker(s) {', '.join(map(str, left.brokers))} keep the rate of {rate} "
            "(leader/follower.replication.throttled.rate)"
            if left.brokers
            else f"the brokers no longer show its rate of {rate}"
        )
        by = f" by {left.who}" if left.who else ""
        for topic in left.topics or (None,):
            moving = sorted(r.partition for r in state.reassignments if r.topic == topic)
            if moving:
                yield p_codes.LEFTOVER_THROTTLE(
                    f"a partition reassignment apply {left.apply_id}{by} started is in progress "
                    f"({topic}: partition(s) {', '.join(map(str, moving))}) under its "
                    f"replication throttle ({brokers}); the next `reconciler apply` follows "
                    "it and removes the throttle once Kafka reports it done; `reconciler apply "
                    "--cancel-reassignments` cancels it",
                    topic=topic,
                )
                continue
            what = (
                f"{topic} keeps leader/follower.replication.throttled.replicas"
                if topic is not None
                else "no topic lists throttled replicas any more"
            )
            yield p_codes.LEFTOVER_THROTTLE(
                f"a replication throttle left by apply {left.apply_id}{by}: {what} and "
                f"{brokers}, capping every catch-up of those replicas; the next "
                "`reconciler apply` removes it",
                topic=topic,
            )
