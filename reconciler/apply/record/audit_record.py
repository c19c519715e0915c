"""The audit record's kinds as frozen values: the one module that builds or parses them.

    Started    the header, before the first change: who, when, git, plan hash, cluster, and
               the plan's changes (from which the operations and their ids follow)
    Progress   after each level: that level's results, one `Row` per operation
    Finished   at the end: the whole record, every operation's `Row` (what --audit-json prints)
    Closed     written by a later apply for one that never finished: per planned operation
               what it reported and what the cluster shows (`ClosedRow`)

Each has `to_json` (the whole record as it goes on `_reconciler_audit`, before `encode` cuts it
into parts of at most CHUNK operations) and `from_json` (its inverse, also for records an older
reconciler wrote). `encode` and `decode` are the bytes on the topic.

Operations are named by `operation_id`: their step and topic (`create:orders`), which a plan
holds at most once, never their sentence, so rewording a message cannot unmatch a progress
row from its planned operation. Format 2 records (before ids) carry no `id`: their rows are
matched by topic, step and sentence, as they were written (`Row.key`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reconciler.apply.execute.operations import Operation, operations
from reconciler.apply.record.content import iso
from reconciler.apply.record.outcome import OperationResult, Status
from reconciler.planning.json_plan import FORMAT_VERSION as PLAN_FORMAT
from reconciler.planning.json_plan import from_json as plan_from_json
from reconciler.planning.json_plan import to_json as plan_to_json
from reconciler.planning.plan import Plan

# 3: rows carry the operation's `id`; 2: one record per kind, cut into parts; 1: one record per
# apply, written at its end (counts as finished)
FORMAT_VERSION = 3
CHUNK = 500  # operations per part: a few hundred KiB of JSON at most
ENVELOPE = ("format_version", "apply_id", "kind", "part", "parts")
Json = dict[str, Any]
# A format 2 row's match: (topic, step, sentence)
LegacyKey = tuple[str, str, str]


def operation_id(op: Operation) -> str:
    """What the operation is: its step and topic (a topic has one operation per step). Not
    `Operation.id`, its index in one apply's list, which another plan numbers otherwise."""
    return f"{op.step.name.lower()}:{op.topic}"


def _text(data: Mapping[str, Any], key: str, default: str = "") -> str:
    value = data.get(key, default)
    return value if isinstance(value, str) else default


def _optional(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def _git(data: Mapping[str, Any]) -> dict[str, Any] | None:
    value = data.get("git")
    return dict(value) if isinstance(value, dict) else None


def _dicts(data: Mapping[str, Any], key: str) -> tuple[Json, ...]:
    value = data.get(key)
    return tuple(dict(v) for v in value if isinstance(v, dict)) if isinstance(value, list) else ()


def _strings(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _kind(data: Mapping[str, Any], kind: str) -> None:
    # Format 1 records have no kind: one record per apply, written at its end (finished)
    found = data.get("kind", "finished" if data.get("format_version") == 1 else None)
    if found != kind:
        raise ValueError(f"not a {kind} audit record: kind {found!r}")


def _envelope(apply_id: str, kind: str) -> Json:
    return {"format_version": FORMAT_VERSION, "apply_id": apply_id, "kind": kind}


@dataclass(frozen=True, slots=True)
class Row:
    """One operation's result, as progress and finished records carry it."""

    id: str | None  # None: a format 2 row (matched by `key`)
    topic: str
    step: str
    change: str  # the operation's sentence, for people only
    result: str  # Status.shown
    message: str
    seconds: float

    @staticmethod
    def of(result: OperationResult) -> Row:
        op = result.operation
        return Row(
            operation_id(op),
            op.topic,
            op.step.name.lower(),
            op.summary,
            result.status.shown,
            result.message,
            round(result.seconds, 3),
        )

    @property
    def key(self) -> LegacyKey:
        return (self.topic, self.step, self.change)

    def to_json(self) -> Json:
        out: Json = {} if self.id is None else {"id": self.id}
        out.update(topic=self.topic, step=self.step, change=self.change, result=self.result,
                   message=self.message, seconds=self.seconds)  # fmt: skip
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Row:
        seconds = data.get("seconds", 0.0)
        return Row(
            _optional(data, "id"),
            _text(data, "topic"),
            _text(data, "step"),
            _text(data, "change"),
            _text(data, "result"),
            _text(data, "message"),
            float(seconds) if isinstance(seconds, int | float) else 0.0,
        )


@dataclass(frozen=True, slots=True)
class Started:
    """The header: written before the first change; no change is made unless it is."""

    apply_id: str
    cluster: str
    cluster_id: str | None  # apply refuses a plan of another id: the cluster's
    who: str
    git: dict[str, Any] | None  # the spec repository's HEAD (reconciler.git_repo.Checkout.to_json)
    plan_hash: str
    based_on: str
    started: str  # ISO 8601, UTC
    resumed: tuple[str, ...] = ()
    broken_lock: str | None = None
    plan_changes: tuple[Json, ...] = ()  # the plan's JSON changes (planning/json_plan.py)
    # The plan's raw `acls:` and client quota changes, as its JSON has them (its topics' ACL
    # changes are in plan_changes, each under its topic's `access`); written only when there
    # are some
    quota_changes: tuple[Json, ...] = ()
    acl_changes: tuple[Json, ...] = ()
    # The SCRAM user changes, as the JSON plan has them but their secret_digest: the record is
    # kept forever and read by whoever may read the audit topic
    user_changes: tuple[Json, ...] = ()

    @staticmethod
    def of(
        apply_id: str,
        plan: Plan,
        plan_hash: str,
        who: str,
        git: dict[str, Any] | None,
        started: float,
        resumed: Sequence[str] = (),
        broken_lock: str | None = None,
    ) -> Started:
        """The header of an apply of `plan` starting at `started` (epoch seconds)."""
        planned_json = plan_to_json(plan)
        return Started(apply_id, plan.cluster, plan.cluster_id, who, git, plan_hash,
                       plan.based_on, iso(started), tuple(resumed), broken_lock,
                       tuple(planned_json["changes"]),
                       tuple(planned_json.get("quotas", ())),
                       tuple(planned_json.get("acls", ())),
                       tuple({k: v for k, v in u.items() if k != "secret_digest"}
                             for u in planned_json.get("users", ())))  # fmt: skip

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The planned operations (none if the changes cannot be read back as a plan)."""
        return planned(self.plan_changes, self.cluster, self.based_on)

    def to_json(self) -> Json:
        besides = {"quota_changes": list(self.quota_changes)} if self.quota_changes else {}
        if self.acl_changes:
            besides["acl_changes"] = list(self.acl_changes)
        if self.user_changes:
            besides["user_changes"] = list(self.user_changes)
        return {**_envelope(self.apply_id, "started"),
                "cluster": self.cluster, "cluster_id": self.cluster_id, "who": self.who,
                "git": self.git, "plan_hash": self.plan_hash, "based_on": self.based_on,
                "started": self.started, "resumed": list(self.resumed),
                "broken_lock": self.broken_lock, "planned": len(self.plan_changes),
                "plan_changes": list(self.plan_changes),
                **besides}  # fmt: skip

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Started:
        _kind(data, "started")
        return Started(
            _text(data, "apply_id"),
            _text(data, "cluster"),
            _optional(data, "cluster_id"),
            _text(data, "who", "unknown"),
            _git(data),
            _text(data, "plan_hash"),
            _text(data, "based_on"),
            _text(data, "started"),
            _strings(data, "resumed"),
            _optional(data, "broken_lock"),
            _dicts(data, "plan_changes"),
            _dicts(data, "quota_changes"),
            _dicts(data, "acl_changes"),
            _dicts(data, "user_changes"),
        )


@dataclass(frozen=True, slots=True)
class Progress:
    """After each level: that level's results."""

    apply_id: str
    level: int  # from 1
    levels: int
    changes: tuple[Row, ...]

    def to_json(self) -> Json:
        return {**_envelope(self.apply_id, "progress"), "level": self.level,
                "levels": self.levels, "changes": [r.to_json() for r in self.changes]}  # fmt: skip

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Progress:
        _kind(data, "progress")
        level, levels = data.get("level"), data.get("levels")
        return Progress(
            _text(data, "apply_id"),
            level if isinstance(level, int) else 0,
            levels if isinstance(levels, int) else 0,
            tuple(Row.from_json(c) for c in _dicts(data, "changes")),
        )


def counts(results: Iterable[OperationResult]) -> dict[str, int]:
    """Operations per shown status, every status named (unknown counts as failed, as shown)."""
    found = {s.shown: 0 for s in Status}
    for r in results:
        found[r.status.shown] += 1
    return found


@dataclass(frozen=True, slots=True)
class AccessOutcome:
    """What became of the plan's ACL and client quota changes: how many were sent (those the
    cluster did not show yet) and Kafka's refusals, one sentence each. Their bindings and
    values are in the started record (plan_changes' `access`, acl_changes, quota_changes,
    user_changes)."""

    sent: int
    refused: tuple[str, ...] = ()

    def to_json(self) -> Json:
        return {"sent": self.sent, "refused": list(self.refused)}

    @staticmethod
    def from_json(data: object) -> AccessOutcome | None:
        if not isinstance(data, dict):
            return None
        sent = data.get("sent")
        return AccessOutcome(sent if isinstance(sent, int) else 0, _strings(data, "refused"))


@dataclass(frozen=True, slots=True)
class Finished:
    """The whole record of an apply, written at its end; also what --audit-json prints."""

    header: Started
    finished: str  # ISO 8601, UTC
    seconds: float
    outcome: str  # succeeded, failed or interrupted
    counts: dict[str, int]
    changes: tuple[Row, ...]
    throttles_left: tuple[Json, ...] = ()  # recorded throttles not removed (journal.Tail)
    access: AccessOutcome | None = None  # the ACL and client quota changes sent, if any

    @staticmethod
    def of(
        header: Started,
        started: float,
        finished: float,
        results: Sequence[OperationResult],
        outcome: str,
        access: AccessOutcome | None = None,
    ) -> Finished:
        """The record of `results`; `started` and `finished` in epoch seconds."""
        return Finished(
            # the started record holds the changes
            dataclasses.replace(
                header, plan_changes=(), quota_changes=(), acl_changes=(), user_changes=()
            ),
            iso(finished),
            round(finished - started, 3),
            outcome,
            counts(results),
            tuple(Row.of(r) for r in results),
            access=access if access is not None and access.sent else None,
        )

    def audit_json(self) -> Json:
        """What --audit-json prints (and ApplyResult.audit holds), keys in this order."""
        h = self.header
        return {"format_version": 1, "cluster": h.cluster, "cluster_id": h.cluster_id,
                "who": h.who, "git": h.git, "plan_hash": h.plan_hash, "based_on": h.based_on,
                "started": h.started, "finished": self.finished, "seconds": self.seconds,
                "outcome": self.outcome, "counts": dict(self.counts),
                "resumed": list(h.resumed), "broken_lock": h.broken_lock,
                "changes": [r.to_json() for r in self.changes], "apply_id": h.apply_id,
                **({"access": self.access.to_json()} if self.access else {})}  # fmt: skip

    def to_json(self) -> Json:
        record = {k: v for k, v in self.audit_json().items() if k != "format_version"}
        return {**_envelope(self.header.apply_id, "finished"), **record,
                "throttles_left": list(self.throttles_left)}  # fmt: skip

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Finished:
        _kind(data, "finished")
        header = Started.from_json({**data, "kind": "started", "plan_changes": []})
        seconds, found = data.get("seconds", 0.0), data.get("counts")
        return Finished(
            header,
            _text(data, "finished"),
            float(seconds) if isinstance(seconds, int | float) else 0.0,
            _text(data, "outcome"),
            {k: v for k, v in found.items() if isinstance(v, int)}
            if isinstance(found, dict)
            else {},
            tuple(Row.from_json(c) for c in _dicts(data, "changes")),
            _dicts(data, "throttles_left"),
            AccessOutcome.from_json(data.get("access")),
        )


@dataclass(frozen=True, slots=True)
class ClosedRow:
    """One planned operation of an apply that never finished."""

    id: str | None  # None: a format 2 row
    topic: str
    step: str
    change: str
    reported: str | None  # what its progress records said (None: nothing)
    cluster_shows: str  # done, partly done, not started or diverged (status.judge)
    note: str

    def to_json(self) -> Json:
        out: Json = {} if self.id is None else {"id": self.id}
        out.update(topic=self.topic, step=self.step, change=self.change,
                   reported=self.reported, cluster_shows=self.cluster_shows,
                   note=self.note)  # fmt: skip
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ClosedRow:
        return ClosedRow(
            _optional(data, "id"),
            _text(data, "topic"),
            _text(data, "step"),
            _text(data, "change"),
            _optional(data, "reported"),
            _text(data, "cluster_shows"),
            _text(data, "note"),
        )


@dataclass(frozen=True, slots=True)
class Origin:
    """What a closed record repeats of the dead apply's header."""

    who: str
    git: dict[str, Any] | None
    plan_hash: str
    started: str


@dataclass(frozen=True, slots=True)
class Closed:
    """Written by a later apply (`closed_by`) for one that never finished."""

    apply_id: str
    origin: Origin | None  # None: the first part of its started record is missing
    complete: bool  # False: part of its started record is missing
    closed_by: str
    changes: tuple[ClosedRow, ...]
    throttles_left: tuple[Json, ...] = ()
    outcome: str = "interrupted"

    @property
    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for row in self.changes:
            found[row.cluster_shows] = found.get(row.cluster_shows, 0) + 1
        return found

    def to_json(self) -> Json:
        out = _envelope(self.apply_id, "closed")
        if self.origin is not None:
            o = self.origin
            out.update(who=o.who, git=o.git, plan_hash=o.plan_hash, started=o.started)
        out.update(complete=self.complete, counts=self.counts, closed_by=self.closed_by,
                   outcome=self.outcome, changes=[r.to_json() for r in self.changes],
                   throttles_left=list(self.throttles_left))  # fmt: skip
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Closed:
        _kind(data, "closed")
        origin = None
        if "plan_hash" in data:
            origin = Origin(
                _text(data, "who", "unknown"),
                _git(data),
                _text(data, "plan_hash"),
                _text(data, "started"),
            )
        return Closed(
            _text(data, "apply_id"),
            origin,
            data.get("complete") is True,
            _text(data, "closed_by"),
            tuple(ClosedRow.from_json(c) for c in _dicts(data, "changes")),
            _dicts(data, "throttles_left"),
            _text(data, "outcome", "interrupted"),
        )


Record = Started | Progress | Finished | Closed
_ITEMS = {"started": "plan_changes", "progress": "changes", "finished": "changes",
          "closed": "changes"}  # fmt: skip
_LAST = ("throttles_left",)  # what a reader reading back from the end finds in the last part


def encode(record: Record) -> list[bytes]:
    """The record as parts of at most CHUNK items: the first part carries the header, the last
    `throttles_left`, each its slice of the items."""
    whole = record.to_json()
    key = _ITEMS[whole["kind"]]
    items = whole.pop(key)
    last = {k: whole.pop(k) for k in _LAST if k in whole}
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)] or [items]
    out: list[bytes] = []
    for number, chunk in enumerate(chunks):
        part: Json = {k: whole[k] for k in ENVELOPE if k in whole}
        part.update(part=number, parts=len(chunks))
        if number == 0:
            part.update(whole)
        if number == len(chunks) - 1:
            part.update(last)
        part[key] = list(chunk)
        out.append(json.dumps(part, sort_keys=True).encode())
    return out


def ledger(kind: str, entry: Mapping[str, Any]) -> bytes:
    """A throttle ledger record (`throttle`, `unthrottle`: journal.py's) as its one part."""
    return json.dumps({"format_version": FORMAT_VERSION, "kind": kind, "part": 0, "parts": 1,
                       **entry}, sort_keys=True).encode()  # fmt: skip


def join(parts: Sequence[Mapping[str, Any]]) -> Json:
    """The parts of one record (in log order) as one `to_json` dict: the first part's header,
    every part's items, the last part's `throttles_left`."""
    if not parts:
        raise ValueError("no parts")
    ordered = sorted(parts, key=part_number)
    whole = {k: v for k, v in ordered[0].items() if k not in ("part", "parts")}
    key = _ITEMS.get(str(whole.get("kind", "finished")), "changes")
    whole[key] = [c for p in ordered for c in (p.get(key) or [])]
    for k in _LAST:
        if k in ordered[-1]:
            whole[k] = ordered[-1][k]
    return whole


def from_json(data: Mapping[str, Any]) -> Record:
    """A whole record (`join`) as its kind; raises ValueError for another kind."""
    kind = data.get("kind", "finished" if data.get("format_version") == 1 else None)
    match kind:
        case "started":
            return Started.from_json(data)
        case "progress":
            return Progress.from_json(data)
        case "finished":
            return Finished.from_json(data)
        case "closed":
            return Closed.from_json(data)
    raise ValueError(f"not an apply's audit record: kind {kind!r}")


def decode(raw: bytes) -> Json | None:
    """One part as read from the topic (None: not a JSON object)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def part_number(part: Mapping[str, Any]) -> int:
    number = part.get("part", 0)
    return number if isinstance(number, int) else 0


def planned(changes: Sequence[Json], cluster: str, based_on: str) -> tuple[Operation, ...]:
    """The operations of a started record's plan changes (none if they cannot be read)."""
    data = {"format_version": PLAN_FORMAT, "cluster": cluster, "based_on": based_on,
            "changes": list(changes), "diagnostics": [], "unmanaged": []}  # fmt: skip
    try:
        plan = plan_from_json(data)
    except (ValueError, KeyError, TypeError):
        return ()
    return operations(plan.changes)


def reported(progress: Iterable[Progress]) -> dict[str | LegacyKey, str]:
    """What progress records said of each operation: by id, and by (topic, step, sentence) for
    rows of format 2 records, which carry no id."""
    found: dict[str | LegacyKey, str] = {}
    for record in progress:
        for row in record.changes:
            found[row.id if row.id is not None else row.key] = row.result
    return found


def reported_of(said: Mapping[str | LegacyKey, str], op: Operation) -> str | None:
    """What `reported` holds for `op`: by its id, else (a format 2 record) by its sentence."""
    by_id = said.get(operation_id(op))
    return by_id if by_id is not None else said.get((op.topic, op.step.name.lower(), op.summary))
