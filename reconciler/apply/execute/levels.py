"""Running the levels: what to skip, what to send, and when each change counts as applied.

For each level, in order:
  1. skip operations whose prerequisites failed or were skipped (and, after a failure with
     --fail-fast, everything left);
  2. judge each against the state read at the start of this apply (status.judge): what the
     cluster already shows is not repeated (a re-run after an interruption), what diverged
     from the plan is not touched;
     Before the first delete level, the in-use evidence of the topics about to be deleted is
     read again (in_use.py): a delete now in use beyond what the plan showed is Diverged too;
  3. send the rest in one request per kind (dispatch.py; replication-factor changes are also
     followed to the end there), taking answers that mean "already done" as success;
  4. wait until metadata shows every change Kafka accepted (wait.py). A level that makes
     partitions and needs several requests (creates past 10,000 metadata records, increases
     past 10,000 partitions) does 3 and 4 request by request (`paced`).
At the end, wait (bounded) until fresh readers all see every applied change.
A stop asked by a signal (stopping.py) ends the loop after the request in flight: the
operations not sent are `skipped`, and the final wait is left out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from reconciler import stopping
from reconciler.apply.execute import batching, dispatch, wait
from reconciler.apply.execute.dispatch import (
    Accepted,
    AlreadyDone,
    Moving,
    NotSent,
    Reassigning,
    Refused,
)
from reconciler.apply.execute.operations import Level, Operation, Step, blocked_by
from reconciler.apply.execute.sentences import sentence
from reconciler.apply.execute.throttling import Ledger
from reconciler.apply.execute.verdict import Diverged, Done, NotStarted, Partly, judge
from reconciler.apply.record.outcome import OperationResult, Status
from reconciler.cluster.ports import Executing
from reconciler.cluster.state import ClusterState
from reconciler.planning.changes import CreateTopic, IncreasePartitions

Progress = Callable[[str], None]
BeforeLevel = Callable[[int, Level], None]  # may raise to stop the apply before the level
AfterLevel = Callable[[int, int, tuple[OperationResult, ...]], None]  # level, of, its results
# Topics about to be deleted -> those now in use beyond what the plan showed, with why (in_use.py)
InUse = Callable[[Sequence[str]], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class Options:
    fail_fast: bool = False
    wait_timeout: float = 120.0  # seconds for metadata to show a level's changes
    reassignment_timeout: float = 3600.0  # seconds for reassignments to complete
    throttle: int | None = None  # bytes/s per broker for reassignment traffic; None: unthrottled
    poll_interval: float = 0.25


class Executor:
    """Runs levels against one cluster; results accumulate in `results`."""

    def __init__(
        self,
        cluster: Executing,
        state: ClusterState,
        options: Options,
        progress: Progress,
        before_level: BeforeLevel | None = None,
        after_level: AfterLevel | None = None,
        ledger: Ledger | None = None,
        in_use: InUse | None = None,
    ) -> None:
        self.cluster = cluster
        self.state = state
        self.options = options
        self.progress = progress
        self.before_level = before_level  # the lock's lease check
        self.after_level = after_level  # the audit journal's progress record
        self.ledger = ledger  # the audit journal's throttle records
        self.in_use = in_use  # the in-use evidence read again before the deletes
        self.diverged: dict[str, str] | None = None  # topic -> why, once read
        self.results: dict[int, OperationResult] = {}
        self.stopped = False

    def run(self, levels: Sequence[Level]) -> tuple[OperationResult, ...]:
        ordered: list[Operation] = []
        for number, level in enumerate(levels, start=1):
            ordered.extend(level.operations)
            if stopping.asked():
                for op in level.operations:
                    self._done(op, Status.SKIPPED, _stopped(), time.time())
                continue
            if self.before_level is not None:
                self.before_level(number, level)
            if level.step is Step.DELETE and self.diverged is None:
                self.diverged = self._in_use_now(levels)
            stopping.test_point(f"level-{number}")
            self.progress(
                f"level {number}/{len(levels)}: {level.name}: {len(level.operations)} operation(s)"
            )
            self._level(level, number)
            if self.after_level is not None:
                done = tuple(self.results[o.id] for o in level.operations)
                self.after_level(number, len(levels), done)
            stopping.test_point(f"after-level-{number}")
            if self.options.fail_fast and any(
                self.results[o.id].status is Status.FAILED for o in level.operations
            ):
                self.stopped = True
        applied = [op for op in ordered if self.results[op.id].status is Status.APPLIED]
        if stopping.asked():
            return tuple(self.results[o.id] for o in ordered)  # asked to stop: no more waiting
        wait.settle(
            self.cluster,
            applied,
            self.options.wait_timeout,
            self.options.poll_interval,
            self.progress,
        )
        return tuple(self.results[o.id] for o in ordered)

    def _level(self, level: Level, number: int) -> None:
        started = time.time()
        clock = time.monotonic()
        to_run = [op for op in level.operations if self._runs(op, started)]
        if not to_run:
            return
        stopping.test_point(f"in-flight-{number}")
        reassigning = Reassigning(
            self.options.throttle,
            self.options.reassignment_timeout,
            self.options.poll_interval,
            self.ledger,
        )
        rounds = paced(level.step, to_run, self.state)
        shown = 0
        slowest = 0.0
        unshown: dict[Operation, str] = {}  # accepted, not shown yet (why): waited for again
        for index, group in enumerate(rounds):
            if index and stopping.asked():  # between two requests, as dispatch stops
                for op in group:
                    self._done(op, Status.SKIPPED, _stopped(), started)
                for op, why in unshown.items():  # no later wait: late as their own wait said
                    self._done(op, Status.FAILED, why, started, time.monotonic() - clock)
                unshown = {}
                continue
            # The brokers set the pace: a request may take as long to show as the slowest one
            # so far, and longer as the cluster grows (measured: 3,333 creates on seven busy
            # brokers took 11 to over 300 s each to show, not in order of size), so each wait
            # allows three times the slowest, within ten wait timeouts
            patience = min(
                max(self.options.wait_timeout, PATIENCE * slowest), 10 * self.options.wait_timeout
            )
            sent = time.monotonic()
            last = index == len(rounds) - 1
            now_shown, unshown = self._round(
                level.step, group, unshown, reassigning, started, clock, patience, last
            )
            shown += now_shown
            slowest = max(slowest, time.monotonic() - sent)
            if len(rounds) > 1:
                self.progress(_paced_line(level.step, index, len(rounds), shown, to_run, unshown))

    def _round(
        self,
        step: Step,
        to_run: list[Operation],
        unshown: dict[Operation, str],
        reassigning: Reassigning,
        started: float,
        clock: float,
        patience: float,
        last: bool,
    ) -> tuple[int, dict[Operation, str]]:
        """Send `to_run` and wait until metadata shows what Kafka accepted, and what earlier
        requests' metadata did not show yet (`unshown`), allowing `patience` seconds without
        more shown; how many now show, and which are still not shown. On the `last` request
        of a level, those not shown are late (failed, with why); before it they are waited
        for with the next request: a request that shows late (measured: one of 31 at 100,000
        topics) is not lost to its timeout."""
        sent = dispatch.send(self.cluster, self.state, step, to_run, reassigning, self.progress)
        accepted: list[Operation] = []
        for op in to_run:
            match sent[op.id]:
                case Accepted():
                    accepted.append(op)
                case AlreadyDone(note):
                    self._done(op, Status.UNCHANGED, note, started)
                case Refused(failure):
                    words = sentence(failure, op.topic, type(op.change))
                    self._done(op, Status.FAILED, words, started)
                case NotSent():
                    self._done(op, Status.SKIPPED, _stopped(), started)
                case Moving(note):
                    self._done(op, Status.IN_PROGRESS, note, started)
                case other:
                    assert_never(other)
        waited = [*unshown, *accepted]
        late = wait.for_level(
            self.cluster,
            step,
            waited,
            patience,
            self.options.poll_interval,
            self.progress,
        )
        seconds = time.monotonic() - clock
        # asked once: a signal between two asks left changes neither late nor carried
        final = last or stopping.asked() is not None
        carried: dict[Operation, str] = {}
        for op in waited:
            if op.id not in late:
                self._done(op, Status.APPLIED, "", started, seconds)
            elif final:
                self._done(op, Status.FAILED, late[op.id], started, seconds)
            else:
                carried[op] = late[op.id]
        return len(waited) - len(late), carried

    def _in_use_now(self, levels: Sequence[Level]) -> dict[str, str]:
        """Right before the first delete level, under the lock: the topics about to be deleted
        (every delete level's) that the evidence read now shows in use beyond the plan."""
        if self.in_use is None:
            return {}
        topics = [op.topic for lv in levels if lv.step is Step.DELETE for op in lv.operations]
        self.progress(f"reading the in-use evidence of {len(topics)} topic(s) again")
        return dict(self.in_use(topics))

    def _runs(self, op: Operation, started: float) -> bool:
        """Whether `op` is to be sent; if not, its result is recorded here."""
        if self.stopped:
            self._done(op, Status.SKIPPED, "not run: --fail-fast stopped the apply", started)
            return False
        blockers = blocked_by(op, self._unsuccessful())
        if blockers:
            names = sorted({self.results[i].operation.summary for i in blockers})
            self._done(op, Status.SKIPPED, f"not run: it needs {'; '.join(names)}", started)
            return False
        why = (self.diverged or {}).get(op.topic) if op.step is Step.DELETE else None
        if why is not None:
            self._done(
                op,
                Status.FAILED,
                f"not run: diverged since the plan was made ({why}); plan again and review the "
                "new plan",
                started,
            )
            return False
        verdict = judge(op.change, self.state.topics.get(op.topic), self.state.reassignments)
        match verdict:
            case Done(note):
                self._done(op, Status.UNCHANGED, note, started)
                return False
            case Diverged(reason):
                # Pre-flight refuses such a plan as stale; this is its last line of defence
                self._done(
                    op,
                    Status.FAILED,
                    f"not run: the cluster changed since the plan was made ({reason}); plan "
                    "again and review the new plan",
                    started,
                )
                return False
            case NotStarted() | Partly():
                return True
            case _:
                assert_never(verdict)

    def _unsuccessful(self) -> set[int]:
        return {i for i, r in self.results.items() if not r.status.succeeded}

    def _done(
        self,
        op: Operation,
        status: Status,
        message: str,
        started: float,
        seconds: float = 0.0,
    ) -> None:
        self.results[op.id] = OperationResult(op, status, message, started, seconds)


REQUESTS = {Step.CREATE: "CreateTopics", Step.PARTITIONS: "CreatePartitions"}  # paced steps
PATIENCE = 3.0  # a paced request's wait: this many times the slowest one's time to show


def _paced_line(
    step: Step,
    index: int,
    rounds: int,
    shown: int,
    to_run: Sequence[Operation],
    unshown: Mapping[Operation, str],
) -> str:
    """What one paced request came to: shown, or answered with some not shown yet."""
    head = f"  {REQUESTS[step]}: request {index + 1}/{rounds} answered"
    total = f"{shown:,} of {len(to_run):,} topic(s) shown"
    if not unshown:
        return f"{head} and shown ({total})"
    return (
        f"{head}; {len(unshown):,} accepted but not shown yet, waited for with the next ({total})"
    )


def paced(step: Step, ops: list[Operation], state: ClusterState) -> list[list[Operation]]:
    """The level's operations in rounds of one request each where the requests make
    partitions (creates, partition increases): the next request is sent once metadata shows
    the last one's, so the brokers set the pace. Sent back to back, 30,000 creates left brokers
    minutes behind the controller (each makes every new partition's log before its metadata
    shows the next request's), past the wait's timeout. Other steps: one round."""
    if step is Step.CREATE:
        return list(
            batching.batches(ops, lambda op: _created(op, state), batching.MAX_RECORDS_PER_REQUEST)
        )
    if step is Step.PARTITIONS:
        return list(batching.batches(ops, _added, batching.MAX_PARTITIONS_PER_REQUEST))
    return [ops]


def _created(op: Operation, state: ClusterState) -> int:
    return batching.create_weight(op.change, state) if isinstance(op.change, CreateTopic) else 1


def _added(op: Operation) -> int:
    return batching.increase_weight(op.change) if isinstance(op.change, IncreasePartitions) else 1


def _stopped() -> str:
    return f"not run: the apply was stopped by {stopping.asked()}; re-run apply to finish"
