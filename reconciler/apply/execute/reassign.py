"""Replication-factor changes: start every partition move of a level in one request, then
follow them until the controller reports them complete.

    1. read the topics' replicas and the reassignments in progress;
    2. choose the partitions to move: those not at the target, and not already moving to it
       (a reassignment an interrupted run started is followed, not restarted);
    3. with --throttle, throttle the copies these moves make (throttle.py);
    4. send one AlterPartitionReassignments for all of them;
    5. follow them (ListPartitionReassignments every second, with progress) until none is
       left, the timeout passes or a signal asks the apply to stop (the moves go on on the
       cluster; a re-run follows them);
    6. remove the throttle, whatever happened in 4 and 5.

Whether the replicas then are where planned and in sync is the wait for metadata's to see.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

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


def start_and_follow(
    cluster: Executing,
    ops: Sequence[Operation],
    rate: int | None,
    timeout: float,
    poll_interval: float,
    progress: Progress,
    ledger: throttling.Ledger | None = None,
) -> dict[int, Failure | None]:
    """Per operation id: None (its moves were started, and followed), or why not."""
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
    try:
        answers = cluster.alter_reassignments(targets)
        outcome: dict[int, Failure | None] = {}
        for op_id, change in changes.items():
            failures = [f for (t, _), f in answers.items() if t == change.topic and f is not None]
            outcome[op_id] = failures[0] if failures else None
        started = [c for op_id, c in changes.items() if outcome[op_id] is None]
        _follow(cluster, started, timeout, poll_interval, progress)
    finally:
        if held is not None:
            throttling.release(cluster, held, progress, ledger)
    return outcome


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


def _follow(
    cluster: TopicReader,
    changes: Sequence[ReassignReplicas],
    timeout: float,
    poll_interval: float,
    progress: Progress,
) -> None:
    if not changes:
        return
    topics = [c.topic for c in changes]
    total = sum(len(c.target) for c in changes)
    deadline = time.monotonic() + timeout
    last = -1
    while time.monotonic() < deadline:
        left = len(cluster.reassignments(topics))
        if left != last:
            progress(f"  reassignment: {total - left}/{total} partition(s) done")
            last = left
        if left == 0:
            return
        if stopping.asked():
            progress(f"  stopped following the reassignment ({stopping.asked()}): it goes on "
                     "on the cluster; re-run apply to follow it to the end")  # fmt: skip
            return
        time.sleep(max(poll_interval, 1.0))
