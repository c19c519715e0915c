"""apply --cancel-reassignments: stop the partition moves in progress, for the incident case.

An operator stops an apply that follows a throttled reassignment because the moves hurt the
cluster; the moves go on (reassign.py keeps their throttle). This cancels them: one
AlterPartitionReassignments with no target for every partition of the managed topics Kafka is
moving (Kafka puts each back on its original replicas), under the apply lock, then waits until
Kafka lists none of them. Only the topics the specs name for the cluster: moves of other topics
(an operator's, Cruise Control's) are never touched. A throttle an apply recorded over them is
removed by the next apply, which finds nothing left to follow (check/leftovers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from reconciler.apply import lease
from reconciler.apply.execute.reassign import follow
from reconciler.apply.record import content
from reconciler.cluster.ports import ApplyTarget
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.state import Reassignment

Progress = Callable[[str], None]
_SETTLE = 60.0  # seconds for Kafka to stop listing the cancelled moves


@dataclass(frozen=True, slots=True)
class Cancelled:
    moves: tuple[Reassignment, ...]  # the moves in progress that were asked to stop
    refused: dict[tuple[str, int], Failure]  # Kafka's refusals, by partition
    left: tuple[Reassignment, ...]  # still listed when the wait ended

    @property
    def ok(self) -> bool:
        return not self.refused and not self.left


def cancel(
    cluster: ApplyTarget,
    topics: Collection[str],
    force_unlock: bool,
    progress: Progress,
    poll_interval: float = 1.0,
) -> Cancelled:
    """Cancel the moves in progress of `topics` (the managed ones) under the apply lock."""
    me = lease.Holder.me(content.actor(), "cancel-reassignments")
    lease.acquire(cluster, me, force_unlock, progress)
    renewal = lease.Lease(cluster, me).start()  # the wait below may outlast one lease
    try:
        moves = cluster.reassignments(topics)
        if not moves:
            return Cancelled((), {}, ())
        progress(
            f"cancelling {len(moves)} partition move(s) of {len({m.topic for m in moves})} topic(s)"
        )
        renewal.check("cancelling the moves")
        answers = cluster.alter_reassignments({(m.topic, m.partition): None for m in moves})
        # NO_REASSIGNMENT_IN_PROGRESS: it finished between the listing and the cancel
        refused = {
            key: f
            for key, f in answers.items()
            if f is not None and f.code != "NO_REASSIGNMENT_IN_PROGRESS"
        }
        cancelled = [m for m in moves if (m.topic, m.partition) not in refused]
        # Kafka lists a cancelled move until its partition is back on its original replicas
        follow(
            cluster,
            sorted({m.topic for m in cancelled}),
            len(cancelled),
            _SETTLE,
            poll_interval,
            progress,
        )
        left = tuple(
            r for r in cluster.reassignments(topics) if (r.topic, r.partition) not in refused
        )
        return Cancelled(moves, refused, left)
    finally:
        renewal.stop()
        lease.release(cluster, me, progress)
