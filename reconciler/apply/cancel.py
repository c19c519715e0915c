"""apply --cancel-reassignments: stop the partition moves in progress, for the incident case.

An operator stops an apply that follows a throttled reassignment because the moves hurt the
cluster; the moves go on (reassign.py keeps their throttle). This cancels them: one
AlterPartitionReassignments with no target for every partition of the managed topics Kafka is
moving (Kafka puts each back on its original replicas), under the apply lock, then waits until
Kafka lists none of them. Only the topics the specs name for the cluster: moves of other topics
(an operator's, Cruise Control's) are never touched. A throttle an apply recorded over them is
removed by the next apply, which finds nothing left to follow (apply/leftovers.py).

The audit topic records it like an apply's changes: a `cancel` record before the request (who,
and the moves it asks to stop; one that cannot be written cancels nothing) and a `cancelled`
record after it (what Kafka refused, what it still lists). Both are ledger records, never an
unfinished apply (record/journal.py).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass

from reconciler.apply import lock
from reconciler.apply.execute.reassign import follow
from reconciler.apply.record import audit_record, content
from reconciler.cluster.ports import ApplyTarget
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.state import Reassignment
from reconciler.errors import ClusterError

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
    me = lock.Holder.me(content.actor(), "cancel-reassignments")
    lock.acquire(cluster, me, force_unlock, progress)
    renewal = lock.Lease(cluster, me).start()  # the wait below may outlast one lease
    try:
        moves = cluster.reassignments(topics)
        if not moves:
            return Cancelled((), {}, ())
        progress(
            f"cancelling {len(moves)} partition move(s) of {len({m.topic for m in moves})} topic(s)"
        )
        renewal.check("cancelling the moves")
        cancel_id = _record_cancel(cluster, me.user, moves)
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
        _record_outcome(cluster, cancel_id, refused, left, progress)
        return Cancelled(moves, refused, left)
    finally:
        renewal.stop()
        lock.release(cluster, me, progress)


def _record_cancel(cluster: ApplyTarget, who: str, moves: tuple[Reassignment, ...]) -> str:
    """Write the `cancel` record before the request; raises ClusterError (nothing cancelled)
    when it cannot be written, as an apply that cannot journal changes nothing."""
    cancel_id = str(uuid.uuid4())
    entry = {
        "cancel_id": cancel_id,
        "who": who,
        "at": int(time.time() * 1000),
        "moves": [
            [m.topic, m.partition, list(m.replicas), list(m.adding), list(m.removing)]
            for m in moves
        ],
    }
    try:
        cluster.ensure_audit()
        cluster.write_audit(cluster.name, [audit_record.ledger("cancel", entry)])
    except ClusterError as exc:
        raise ClusterError(
            f"the audit record of the cancel could not be written, so nothing was cancelled: {exc}"
        ) from exc
    return cancel_id


def _record_outcome(
    cluster: ApplyTarget,
    cancel_id: str,
    refused: dict[tuple[str, int], Failure],
    left: tuple[Reassignment, ...],
    progress: Progress,
) -> None:
    """Write the `cancelled` record; best effort, as an apply's last record: a warning if not."""
    entry = {
        "cancel_id": cancel_id,
        "refused": [[topic, part, f.code] for (topic, part), f in sorted(refused.items())],
        "left": [[r.topic, r.partition] for r in left],
    }
    try:
        cluster.write_audit(cluster.name, [audit_record.ledger("cancelled", entry)])
    except ClusterError as exc:
        progress(f"warning: the audit record of the cancel's outcome could not be written: {exc}")
