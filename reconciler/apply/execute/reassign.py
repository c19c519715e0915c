"""Replication-factor changes: start every partition move of a level in one request, then
follow them until the controller reports them complete.

    1. read the topics' replicas and the reassignments in progress;
    2. choose the partitions to move: those not at the target, and not already moving to it
       (a reassignment an interrupted run started is followed, not restarted);
    3. with --throttle, throttle the copies these moves make (throttle.py);
    4. send one AlterPartitionReassignments for all of them;
    5. follow them (ListPartitionReassignments every second, with progress) until none is
       left, the timeout passes or a signal asks the apply to stop;
    6. remove the throttle once they are done. Moves still going on (stopped, timed out) are
       Kafka's to finish: their changes are in progress, not applied, and the throttle stays,
       recorded in the audit journal, because the usual reason to stop is that the moves hurt
       the cluster. The next apply follows them and then removes it (apply/leftovers.py);
       `apply --cancel-reassignments` cancels them.

Whether the replicas then are where planned and in sync is the wait for metadata's to see.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reconciler import stopping
from reconciler.apply.execute import throttling
from reconciler.apply.execute.operations import Operation
from reconciler.cluster.ports import Executing, TopicReader
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.state import TopicState
from reconciler.errors import ClusterError
from reconciler.planning.changes import ReassignReplicas

Progress = Callable[[str], None]
Targets = dict[tuple[str, int], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class StillMoving:
    """Kafka accepted the change's moves and is still carrying them out."""

    note: str


# Per operation: None (its moves were started and are done), Kafka's refusal, or still moving
Outcome = Failure | StillMoving | None


def start_and_follow(
    cluster: Executing,
    ops: Sequence[Operation],
    rate: int | None,
    timeout: float,
    poll_interval: float,
    progress: Progress,
    ledger: throttling.Ledger | None = None,
) -> dict[int, Outcome]:
    """Per operation id: None (its moves were started and followed to the end), Kafka's
    refusal, or StillMoving when the follow ended before Kafka finished them."""
    changes = {op.id: op.change for op in ops if isinstance(op.change, ReassignReplicas)}
    topics = [c.topic for c in changes.values()]
    shown = cluster.topics(topics)
    targets = _targets(list(changes.values()), shown, _moving_to(cluster, topics))
    progress(f"  reassigning {len(targets)} partition(s) of {len(changes)} topic(s)")
    held = None
    if rate is not None and targets:
        try:
            held = throttling.hold(cluster, rate, targets, shown, progress, ledger)
        except ClusterError as exc:
            return dict.fromkeys(changes, Failure("THROTTLE_FAILED", str(exc)))
    moving: dict[str, int] = {}
    try:
        answers = cluster.alter_reassignments(targets)
        outcome: dict[int, Outcome] = {}
        for op_id, change in changes.items():
            failures = [f for (t, _), f in answers.items() if t == change.topic and f is not None]
            outcome[op_id] = failures[0] if failures else None
        started = [c for op_id, c in changes.items() if outcome[op_id] is None]
        total = sum(len(c.target) for c in started)
        topics = [c.topic for c in started]
        moving = follow(cluster, topics, total, timeout, poll_interval, progress)
    finally:
        # Moves still going on keep their throttle (the module's step 6); a failure reading
        # them leaves `moving` empty, and the throttle goes as it always did
        if held is not None and not moving:
            throttling.release(cluster, held, progress, ledger)
    if moving:
        if held is not None:
            progress(
                "  the replication throttle stays while the moves go on; the next apply "
                "follows them and removes it once Kafka reports them done"
            )
        for op_id, change in changes.items():
            left = moving.get(change.topic, 0)
            if outcome[op_id] is None and left:
                outcome[op_id] = StillMoving(_still_moving(left, len(change.target)))
    return outcome


def _still_moving(left: int, total: int) -> str:
    return (
        f"{left} of {total} partition move(s) still going on on the cluster; re-run apply to "
        "follow them to the end (a throttle it set is removed then), or `reconciler apply "
        "--cancel-reassignments` to cancel them"
    )


def _moving_to(
    cluster: TopicReader, topics: Sequence[str]
) -> dict[tuple[str, int], tuple[int, ...]]:
    """The partitions of `topics` being moved now, with the replicas each is moving to."""
    return {(r.topic, r.partition): r.target for r in cluster.reassignments(topics)}


def _targets(
    changes: Sequence[ReassignReplicas],
    shown: dict[str, TopicState],
    moving: dict[tuple[str, int], tuple[int, ...]],
) -> Targets:
    targets: Targets = {}
    for change in changes:
        found = shown.get(change.topic)
        now = [p.replicas for p in found.partitions] if found is not None else []
        for partition, target in enumerate(change.target):
            key = (change.topic, partition)
            in_flight = moving.get(key)
            if in_flight is not None and in_flight == tuple(target):
                continue  # started by an interrupted run: just follow it
            current = now[partition] if partition < len(now) else ()
            if tuple(current) != tuple(target) or in_flight is not None:
                targets[key] = tuple(target)
    return targets


def follow(
    cluster: TopicReader,
    topics: Sequence[str],
    total: int,
    timeout: float,
    poll_interval: float,
    progress: Progress,
) -> dict[str, int]:
    """Follow the moves of `topics` (`total` partitions) until none is left, the timeout or a
    stop; the partitions each topic still moves when it ended ({} when done)."""
    if not topics:
        return {}
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        moving: dict[str, int] = {}
        for r in cluster.reassignments(topics):
            moving[r.topic] = moving.get(r.topic, 0) + 1
        left = sum(moving.values())
        if left != last:
            progress(f"  reassignment: {total - left}/{total} partition(s) done")
            last = left
        if left == 0:
            return {}
        if stopping.asked():
            progress(f"  stopped following the reassignment ({stopping.asked()}): it goes on "
                     "on the cluster; re-run apply to follow it to the end")  # fmt: skip
            return moving
        if time.monotonic() >= deadline:
            progress(f"  the reassignment did not finish in {timeout:g} s: it goes on on the "
                     "cluster; re-run apply to follow it to the end")  # fmt: skip
            return moving
        time.sleep(max(poll_interval, 1.0))
