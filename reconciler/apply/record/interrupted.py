"""What an interrupted apply did: every planned operation accounted for, from the cluster.

When execution stops half way (a broker or the controller lost, the lock's lease lapsed), the
requests in flight may or may not have been carried out. The operations with no result yet are
judged against a fresh read (status.judge, the one judgement apply makes): the cluster shows it
done (applied by this apply, or already before it), or it is not done. Operations of the level
in flight get time for metadata to show them. Nothing is guessed: if the cluster cannot be read,
or a request in flight still does not show, the operation is Status.UNKNOWN and the audit record
stays open, to be closed by the next apply with what the cluster shows then.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence

from reconciler.apply.execute.operations import Operation, Step
from reconciler.apply.execute.verdict import Done, Partly, judge
from reconciler.apply.record.outcome import OperationResult, Status
from reconciler.cluster.ports import TopicReader
from reconciler.cluster.state import ClusterState, Reassignment, TopicState
from reconciler.errors import ReconcilerError


def account(
    cluster: TopicReader,
    before: ClusterState,
    ops: Sequence[Operation],
    recorded: Mapping[int, OperationResult],
    in_flight: Collection[int],
    why: str,
    wait: float = 30.0,
) -> tuple[tuple[OperationResult, ...], bool]:
    """One result per operation of `ops` (those `recorded` as they are); and whether each is
    known (False: the cluster could not be read, or a request in flight does not show yet).

    `in_flight`: the operations of the level under way, whose request may have been carried out:
    the brokers learn of it asynchronously, so they are polled up to `wait` seconds to show it
    before it is called unknown. Operations of levels never started were certainly not sent."""
    missing = [op for op in ops if op.id not in recorded]
    deadline = time.monotonic() + wait
    judged: dict[int, OperationResult] = {}
    while True:
        try:
            judged = _judge(cluster, before, missing, why)
        except ReconcilerError:
            judged = {op.id: _unknown(op, why, "the cluster could not be read") for op in missing}
            break
        pending = [i for i in in_flight if i in judged and judged[i].status is Status.FAILED]
        if not pending or time.monotonic() >= deadline:
            for i in pending:
                judged[i] = _unknown(judged[i].operation, why, "its request was sent but the "
                                     "cluster does not show it")  # fmt: skip
            break
        time.sleep(0.25)
    results = tuple(recorded[op.id] if op.id in recorded else judged[op.id] for op in ops)
    known = not any(r.status is Status.UNKNOWN for r in judged.values())
    return results, known


def _unknown(op: Operation, why: str, because: str) -> OperationResult:
    return OperationResult(
        op,
        Status.UNKNOWN,
        f"unknown: the apply was interrupted ({why}) and {because}; re-run apply",
    )


def _judge(
    cluster: TopicReader, before: ClusterState, missing: Sequence[Operation], why: str
) -> dict[int, OperationResult]:
    """The missing operations as a fresh read (clients of its own) shows them."""
    if not missing:
        return {}
    with cluster.reconnected() as fresh:
        now = fresh.topics(sorted({op.topic for op in missing}), configs=True)
        moving: tuple[Reassignment, ...] = ()
        if any(op.step is Step.REASSIGN for op in missing):
            moving = fresh.reassignments()
    return {op.id: _judged(op, before, now.get(op.topic), moving, why) for op in missing}


def _judged(
    op: Operation,
    before: ClusterState,
    topic: TopicState | None,
    moving: tuple[Reassignment, ...],
    why: str,
) -> OperationResult:
    verdict = judge(op.change, topic, moving)
    if isinstance(verdict, Done):
        earlier = judge(op.change, before.topics.get(op.topic), before.reassignments)
        if isinstance(earlier, Done):
            return OperationResult(op, Status.UNCHANGED, earlier.note)
        return OperationResult(
            op, Status.APPLIED, "done before the interruption (the cluster shows it)"
        )
    partly = f" ({verdict.note})" if isinstance(verdict, Partly) else ""
    return OperationResult(
        op,
        Status.FAILED,
        f"not done{partly}: the apply was interrupted ({why}); re-run apply to finish it",
    )
