"""The audit record as a write-ahead log on the cluster's audit topic.

Every apply that reaches execution writes, under one `apply_id`:

    started    before the first change (the topic made ready and the write acknowledged
               first: an apply that cannot journal changes nothing): who, git, plan hash and
               the plan's changes
    progress   after each level: that level's results
    finished   at the end: the whole audit record (audit.record), every change's result
    closed     written by a later apply for one that never finished (killed, crashed, its
               machine lost): what the cluster shows for each planned change (status.judge)
    throttle   before a replication throttle is set (apply --throttle): the rate, the brokers
               and each topic's replicas it adds, under a `throttle_id`
    unthrottle once that throttle is removed (by this apply, or by a later one if it was left)

The last part of a finished or closed record also carries `throttles_left`: every recorded
throttle not removed by then, so a reader finds all of them by reading back to the last end
(`read_tail`, `Tail.throttles`), as it finds unfinished applies.

Records are cut into parts of at most CHUNK changes (`part`, `parts`), so an apply of 10,000
changes stays far below the topic's max.message.bytes. A finished or closed record's last part
ends an apply; the next apply reads the topic back from its end to the last such part, and
closes every apply it finds started after it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from reconciler.apply.execute.operations import Operation, operations
from reconciler.apply.execute.status import Diverged, Done, NotStarted, Partly, judge
from reconciler.apply.record.results import OperationResult
from reconciler.cluster.adapter import Throttle
from reconciler.cluster.ports import AuditLog
from reconciler.cluster.state import ClusterState
from reconciler.errors import ClusterError, ReconcilerError
from reconciler.planning.json_plan import FORMAT_VERSION as PLAN_FORMAT
from reconciler.planning.json_plan import from_json, to_json
from reconciler.planning.plan import Plan

FORMAT_VERSION = 2
CHUNK = 500  # changes per record: a few hundred KiB of JSON at most
_ENDS = ("finished", "closed")
_LEDGER = ("throttle", "unthrottle")
_ENVELOPE = ("format_version", "kind", "part", "parts")

Progress = Callable[[str], None]


def _parts(
    head: dict[str, Any],
    key: str,
    items: Sequence[Any],
    apply_id: str,
    kind: str,
    last: dict[str, Any] | None = None,
) -> list[bytes]:
    """`head` and `items` as one or more records; the first part carries `head`, the last
    `last` (what a reader reading back from the end must find in the part that ends)."""
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)] or [items]
    out: list[bytes] = []
    for number, chunk in enumerate(chunks):
        record: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "apply_id": apply_id,
            "kind": kind,
            "part": number,
            "parts": len(chunks),
        }
        if number == 0:
            record.update(head)
        if number == len(chunks) - 1 and last:
            record.update(last)
        record[key] = list(chunk)
        out.append(json.dumps(record, sort_keys=True).encode())
    return out


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
        apply_id: str,
        header: dict[str, Any],
        plan: Plan,
        progress: Progress,
        throttles: dict[str, dict[str, Any]] | None = None,
    ) -> Journal:
        """Write the `started` record; raises ClusterError (nothing changed yet) if it cannot.
        `throttles`: the recorded throttles earlier applies left (`Tail.throttles`)."""
        journal = Journal(cluster, apply_id, progress, throttles=dict(throttles or {}))
        journal.who = header.get("who") if isinstance(header.get("who"), str) else None
        planned = to_json(plan)["changes"]
        head = {**header, "based_on": plan.based_on, "planned": len(planned)}
        try:
            cluster.ensure_audit()
            cluster.write_audit(
                cluster.name, _parts(head, "plan_changes", planned, journal.apply_id, "started")
            )
        except ClusterError as exc:
            raise ClusterError(
                f"the audit record could not be started, so nothing was changed: {exc}"
            ) from exc
        return journal

    def level(self, number: int, total: int, results: Sequence[OperationResult]) -> None:
        head = {"level": number, "levels": total}
        changes = [r.to_json() for r in results]
        self._write(_parts(head, "changes", changes, self.apply_id, "progress"), "progress")

    def finish(self, record: dict[str, Any]) -> str | None:
        """Write the final record; returns why it failed (None: written)."""
        head = {k: v for k, v in record.items() if k not in ("changes", "format_version")}
        left = {"throttles_left": list(self.throttles.values())}
        parts = _parts(head, "changes", record.get("changes", []), self.apply_id, "finished", left)
        self._write(parts, "final")
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
        self.cluster.write_audit(self.cluster.name, [_ledger("throttle", entry)])
        self.throttles[throttle_id] = entry
        self._ids[throttle] = throttle_id

    def unthrottled(self, throttle: Throttle | str) -> None:
        """Record that a throttle (this apply's, or a recorded one by id) was removed."""
        throttle_id = throttle if isinstance(throttle, str) else self._ids.pop(throttle, None)
        if throttle_id is None:
            return
        self.throttles.pop(throttle_id, None)
        entry = {"throttle_id": throttle_id, "apply_id": self.apply_id}
        self._write([_ledger("unthrottle", entry)], "throttle removal")

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
        read = [_decode(r.value) for r in cluster.audit_records(first, start, wait)]
        tail = [r for r in read if r is not None] + tail
        start, window = first, window * 4
        if any(_ends(r) for r in read if r is not None):
            break
    last_end = max((i for i, r in enumerate(tail) if _ends(r)), default=-1)
    return Tail(tail[last_end] if last_end >= 0 else None, tuple(tail[last_end + 1 :]))


def unfinished(cluster: AuditLog, wait: float = 10.0) -> dict[str, list[dict[str, Any]]]:
    """The records of applies started after the last finished or closed one, by apply id."""
    return read_tail(cluster, wait).unfinished


def _ledger(kind: str, entry: dict[str, Any]) -> bytes:
    record = {"format_version": FORMAT_VERSION, "kind": kind, "part": 0, "parts": 1, **entry}
    return json.dumps(record, sort_keys=True).encode()


def _decode(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


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
        r.get("kind") == "started" and _part(r) == 0 and r.get("plan_hash") == plan_hash
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
    for apply_id, records in (unfinished(cluster) if found is None else found).items():
        rows, head = _closing(records, state)
        head = {**head, "closed_by": closer, "outcome": "interrupted"}
        left = {"throttles_left": list((throttles or {}).values())}
        cluster.write_audit(cluster.name, _parts(head, "changes", rows, apply_id, "closed", left))
        shown = sum(1 for r in rows if r["cluster_shows"] == "done")
        progress(
            f"closed the audit record of an earlier apply that did not finish ({apply_id}, "
            f"by {head.get('who', 'unknown')}): the cluster shows {shown} of {len(rows)} "
            "planned change(s) done"
        )
        closed.append(apply_id)
    return closed


def _closing(
    records: list[dict[str, Any]], state: ClusterState
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per planned operation: what the dead apply reported (its progress records) and what the
    cluster shows now; and the started record's header."""
    started = sorted((r for r in records if r.get("kind") == "started"), key=_part)
    first = started[0] if started and _part(started[0]) == 0 else {}
    head: dict[str, Any] = {
        k: first[k] for k in ("who", "git", "plan_hash", "started") if k in first
    }
    complete = bool(first) and len(started) == first.get("parts")
    reported = {
        (c["topic"], c["step"], c["change"]): c["result"]
        for r in records
        if r.get("kind") == "progress"
        for c in r.get("changes", [])
    }
    rows: list[dict[str, Any]] = []
    for op in _planned(started, first):
        verdict, note = _shows(op, state)
        key = (op.topic, op.step.name.lower(), op.summary)
        rows.append(
            {
                "topic": op.topic,
                "step": op.step.name.lower(),
                "change": op.summary,
                "reported": reported.get(key),
                "cluster_shows": verdict,
                "note": note,
            }
        )
    head["complete"] = complete  # False: part of its started record is missing
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["cluster_shows"]] = counts.get(row["cluster_shows"], 0) + 1
    head["counts"] = counts
    return rows, head


def _part(r: dict[str, Any]) -> int:
    part = r.get("part", 0)
    return part if isinstance(part, int) else 0


def _planned(started: list[dict[str, Any]], first: dict[str, Any]) -> Iterator[Operation]:
    changes = [c for r in started for c in r.get("plan_changes", [])]
    data = {
        "format_version": PLAN_FORMAT,
        "cluster": first.get("cluster", ""),
        "based_on": first.get("based_on", ""),
        "changes": changes,
        "diagnostics": [],
        "unmanaged": [],
    }
    try:
        plan = from_json(data)
    except (ValueError, KeyError, TypeError):
        return
    yield from operations(plan.changes)


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
    """Audit records put back together per apply id, in log order: `started` (the first part's
    header), `plan_changes`, `progress` (per level: {level, levels, changes}), `end` ("finished",
    "closed" or None: still open) with `record` (its header) and `changes`."""
    found: dict[str, dict[str, Any]] = {}
    for value in raw:
        r = _decode(value)
        if r is None or not isinstance(r.get("apply_id"), str):
            continue
        entry = found.setdefault(
            r["apply_id"],
            {"started": None, "plan_changes": [], "progress": [], "end": None, "record": None,
             "changes": []},
        )  # fmt: skip
        kind, first = r.get("kind"), _part(r) == 0
        if kind == "started":
            entry["plan_changes"].extend(r.get("plan_changes", []))
            if first:
                entry["started"] = _header(r, "plan_changes")
        elif kind == "progress":
            if first:
                entry["progress"].append({**_header(r, "changes"), "changes": []})
            if entry["progress"]:
                entry["progress"][-1]["changes"].extend(r.get("changes", []))
        elif kind in _ENDS:
            if first:
                entry["record"], entry["changes"] = _header(r, "changes"), []
            entry["changes"].extend(r.get("changes", []))
            if _ends(r):
                entry["end"] = kind
    return found


def _header(r: dict[str, Any], items: str) -> dict[str, Any]:
    return {k: v for k, v in r.items() if k not in (items, "part", "parts")}
