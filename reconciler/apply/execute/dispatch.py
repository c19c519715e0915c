"""Sending one level: one request per kind for all its operations, and what each answer means.

Each operation's answer is a closed `Sent`:

    Accepted()          Kafka took it; the wait for metadata decides whether it shows
    AlreadyDone(note)   Kafka's refusal means the cluster already had it: TOPIC_ALREADY_EXISTS
                        for a topic that is as planned, INVALID_PARTITIONS for a count already
                        reached (both checked with status.judge on a fresh read), or
                        UNKNOWN_TOPIC_OR_PART on a delete
    Refused(failure)    Kafka refused it (apply/execute/sentences.py puts it in words)
    NotSent()           a signal asked the apply to stop (stopping.py) before its request
    Moving(note)        Kafka took its partition moves and still carries them out (reassign.py)

Requests are split only where Kafka demands it (batching.py); between two requests of a level
a stop asked by a signal is honoured. Replication-factor changes go to reassign.py, which also
follows them to the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, assert_never

from reconciler import stopping
from reconciler.apply.execute import batching, reassign
from reconciler.apply.execute.operations import Operation, Step
from reconciler.apply.execute.throttling import Ledger
from reconciler.apply.execute.verdict import Done, judge
from reconciler.cluster.ports import Executing, TopicWriter
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.state import ClusterState
from reconciler.planning.changes import AlterTopicConfig, CreateTopic, IncreasePartitions


@dataclass(frozen=True, slots=True)
class Accepted:
    pass


@dataclass(frozen=True, slots=True)
class AlreadyDone:
    note: str  # for the summary: "the topic already existed as planned"


@dataclass(frozen=True, slots=True)
class Refused:
    failure: Failure


@dataclass(frozen=True, slots=True)
class NotSent:
    pass


@dataclass(frozen=True, slots=True)
class Moving:
    note: str  # how many moves are left, and what to do next


Sent = Accepted | AlreadyDone | Refused | NotSent | Moving
T = TypeVar("T")
C = TypeVar("C", CreateTopic, IncreasePartitions)


@dataclass(frozen=True, slots=True)
class Reassigning:
    """How replication-factor changes are made (apply's --throttle and timeouts)."""

    throttle: int | None  # bytes/s per broker for reassignment traffic; None: unthrottled
    timeout: float  # seconds for reassignments to complete
    poll_interval: float
    ledger: Ledger | None = None  # records each throttle before it is set, and its removal


def send(
    cluster: Executing,
    state: ClusterState,
    step: Step,
    ops: Sequence[Operation],
    reassigning: Reassigning,
    progress: Callable[[str], None],
) -> dict[int, Sent]:
    """Send `ops`, all of step `step`, in as few requests as Kafka allows; by operation id."""
    match step:
        case Step.CREATE:
            return _create(cluster, state, ops, progress)
        case Step.CONFIG | Step.RAISE_ISR:
            return _configure(cluster, state, ops, progress)
        case Step.PARTITIONS:
            return _partitions(cluster, ops, progress)
        case Step.REASSIGN:
            answers = reassign.start_and_follow(
                cluster,
                ops,
                reassigning.throttle,
                reassigning.timeout,
                reassigning.poll_interval,
                progress,
                reassigning.ledger,
            )
            return {
                i: Moving(a.note) if isinstance(a, reassign.StillMoving) else _sent(a)
                for i, a in answers.items()
            }
        case Step.DELETE:
            return _delete(cluster, ops, progress)
        case _:
            assert_never(step)


def _sent(failure: Failure | None) -> Sent:
    return Accepted() if failure is None else Refused(failure)


def _answer(answers: dict[str, Failure | None], topic: str) -> Sent:
    """The answer for `topic`'s request; NotSent when a stop came before it was sent."""
    return _sent(answers[topic]) if topic in answers else NotSent()


def _each(
    batches: Iterable[list[T]],
    request: Callable[[list[T]], dict[str, Failure | None]],
    progress: Callable[[str], None],
    what: str,
) -> dict[str, Failure | None]:
    """Send the batches one request each, one after another (each waits for the answer to the
    previous one: the brokers set the pace), stopping between two requests when asked to. When
    there are several, each answer is a progress line: a level of 100,000 creates is 30
    requests of seconds each."""
    answers: dict[str, Failure | None] = {}
    every = list(batches)
    total = sum(len(batch) for batch in every)
    for number, batch in enumerate(every):
        if number and stopping.asked():
            break
        answers |= request(batch)
        if len(every) > 1:
            progress(f"  {what}: request {number + 1}/{len(every)} answered "
                     f"({len(answers):,} of {total:,} topic(s))")  # fmt: skip
    return answers


def _unless_done(
    cluster: Executing,
    changes: Mapping[int, C],
    answers: dict[str, Failure | None],
    code: str,
    note: Callable[[C], str],
    *,
    configs: bool = False,
) -> dict[int, Sent]:
    """Each change's answer, where a refusal with `code` may mean the cluster already has the
    change (a topic made meanwhile, a count already reached): those topics are read again, and
    one the cluster shows as planned (verdict.judge; `configs`: its configs read too) is
    AlreadyDone; otherwise the refusal stands."""
    refused = [t for t, f in answers.items() if f is not None and f.code == code]
    seen = cluster.topics(refused, configs=configs)
    sent: dict[int, Sent] = {}
    for op_id, change in changes.items():
        if change.topic in refused and isinstance(judge(change, seen.get(change.topic)), Done):
            sent[op_id] = AlreadyDone(note(change))
        else:
            sent[op_id] = _answer(answers, change.topic)
    return sent


def _create(
    cluster: Executing,
    state: ClusterState,
    ops: Sequence[Operation],
    progress: Callable[[str], None],
) -> dict[int, Sent]:
    changes = {op.id: op.change for op in ops if isinstance(op.change, CreateTopic)}
    answers = _each(
        batching.batches(
            list(changes.values()),
            lambda c: batching.create_weight(c, state),
            batching.MAX_RECORDS_PER_REQUEST,
        ),
        lambda batch: cluster.create_topics([batching.new_topic(c) for c in batch]),
        progress,
        "CreateTopics",
    )
    # Someone (an interrupted apply, another tool) made it meanwhile: as planned is success,
    # with other settings a refusal.
    return _unless_done(
        cluster,
        changes,
        answers,
        "TOPIC_ALREADY_EXISTS",
        lambda _: "the topic already existed as planned",
        configs=True,
    )


def _configure(
    cluster: TopicWriter,
    state: ClusterState,
    ops: Sequence[Operation],
    progress: Callable[[str], None],
) -> dict[int, Sent]:
    updates = {
        op.id: batching.config_update(op.change, state.topics.get(op.topic))
        for op in ops
        if isinstance(op.change, AlterTopicConfig)
    }
    answers = _each(
        batching.batches(
            list(updates.values()), batching.update_weight, batching.MAX_RECORDS_PER_REQUEST
        ),
        cluster.alter_topic_configs,
        progress,
        "IncrementalAlterConfigs",
    )
    return {op_id: _answer(answers, u.topic) for op_id, u in updates.items()}


def _partitions(
    cluster: Executing, ops: Sequence[Operation], progress: Callable[[str], None]
) -> dict[int, Sent]:
    changes = {op.id: op.change for op in ops if isinstance(op.change, IncreasePartitions)}
    answers = _each(
        batching.batches(
            list(changes.values()), batching.increase_weight, batching.MAX_PARTITIONS_PER_REQUEST
        ),
        lambda batch: cluster.create_partitions([batching.partitions_request(c) for c in batch]),
        progress,
        "CreatePartitions",
    )
    # A count already reached is refused as INVALID_PARTITIONS (counts are absolute, KIP-195)
    return _unless_done(
        cluster,
        changes,
        answers,
        "INVALID_PARTITIONS",
        lambda c: f"the topic already had {c.desired} partitions",
    )


def _delete(
    cluster: TopicWriter, ops: Sequence[Operation], progress: Callable[[str], None]
) -> dict[int, Sent]:
    answers = _each(
        batching.batches([op.topic for op in ops], lambda _: 1, batching.MAX_RECORDS_PER_REQUEST),
        cluster.delete_topics,
        progress,
        "DeleteTopics",
    )
    sent: dict[int, Sent] = {}
    for op in ops:
        answer = answers.get(op.topic)
        if answer is not None and answer.code in ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_ID"):
            sent[op.id] = AlreadyDone("the topic was already gone")
        else:
            sent[op.id] = _answer(answers, op.topic)
    return sent
