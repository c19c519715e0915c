"""The audit record as a write-ahead log on the cluster's audit topic.

Every apply that reaches execution writes, under one `apply_id`:

    started    before the first change (the topic made ready and the write acknowledged
               first: an apply that cannot journal changes nothing): who, git, plan hash and
               the plan's changes
    progress   after each level: that level's results, by operation id
    finished   at the end: the whole audit record, every change's result
    closed     written by a later apply for one that never finished (killed, crashed, its
               machine lost): what the cluster shows for each planned change (status.judge)
               and what its progress records reported (matched by operation id)
    throttle   before a replication throttle is set (apply --throttle): the rate, the brokers
               and each topic's replicas it adds, under a `throttle_id`
    unthrottle once that throttle is removed (by this apply, or by a later one if it was left)
    cancel     `apply --cancel-reassignments` (apply/cancel.py), before its request: who and the
               moves it asks Kafka to stop, under a `cancel_id`
    cancelled  after it: what Kafka refused, what it still lists

The last part of a finished or closed record also carries `throttles_left`: every recorded
throttle not removed by then, so a reader finds all of them by reading back to the last end
(`read_tail`, `Tail.throttles`), as it finds unfinished applies.

Records are cut into parts of at most audit_record.CHUNK changes (`part`, `parts`), so an
apply of 10,000 changes stays far below the topic's max.message.bytes. A finished or closed
record's last part ends an apply; the next apply reads the topic back from its end to the last
such part, and closes every apply it finds started after it. The four kinds of an apply's
record are built and parsed by audit_record.py only (the throttle ledger's: this module).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from reconciler.apply.execute.operations import Operation
from reconciler.apply.execute.verdict import Diverged, Done, NotStarted, Partly, judge
from reconciler.apply.record import audit_record
from reconciler.apply.record.audit_record import (
    ClosedRow,
    Finished,
    Origin,
    Row,
    Started,
    decode,
    encode,
    operation_id,
    part_number,
)
from reconciler.apply.record.outcome import OperationResult
from reconciler.cluster.ports import AuditLog
from reconciler.cluster.protocol.throttles import Throttle
from reconciler.cluster.state import ClusterState
from reconciler.errors import ClusterError, ReconcilerError

_ENDS = ("finished", "closed")
_LEDGER = ("throttle", "unthrottle", "cancel", "cancelled")
_ENVELOPE = ("format_version", "kind", "part", "parts")

Progress = Callable[[str], None]


@dataclass
class Journal:
    """One apply's records; `level` and `finish` are best effort (they warn), `open` is not."""

    cluster: AuditLog
    apply_id: str
    progress: Progress
    errors: list[str] = field(default_factory=list)
    # Recorded throttles not removed yet, by throttle id: those left before this apply, and
    # its own while they are set
    throttles: dict[str, dict[str, Any]] = field(default_factory=dict)
    _ids: dict[Throttle, str] = field(default_factory=dict)
    who: str | None = None

    @staticmethod
    def open(
        cluster: AuditLog,
        header: Started,
        progress: Progress,
        throttles: dict[str, dict[str, Any]] | None = None,
    ) -> Journal:
        """Write the `started` record; raises ClusterError (nothing changed yet) if it cannot.
        `throttles`: the recorded throttles earlier applies left (`Tail.throttles`)."""
        journal = Journal(cluster, header.apply_id, progress, throttles=dict(throttles or {}))
        journal.who = header.who
        try:
            cluster.ensure_audit()
            cluster.write_audit(cluster.name, encode(header))
        except ClusterError as exc:
            raise ClusterError(
                f"the audit record could not be started, so nothing was changed: {exc}"
            ) from exc
        return journal

    def level(self, number: int, total: int, results: Sequence[OperationResult]) -> None:
        record = audit_record.Progress(
            self.apply_id, number, total, tuple(Row.of(r) for r in results)
        )
        self._write(encode(record), "progress")

    def finish(self, record: Finished) -> str | None:
        """Write the final record, with the recorded throttles still set; returns why it
        failed (None: written)."""
        left = tuple(self.throttles.values())
        self._write(encode(dataclasses.replace(record, throttles_left=left)), "final")
        return self.errors[-1] if self.errors else None

    def throttle(self, throttle: Throttle) -> None:
        """Record a throttle about to be set; raises ClusterError if it cannot (the throttle
        is then not set: one nobody recorded would be left unseen if this apply died)."""
        throttle_id = str(uuid.uuid4())
        entry: dict[str, Any] = {
            "throttle_id": throttle_id,
            "apply_id": self.apply_id,
            "who": self.who,
            "rate": throttle.rate,
            "brokers": list(throttle.brokers),
            "topics": [[t, list(leader), list(follower)] for t, leader, follower in throttle.added],
        }
        self.cluster.write_audit(self.cluster.name, [audit_record.ledger("throttle", entry)])
        self.throttles[throttle_id] = entry
        self._ids[throttle] = throttle_id

    def unthrottled(self, throttle: Throttle | str) -> None:
        """Record that a throttle (this apply's, or a recorded one by id) was removed."""
        throttle_id = throttle if isinstance(throttle, str) else self._ids.pop(throttle, None)
        if throttle_id is None:
            return
        self.throttles.pop(throttle_id, None)
        entry = {"throttle_id": throttle_id, "apply_id": self.apply_id}
        self._write([audit_record.ledger("unthrottle", entry)], "throttle removal")

    def _write(self, parts: list[bytes], what: str) -> None:
        try:
            self.cluster.write_audit(self.cluster.name, parts)
        except ReconcilerError as exc:
            self.errors.append(str(exc))
            self.progress(
                f"warning: the audit journal's {what} record was not written ({exc}); the "
                "next apply closes this one's record with what the cluster shows"
            )


# --- closing the records of applies that never finished ---------------------------------------


@dataclass(frozen=True, slots=True)
class Tail:
    """The audit topic from the last record that ends an apply on: what a new apply (and a
    plan looking for leftovers) needs of the journal."""

    end: dict[str, Any] | None  # the last part of the last finished or closed record
    after: tuple[dict[str, Any], ...]  # every record after it, in log order

    @property
    def unfinished(self) -> dict[str, list[dict[str, Any]]]:
        """The records of applies started after the last finished or closed one, by apply id
        (throttle ledger records are not an apply's: they never make one unfinished)."""
        found: dict[str, list[dict[str, Any]]] = {}
        for r in self.after:
            if isinstance(r.get("apply_id"), str) and r.get("kind") not in _LEDGER:
                found.setdefault(r["apply_id"], []).append(r)
        return found

    @property
    def throttles(self) -> dict[str, dict[str, Any]]:
        """Every recorded throttle not recorded as removed, by throttle id: those the last end
        record left, plus those recorded after it, less those removed after it."""
        left = (self.end or {}).get("throttles_left", [])
        found = {t["throttle_id"]: t for t in left if isinstance(t, dict) and "throttle_id" in t}
        for r in self.after:
            if r.get("kind") == "throttle" and isinstance(r.get("throttle_id"), str):
                found[r["throttle_id"]] = {k: v for k, v in r.items() if k not in _ENVELOPE}
            elif r.get("kind") == "unthrottle":
                found.pop(str(r.get("throttle_id")), None)
        return found


def read_tail(cluster: AuditLog, wait: float = 10.0) -> Tail:
    """Read back from the end of the audit topic, in growing windows, only as far as the last
    record that ends an apply."""
    low, high = cluster.audit_offsets()
    tail: list[dict[str, Any]] = []
    start, window = high, 64
    while start > low:
        first = max(low, start - window)
        read = [decode(r.value) for r in cluster.audit_records(first, start, wait)]
        tail = [r for r in read if r is not None] + tail
        start, window = first, window * 4
        if any(_ends(r) for r in read if r is not None):
            break
    last_end = max((i for i, r in enumerate(tail) if _ends(r)), default=-1)
    return Tail(tail[last_end] if last_end >= 0 else None, tuple(tail[last_end + 1 :]))


def unfinished(cluster: AuditLog, wait: float = 10.0) -> dict[str, list[dict[str, Any]]]:
    """The records of applies started after the last finished or closed one, by apply id."""
    return read_tail(cluster, wait).unfinished


def _ends(r: dict[str, Any]) -> bool:
    """A record that ends an apply: the last part of a finished or closed record, or a record
    of format 1 (one record per apply, written at its end)."""
    if r.get("format_version") == 1:
        return True
    return r.get("kind") in _ENDS and r.get("part") == r.get("parts", 0) - 1


def started_for(found: dict[str, list[dict[str, Any]]], plan_hash: str) -> bool:
    """Whether one of these unfinished applies (`unfinished`) was an apply of the plan with
    `plan_hash`: only then is an apply of it a resumption of an interrupted one."""
    return any(
        r.get("kind") == "started"
        and part_number(r) == 0
        and Started.from_json(r).plan_hash == plan_hash
        for records in found.values()
        for r in records
    )


def close_unfinished(
    cluster: AuditLog,
    state: ClusterState,
    closer: str,
    progress: Progress,
    found: dict[str, list[dict[str, Any]]] | None = None,
    throttles: dict[str, dict[str, Any]] | None = None,
) -> list[str]:
    """Close every unfinished apply's record with what `state` (read now) shows for each of its
    planned changes; returns the closed apply ids. `found`: `unfinished(cluster)` if already
    read; `throttles`: the recorded throttles not removed (`Tail.throttles`), carried on in
    the closed records. Raises ClusterError if a record cannot be written (the apply then stops
    before changing anything)."""
    closed: list[str] = []
    left = tuple((throttles or {}).values())
    for apply_id, records in (unfinished(cluster) if found is None else found).items():
        record = dataclasses.replace(closing(apply_id, records, state, closer), throttles_left=left)
        cluster.write_audit(cluster.name, encode(record))
        shown = record.counts.get("done", 0)
        who = record.origin.who if record.origin is not None else "unknown"
        progress(
            f"closed the audit record of an earlier apply that did not finish ({apply_id}, "
            f"by {who}): the cluster shows {shown} of {len(record.changes)} "
            "planned change(s) done"
        )
        closed.append(apply_id)
    return closed


def closing(
    apply_id: str, records: Sequence[dict[str, Any]], state: ClusterState, closer: str
) -> audit_record.Closed:
    """The closed record of an apply that never finished, from its records (the parts read
    back, in log order): per planned operation, what its progress records reported (matched
    by operation id; by sentence in records of format 2) and what the cluster shows now."""
    started = sorted((r for r in records if r.get("kind") == "started"), key=part_number)
    first = started[0] if started and part_number(started[0]) == 0 else None
    complete = first is not None and len(started) == first.get("parts")
    joined = audit_record.join(started) if started else {}
    header = Started.from_json(joined) if first is not None else None
    said = audit_record.reported(
        audit_record.Progress.from_json(r) for r in records if r.get("kind") == "progress"
    )
    ops = audit_record.planned(
        joined.get("plan_changes", []),
        header.cluster if header else "",
        header.based_on if header else "",
    )
    rows = []
    for op in ops:
        verdict, note = _shows(op, state)
        rows.append(ClosedRow(operation_id(op), op.topic, op.step.name.lower(), op.summary,
                              audit_record.reported_of(said, op), verdict, note))  # fmt: skip
    origin = Origin(header.who, header.git, header.plan_hash, header.started) if header else None
    return audit_record.Closed(apply_id, origin, complete, closer, tuple(rows))


def _shows(op: Operation, state: ClusterState) -> tuple[str, str]:
    verdict = judge(op.change, state.topics.get(op.topic), state.reassignments)
    match verdict:
        case Done(note):
            return "done", note
        case Partly(note):
            return "partly done", note
        case NotStarted():
            return "not started", ""
        case Diverged(reason):
            return "diverged", reason
        case _:
            assert_never(verdict)


# --- reading the journal back ------------------------------------------------------------------


def applies(raw: Sequence[bytes]) -> dict[str, dict[str, Any]]:
    """Audit records put back together per apply id, in log order: `started` (the header),
    `plan_changes`, `progress` (per level: {level, levels, changes}), `end` ("finished",
    "closed" or None: still open) with `record` (its header) and `changes`. Each record is
    read through audit_record, as its `to_json` (in the format it was written in)."""
    found: dict[str, dict[str, Any]] = {}
    for apply_id, parts in _records(raw):
        entry = found.setdefault(
            apply_id,
            {"started": None, "plan_changes": [], "progress": [], "end": None, "record": None,
             "changes": []},
        )  # fmt: skip
        try:
            record = audit_record.from_json(audit_record.join(parts))
        except ValueError:
            continue
        view = {**record.to_json(), "format_version": parts[0].get("format_version")}
        match record:
            case Started():
                entry["plan_changes"].extend(view.pop("plan_changes"))
                if part_number(parts[0]) == 0:
                    entry["started"] = view
            case audit_record.Progress():
                entry["progress"].append(view)
            case Finished() | audit_record.Closed():
                entry["changes"] = view.pop("changes")
                entry["record"] = view
                if _ends(parts[-1]):
                    entry["end"] = view["kind"]
            case _:
                assert_never(record)
    return found


def _records(raw: Sequence[bytes]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The parts of each apply's record, in log order: a record's parts follow each other
    (one write), and a new one begins at part 0."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    open_: dict[str, list[dict[str, Any]]] = {}
    for value in raw:
        r = decode(value)
        if r is None or not isinstance(r.get("apply_id"), str):
            continue
        if r.get("kind") not in ("started", "progress", *_ENDS):
            continue  # the throttle ledger; format 1 records
        current = open_.get(r["apply_id"])
        if current is None or part_number(r) == 0 or current[0].get("kind") != r.get("kind"):
            current = open_[r["apply_id"]] = []
            out.append((r["apply_id"], current))
        current.append(r)
    return out
