"""Running the levels: one request per kind per level, then wait until metadata shows it.

For each level, in order:
  1. skip operations whose prerequisites failed or were skipped (and, after a failure with
     --fail-fast, everything left);
  2. recognise operations the cluster already shows (state read at the start of this apply:
     a re-run after an interruption) and do not repeat them;
  3. send the rest in one request per kind, split only where Kafka's 10,000 partitions per
     request demands it;
  4. treat answers that mean "already done" (TOPIC_ALREADY_EXISTS for a topic that now matches,
     a partition count already reached, a topic already gone) as success;
  5. poll metadata, batched, until every applied change is visible; reassignments are followed
     until the controller reports them complete.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from reconciler.apply.operations import Level, Operation, Step, blocked_by
from reconciler.apply.results import OperationResult, Status
from reconciler.apply.sentences import sentence
from reconciler.cluster import adapter
from reconciler.cluster.adapter import (
    ConfigUpdate,
    Connection,
    Failure,
    NewTopicRequest,
    Observed,
    PartitionsRequest,
)
from reconciler.cluster.state import ClusterState
from reconciler.errors import ClusterError
from reconciler.planning.changes import (
    AlterTopicConfig,
    CreateTopic,
    DeleteTopic,
    IncreasePartitions,
    ReassignReplicas,
)
from reconciler.spec.units import format_size_bytes

MAX_PARTITIONS_PER_REQUEST = 10_000  # Kafka's MAX_PARTITIONS_PER_BATCH (POLICY_VIOLATION above)
# The KRaft controller also refuses one operation writing more than 10,000 metadata records
# (QuorumController MAX_RECORDS_PER_USER_OP, POLICY_VIOLATION "excessively large batch"),
# measured here: a create writes a topic record, one per partition and one per config override.
MAX_RECORDS_PER_REQUEST = 10_000
CONFIRMATIONS = 3  # reads by fresh clients that must agree before apply returns

Progress = Callable[[str], None]
T = TypeVar("T")

_VERB = {
    Step.CREATE: "create",
    Step.CONFIG: "configure",
    Step.PARTITIONS: "partitions",
    Step.REASSIGN: "reassign",
    Step.RAISE_ISR: "configure",
    Step.DELETE: "delete",
}


@dataclass(frozen=True, slots=True)
class Options:
    fail_fast: bool = False
    wait_timeout: float = 120.0  # seconds for metadata to show a level's changes
    reassignment_timeout: float = 3600.0  # seconds for reassignments to complete
    throttle: int | None = None  # bytes/s per broker for reassignment traffic; None: unthrottled
    poll_interval: float = 0.25


def batches(items: Sequence[T], weight: Callable[[T], int], limit: int) -> Iterator[list[T]]:
    """Consecutive runs of items whose weights sum to at most `limit` (an item alone may not)."""
    batch: list[T] = []
    total = 0
    for item in items:
        w = weight(item)
        if batch and total + w > limit:
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += w
    if batch:
        yield batch


def create_weight(change: CreateTopic, state: ClusterState) -> int:
    """Metadata records a create writes (a topic record, one per partition, one per config
    override), which also bounds its partitions; KIP-464 default partitions if unset."""
    if change.assignments:
        partitions = len(change.assignments)
    elif change.partitions is not None:
        partitions = change.partitions
    else:
        default = state.broker_defaults.get("num.partitions", "1")
        partitions = int(default) if default.isdigit() else 1
    return 1 + partitions + len(change.config)


def new_topic(change: CreateTopic) -> NewTopicRequest:
    return NewTopicRequest(
        change.topic,
        change.partitions,
        change.replication_factor,
        change.config,
        change.assignments,
    )


def partitions_request(change: IncreasePartitions) -> PartitionsRequest:
    return PartitionsRequest(change.topic, change.desired, change.assignments)


def pending_config(change: AlterTopicConfig, state: ClusterState) -> ConfigUpdate:
    """The entries the cluster does not show yet (all of them if the state has no such topic)."""
    topic = state.topics.get(change.topic)
    overrides = topic.overrides if topic is not None else {}
    to_set = tuple(
        (e.key, e.desired)
        for e in change.entries
        if e.desired is not None and (topic is None or overrides.get(e.key) != e.desired)
    )
    to_delete = tuple(
        e.key for e in change.entries if e.desired is None and (topic is None or e.key in overrides)
    )
    return ConfigUpdate(change.topic, to_set, to_delete)


def already_done(op: Operation, state: ClusterState) -> str | None:
    """Why the cluster already shows `op` (a note for the summary), or None if it does not."""
    change = op.change
    topic = state.topics.get(op.topic)
    match change:
        case CreateTopic():
            if topic is not None and _matches_create(
                change, len(topic.partitions), topic.replication_factor
            ):
                return "the topic already exists as planned"
            return None
        case AlterTopicConfig():
            update = pending_config(change, state)
            return None if update.set or update.delete else "the configs are already set"
        case IncreasePartitions():
            if topic is not None and len(topic.partitions) >= change.desired:
                return f"the topic already has {len(topic.partitions)} partitions"
            return None
        case ReassignReplicas():
            if topic is None:
                return None
            now = tuple(p.replicas for p in topic.partitions)
            moving = any(r.topic == op.topic for r in state.reassignments)
            if not moving and _same_replicas(now, change.target):
                return "the replicas are already where planned"
            return None
        case DeleteTopic():
            return "the topic is already gone" if topic is None else None


def _matches_create(change: CreateTopic, partitions: int, rf: int) -> bool:
    if change.assignments:
        return partitions == len(change.assignments) and rf == len(change.assignments[0])
    if change.partitions is not None and partitions != change.partitions:
        return False
    return change.replication_factor is None or rf == change.replication_factor


def _same_replicas(now: tuple[tuple[int, ...], ...], target: tuple[tuple[int, ...], ...]) -> bool:
    return len(now) == len(target) and all(
        set(a) == set(b) for a, b in zip(now, target, strict=True)
    )


class Executor:
    """Runs levels against one cluster; results accumulate in `results`."""

    def __init__(
        self,
        connection: Connection,
        state: ClusterState,
        options: Options,
        progress: Progress,
    ) -> None:
        self.connection = connection
        self.admin = connection.admin()
        self.state = state
        self.options = options
        self.progress = progress
        self.results: dict[int, OperationResult] = {}
        self.stopped = False

    # --- the loop -------------------------------------------------------------------------------

    def run(self, levels: Sequence[Level]) -> tuple[OperationResult, ...]:
        ordered: list[Operation] = []
        for number, level in enumerate(levels, start=1):
            ordered.extend(level.operations)
            self.progress(
                f"level {number}/{len(levels)}: {level.name}: {len(level.operations)} operation(s)"
            )
            self._level(level)
            if self.options.fail_fast and any(
                self.results[o.id].status is Status.FAILED for o in level.operations
            ):
                self.stopped = True
        self._settle(ordered)
        return tuple(self.results[o.id] for o in ordered)

    def _settle(self, ops: list[Operation]) -> None:
        """Before returning, wait (bounded) until every broker reader agrees on what was applied.

        Between levels the controller is what counts (it orders creates after their
        dependencies); at the end, the next reader (a plan right after apply) may ask another
        broker, which learns metadata from the controller asynchronously.
        """
        applied = [op for op in ops if self.results[op.id].status is Status.APPLIED]
        if not applied:
            return
        configs = any(op.step in (Step.CONFIG, Step.RAISE_ISR) for op in applied)
        deadline = time.monotonic() + self.options.wait_timeout
        while self._lagging(applied, configs):
            if time.monotonic() > deadline:
                self.progress("  note: some brokers do not show every change yet")
                return
            time.sleep(self.options.poll_interval)

    def _unsuccessful(self) -> set[int]:
        return {i for i, r in self.results.items() if not r.status.succeeded}

    def _level(self, level: Level) -> None:
        started = time.time()
        clock = time.monotonic()
        to_run: list[Operation] = []
        for op in level.operations:
            if self.stopped:
                self._done(op, Status.SKIPPED, "not run: --fail-fast stopped the apply", started)
                continue
            blockers = blocked_by(op, self._unsuccessful())
            if blockers:
                names = sorted({self.results[i].operation.summary for i in blockers})
                self._done(op, Status.SKIPPED, f"not run: it needs {'; '.join(names)}", started)
                continue
            note = already_done(op, self.state)
            if note is not None:
                self._done(op, Status.UNCHANGED, note, started)
                continue
            to_run.append(op)
        if not to_run:
            return
        outcome = self._send(level.step, to_run)
        applied = [op for op in to_run if outcome.get(op.id) is None]
        for op in to_run:
            failure = outcome.get(op.id)
            if isinstance(failure, Failure):
                self._done(op, Status.FAILED, sentence(failure, op.topic, _VERB[op.step]), started)
            elif isinstance(failure, str):
                self._done(op, Status.UNCHANGED, failure, started)
        late = self._wait(level.step, applied)
        seconds = time.monotonic() - clock
        for op in applied:
            if op.id in late:
                self._done(op, Status.FAILED, late[op.id], started, seconds)
            else:
                self._done(op, Status.APPLIED, "", started, seconds)

    def _done(
        self,
        op: Operation,
        status: Status,
        message: str,
        started: float,
        seconds: float = 0.0,
    ) -> None:
        self.results[op.id] = OperationResult(op, status, message, started, seconds)

    # --- requests -------------------------------------------------------------------------------

    def _send(self, step: Step, ops: list[Operation]) -> dict[int, Failure | str | None]:
        """Per operation: None (sent, accepted), a Failure, or a note that it was already done."""
        match step:
            case Step.CREATE:
                return self._create(ops)
            case Step.CONFIG | Step.RAISE_ISR:
                return self._configure(ops)
            case Step.PARTITIONS:
                return self._partitions(ops)
            case Step.REASSIGN:
                return self._reassign(ops)
            case Step.DELETE:
                return self._delete(ops)

    def _create(self, ops: list[Operation]) -> dict[int, Failure | str | None]:
        changes = {op.id: op.change for op in ops if isinstance(op.change, CreateTopic)}
        answers: dict[str, Failure | None] = {}
        for batch in batches(
            list(changes.values()),
            lambda c: create_weight(c, self.state),
            MAX_RECORDS_PER_REQUEST,
        ):
            answers |= adapter.create_topics(
                self.connection, self.admin, [new_topic(c) for c in batch]
            )
        outcome: dict[int, Failure | str | None] = {}
        exists = [
            c.topic
            for c in changes.values()
            if _code(answers.get(c.topic)) == "TOPIC_ALREADY_EXISTS"
        ]
        seen = adapter.observe(self.connection, self.admin, exists) if exists else {}
        for op_id, change in changes.items():
            answer = answers.get(change.topic)
            found = seen.get(change.topic)
            if answer is not None and answer.code == "TOPIC_ALREADY_EXISTS" and found is not None:
                rf = max((len(r) for r in found.replicas), default=0)
                if _matches_create(change, found.partitions, rf):
                    outcome[op_id] = "the topic already existed as planned"
                    continue
            outcome[op_id] = answer
        return outcome

    def _configure(self, ops: list[Operation]) -> dict[int, Failure | str | None]:
        updates = {
            op.id: pending_config(op.change, self.state)
            for op in ops
            if isinstance(op.change, AlterTopicConfig)
        }
        answers: dict[str, Failure | None] = {}
        for batch in batches(
            list(updates.values()),
            lambda u: len(u.set) + len(u.delete),
            MAX_RECORDS_PER_REQUEST,
        ):
            answers |= adapter.alter_topic_configs(self.connection, self.admin, batch)
        return {op_id: answers.get(u.topic) for op_id, u in updates.items()}

    def _partitions(self, ops: list[Operation]) -> dict[int, Failure | str | None]:
        changes = {op.id: op.change for op in ops if isinstance(op.change, IncreasePartitions)}
        answers: dict[str, Failure | None] = {}
        for batch in batches(
            list(changes.values()), lambda c: c.desired - c.current, MAX_PARTITIONS_PER_REQUEST
        ):
            answers |= adapter.create_partitions(
                self.connection, self.admin, [partitions_request(c) for c in batch]
            )
        outcome: dict[int, Failure | str | None] = {}
        retry = [
            c.topic for c in changes.values() if _code(answers.get(c.topic)) == "INVALID_PARTITIONS"
        ]
        seen = adapter.observe(self.connection, self.admin, retry) if retry else {}
        for op_id, change in changes.items():
            found = seen.get(change.topic)
            if found is not None and found.partitions >= change.desired:
                outcome[op_id] = f"the topic already had {found.partitions} partitions"
            else:
                outcome[op_id] = answers.get(change.topic)
        return outcome

    def _delete(self, ops: list[Operation]) -> dict[int, Failure | str | None]:
        answers: dict[str, Failure | None] = {}
        for batch in batches([op.topic for op in ops], lambda _: 1, MAX_RECORDS_PER_REQUEST):
            answers |= adapter.delete_topics(self.connection, self.admin, batch)
        outcome: dict[int, Failure | str | None] = {}
        for op in ops:
            answer = answers.get(op.topic)
            if answer is not None and answer.code in ("UNKNOWN_TOPIC_OR_PART", "UNKNOWN_TOPIC_ID"):
                outcome[op.id] = "the topic was already gone"
            else:
                outcome[op.id] = answer
        return outcome

    def _reassign(self, ops: list[Operation]) -> dict[int, Failure | str | None]:
        """Start every partition move of the level in one request, then follow them to the end."""
        changes = {op.id: op.change for op in ops if isinstance(op.change, ReassignReplicas)}
        topics = [c.topic for c in changes.values()]
        moving = adapter.reassigning(self.connection, topics)
        seen = adapter.observe(self.connection, self.admin, topics)
        targets: dict[tuple[str, int], tuple[int, ...]] = {}
        for change in changes.values():
            found = seen.get(change.topic)
            now = found.replicas if found is not None else ()
            for partition, target in enumerate(change.target):
                key = (change.topic, partition)
                current = now[partition] if partition < len(now) else ()
                in_flight = moving.get(key)
                if in_flight is not None and tuple(in_flight["replicas"]) == tuple(target):
                    continue  # started by an interrupted run: just follow it
                if tuple(current) != tuple(target) or in_flight is not None:
                    targets[key] = tuple(target)
        self.progress(f"  reassigning {len(targets)} partition(s) of {len(changes)} topic(s)")
        throttle = None
        if self.options.throttle is not None and targets:
            try:
                throttle = self._throttle(targets, seen)
            except ClusterError as exc:
                refused = Failure("THROTTLE_FAILED", str(exc))
                return dict.fromkeys(changes, refused)
        try:
            answers = adapter.alter_reassignments(self.connection, targets)
            outcome: dict[int, Failure | str | None] = {}
            for op_id, change in changes.items():
                failures = [
                    f for (t, _), f in answers.items() if t == change.topic and f is not None
                ]
                outcome[op_id] = failures[0] if failures else None
            started = [c for op_id, c in changes.items() if outcome[op_id] is None]
            self._follow_reassignments(started)
        finally:
            if throttle is not None:
                self._unthrottle(throttle)
        return outcome

    def _throttle(
        self, targets: dict[tuple[str, int], tuple[int, ...]], seen: dict[str, Observed | None]
    ) -> adapter.Throttle:
        """Throttle the copies these moves make (replicas holding the data -> new replicas)."""
        assert self.options.throttle is not None
        sources: dict[str, list[str]] = {}
        destinations: dict[str, list[str]] = {}
        brokers: set[int] = set()
        for (topic, partition), target in sorted(targets.items()):
            found = seen.get(topic)
            now = found.replicas[partition] if found and partition < len(found.replicas) else ()
            sources.setdefault(topic, []).extend(f"{partition}:{b}" for b in now)
            destinations.setdefault(topic, []).extend(
                f"{partition}:{b}" for b in target if b not in now
            )
            brokers.update(now, target)
        moves = {
            t: adapter.Moves(tuple(sources[t]), tuple(destinations.get(t, ()))) for t in sources
        }
        throttle = adapter.set_throttle(
            self.connection, self.admin, self.options.throttle, moves, brokers
        )
        self.progress(
            f"  throttling replication to {format_size_bytes(throttle.rate)}/s on broker(s) "
            f"{', '.join(map(str, throttle.brokers)) or 'none'}"
        )
        for broker, rate in throttle.kept:
            self.progress(f"  broker {broker} keeps its own throttle of {rate} bytes/s")
        return throttle

    def _unthrottle(self, throttle: adapter.Throttle) -> None:
        try:
            adapter.clear_throttle(self.connection, self.admin, throttle)
        except ClusterError as exc:
            self.progress(
                f"  warning: the replication throttle could not be removed ({exc}); remove "
                "leader/follower.replication.throttled.* with kafka-configs.sh"
            )
        else:
            self.progress("  replication throttle removed")

    def _follow_reassignments(self, changes: list[ReassignReplicas]) -> None:
        if not changes:
            return
        topics = [c.topic for c in changes]
        total = sum(len(c.target) for c in changes)
        deadline = time.monotonic() + self.options.reassignment_timeout
        last = -1
        with self.connection.reassignments_admin() as watcher:  # one client for every poll
            while time.monotonic() < deadline:
                left = len(adapter.reassigning(self.connection, topics, watcher))
                if left != last:
                    self.progress(f"  reassignment: {total - left}/{total} partition(s) done")
                    last = left
                if left == 0:
                    return
                time.sleep(max(self.options.poll_interval, 1.0))

    # --- waiting for metadata -------------------------------------------------------------------

    def _wait(self, step: Step, ops: list[Operation]) -> dict[int, str]:
        """Poll until metadata shows every op's change; ops still not shown -> why (a sentence)."""
        if not ops:
            return {}
        names = sorted({op.topic for op in ops})
        configs = step in (Step.CONFIG, Step.RAISE_ISR)
        deadline = time.monotonic() + self.options.wait_timeout
        pending = list(ops)
        while True:
            seen = adapter.observe(self.connection, self.admin, names, configs=configs)
            pending = [op for op in pending if not _visible(op, seen.get(op.topic), self.state)]
            if not pending or time.monotonic() > deadline:
                break
            names = sorted({op.topic for op in pending})
            time.sleep(self.options.poll_interval)
        return {
            op.id: (
                f"Kafka accepted it but metadata did not show it within "
                f"{self.options.wait_timeout:.0f} s; re-run apply, which checks the cluster and "
                "only does what is left"
            )
            for op in pending
        }

    def _lagging(self, ops: list[Operation], configs: bool) -> list[Operation]:
        """Ops that some reader does not see yet: fresh clients ask brokers of librdkafka's
        choosing, not always the same one, and must all agree."""
        names = sorted({op.topic for op in ops})
        for _ in range(CONFIRMATIONS):
            seen = adapter.observe(self.connection, self.connection.admin(), names, configs)
            behind = [op for op in ops if not _visible(op, seen.get(op.topic), self.state)]
            if behind:
                return behind
        return []


def _visible(op: Operation, seen: Observed | None, state: ClusterState) -> bool:
    change = op.change
    match change:
        case CreateTopic():
            if seen is None or not seen.led:
                return False
            rf = max((len(r) for r in seen.replicas), default=0)
            return _matches_create(change, seen.partitions, rf)
        case AlterTopicConfig():
            if seen is None:
                return False
            update = pending_config(change, state)
            return all(k in seen.overrides for k, _ in update.set) and not any(
                k in seen.overrides for k in update.delete
            )
        case IncreasePartitions():
            return seen is not None and seen.led and seen.partitions >= change.desired
        case ReassignReplicas():
            return (
                seen is not None
                and _same_replicas(seen.replicas, change.target)
                and all(set(i) == set(r) for i, r in zip(seen.isr, seen.replicas, strict=True))
            )
        case DeleteTopic():
            return seen is None


def _code(failure: Failure | None) -> str | None:
    return failure.code if failure is not None else None
