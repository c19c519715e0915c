"""The typed audit record (apply/record/audit_record.py): each kind round-trips through its
JSON and through the parts written to the audit topic; records of format 2 (before operation
ids) are still read and closed; progress is matched to operations by id, not by sentence; an
unknown result is a status. Pure, but for one read of a port nothing listens on.

records/format2.jsonl and records/format2_audit.json were written by the code before typed
records (commit 6dbf3da: journal._parts, content.record): a started record and a level's
progress of an apply that never finished, and a finished record with the --audit-json it printed.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from reconciler.apply.execute.operations import Operation, levels, operations
from reconciler.apply.record import audit_record, interrupted, journal
from reconciler.apply.record.audit_record import (
    Closed,
    ClosedRow,
    Finished,
    Origin,
    Progress,
    Row,
    Started,
    decode,
    encode,
    join,
    operation_id,
)
from reconciler.apply.record.outcome import OperationResult, Status
from reconciler.apply.record.results import ApplyResult
from reconciler.cluster import adapter
from reconciler.planning.plan import Plan, make_plan
from reconciler.spec.model import ClusterConfig
from tests.planning.factories import cluster, desired, spec, spread, topic

RECORDS = Path(__file__).parent / "records"
GIT = {"commit": "3f2a" * 10, "author": "Ada <ada@example.com>", "message": "orders\n",
       "dirty": False, "changed_files": []}  # fmt: skip
BEFORE = cluster(topic("shop.payments", [[1, 2]], overrides={"retention.ms": "3600000"}))
# The cluster once the killed apply's first level (the create) was carried out
AFTER = cluster(
    topic("shop.orders", spread(3, 2), overrides={"cleanup.policy": "compact"}),
    *BEFORE.topics.values(),
)


def _plan() -> Plan:
    """The plan records/format2.jsonl was written for: a create, a config change, partitions."""
    wanted = desired(
        spec("shop.orders", partitions=3, replication_factor=2,
             config={"cleanup.policy": "compact"}),
        spec("shop.payments", partitions=2, replication_factor=2,
             config={"retention.ms": "7200000"}),
    )  # fmt: skip
    return make_plan(wanted, BEFORE, ClusterConfig("test", "127.0.0.1:9092"))


def _header(plan: Plan, apply_id: str = "a1") -> Started:
    return Started.of(apply_id, plan, "sha256:abc", "ada@laptop", GIT, 1764200000.0,
                      ("shop.orders",), "ci@runner (pid 7)")  # fmt: skip


def _parts(raw: list[bytes]) -> list[dict[str, Any]]:
    parts = [decode(r) for r in raw]
    assert all(p is not None for p in parts)
    return [p for p in parts if p is not None]


def _old() -> list[dict[str, Any]]:
    lines = (RECORDS / "format2.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _results(ops: tuple[Operation, ...], status: Status = Status.APPLIED) -> list[OperationResult]:
    return [OperationResult(op, status, "", 1764200001.0, 0.4567) for op in ops]


def test_operation_ids_name_step_and_topic_and_are_unique_within_a_plan() -> None:
    ops = operations(_plan().changes)
    assert [operation_id(op) for op in ops] == [
        "create:shop.orders", "config:shop.payments", "partitions:shop.payments",
    ]  # fmt: skip
    assert len({operation_id(op) for op in ops}) == len(ops)


def test_each_kind_round_trips_through_its_json_and_its_parts() -> None:
    plan = _plan()
    header = _header(plan)
    ops = operations(plan.changes)
    results = _results(ops)
    progress = Progress("a1", 1, 3, tuple(Row.of(r) for r in results))
    finished = dataclasses.replace(
        Finished.of(header, 1764200000.0, 1764200002.5, results, "succeeded"),
        throttles_left=({"throttle_id": "t1", "apply_id": "a1", "rate": 1024},),
    )
    closed = Closed(
        "a0",
        Origin("bo@ci", None, "sha256:def", "2026-11-26T10:00:00.000+00:00"),
        True,
        "a1",
        (ClosedRow("create:x", "x", "create", "create x (1 partitions)", None, "not started",
                   ""),),
    )  # fmt: skip
    orphan = dataclasses.replace(closed, origin=None, complete=False)
    for record in (header, progress, finished, closed, orphan):
        assert type(record).from_json(record.to_json()) == record
        assert audit_record.from_json(join(_parts(encode(record)))) == record
    assert header.operations == ops  # what the closing apply judges
    assert finished.counts == {
        "applied": 3, "already done": 0, "failed": 0, "skipped": 0, "in progress": 0,
    }  # fmt: skip
    assert finished.seconds == 2.5 and progress.changes[0].seconds == 0.457


def test_many_operations_are_cut_into_parts_and_put_back_together() -> None:
    rows = tuple(Row(f"create:t{i}", f"t{i}", "create", f"create t{i}", "applied", "", 0.1)
                 for i in range(2 * audit_record.CHUNK + 1))  # fmt: skip
    record = Progress("a1", 1, 1, rows)
    parts = _parts(encode(record))
    assert [(p["part"], p["parts"], len(p["changes"])) for p in parts] == [
        (0, 3, audit_record.CHUNK), (1, 3, audit_record.CHUNK), (2, 3, 1),
    ]  # fmt: skip
    assert "level" in parts[0] and "level" not in parts[1]  # the header: first part only
    assert audit_record.from_json(join(list(reversed(parts)))) == record


def test_format_2_records_are_read_as_they_were_written() -> None:
    started, progress, finished = _old()
    header = Started.from_json(started)
    assert header.plan_hash == started["plan_hash"] and header.who == "ada@laptop"
    assert header.operations == operations(_plan().changes)
    level = Progress.from_json(progress)
    assert [(r.id, r.topic, r.result) for r in level.changes] == [(None, "shop.orders", "applied")]
    # The finished record gives back what --audit-json printed then
    printed = json.loads((RECORDS / "format2_audit.json").read_text())
    assert Finished.from_json(finished).audit_json() == printed


def test_an_unfinished_apply_of_format_2_is_closed_matching_its_progress_by_sentence() -> None:
    started, progress, _ = _old()
    closed = journal.closing(started["apply_id"], [started, progress], AFTER, "a2")
    assert [(r.id, r.reported, r.cluster_shows) for r in closed.changes] == [
        ("create:shop.orders", "applied", "done"),
        ("config:shop.payments", None, "not started"),
        ("partitions:shop.payments", None, "not started"),
    ]
    assert closed.complete and closed.origin is not None
    assert closed.origin.plan_hash == started["plan_hash"]
    assert closed.counts == {"done": 1, "not started": 2}
    assert Closed.from_json(join(_parts(encode(closed)))) == closed


def test_progress_is_matched_by_operation_id_whatever_its_sentence_says() -> None:
    """A progress row whose sentence reads otherwise (a reworded message) still closes."""
    plan = _plan()
    header = _header(plan, "a9")
    first = levels(operations(plan.changes))[0]
    rows = tuple(dataclasses.replace(Row.of(r), change="made the orders topic")
                 for r in _results(first.operations))  # fmt: skip
    parts = _parts(encode(header)) + _parts(encode(Progress("a9", 1, 3, rows)))
    closed = journal.closing("a9", parts, AFTER, "a10")
    by_id = {r.id: r.reported for r in closed.changes}
    assert by_id == {"create:shop.orders": "applied", "config:shop.payments": None,
                     "partitions:shop.payments": None}  # fmt: skip


def test_applies_reads_both_formats_back_per_apply() -> None:
    plan = _plan()
    header = _header(plan, "a9")
    ops = operations(plan.changes)
    finished = Finished.of(header, 1764200000.0, 1764200002.5, _results(ops), "succeeded")
    raw = [json.dumps(r).encode() for r in _old()] + encode(header) + encode(finished)
    found = journal.applies(raw)
    old = found["6f1c2c4e-old-format-2"]
    assert old["end"] is None and old["started"]["format_version"] == 2
    assert [c["topic"] for c in old["plan_changes"]] == ["shop.orders", "shop.payments"]
    assert [p["level"] for p in old["progress"]] == [1]
    assert "id" not in old["progress"][0]["changes"][0]
    assert found["0d9e-old-format-2-finished"]["end"] == "finished"
    new = found["a9"]
    assert new["end"] == "finished" and new["record"]["outcome"] == "succeeded"
    assert new["changes"] == finished.audit_json()["changes"]
    assert [c["id"] for c in new["changes"]] == [operation_id(op) for op in ops]


def test_unknown_is_a_status_shown_as_failed() -> None:
    ops = operations(_plan().changes)
    unknown = OperationResult(ops[0], Status.UNKNOWN, "unknown: the apply was interrupted")
    done = OperationResult(ops[1], Status.APPLIED)
    assert Row.of(unknown).result == "failed"  # the audit record and --audit-json, as before
    assert audit_record.counts([unknown, done])["failed"] == 1
    result = ApplyResult("test", "sha256:abc", (unknown, done), None)
    assert result.failed == (unknown,) and not result.ok and result.audit == {}


def test_an_interrupted_apply_that_cannot_read_the_cluster_says_unknown() -> None:
    """The operations with no result yet are unknown (a status, not a sentence), so the apply
    leaves its record open for the next one to close. The cluster: a port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ops = operations(_plan().changes)
    recorded = {ops[0].id: OperationResult(ops[0], Status.APPLIED)}
    with adapter.Cluster(adapter.Connection("test", f"127.0.0.1:{port}", timeout=2)) as dead:
        results, known = interrupted.account(dead, BEFORE, ops, recorded, (), "lost", wait=0)
    assert not known
    assert [r.status for r in results] == [Status.APPLIED, Status.UNKNOWN, Status.UNKNOWN]
    assert all(r.message.startswith("unknown: the apply was interrupted (lost)")
               for r in results[1:])  # fmt: skip


@pytest.mark.parametrize("kind", ["throttle", "something else"])
def test_other_kinds_are_not_an_applys_record(kind: str) -> None:
    with pytest.raises(ValueError, match="audit record"):
        audit_record.from_json({"format_version": 3, "apply_id": "a1", "kind": kind})
