"""The throttle ledger read back from the audit journal (journal.Tail), and what plan makes of
leftovers (planning/leftover_warnings.py). Pure: records and states built here."""

from __future__ import annotations

import dataclasses
from typing import Any

from reconciler.apply.record.journal import Tail
from reconciler.cluster.state import LeftoverThrottle, LockShown
from reconciler.planning import leftover_warnings
from tests.planning.factories import cluster


def _throttle(throttle_id: str, apply_id: str = "a1") -> dict[str, Any]:
    return {"format_version": 2, "kind": "throttle", "part": 0, "parts": 1,
            "throttle_id": throttle_id, "apply_id": apply_id, "who": "ada", "rate": 1024,
            "brokers": [1, 2], "topics": [["t", ["0:1"], ["0:2"]]]}  # fmt: skip


def _unthrottle(throttle_id: str) -> dict[str, Any]:
    return {"format_version": 2, "kind": "unthrottle", "part": 0, "parts": 1,
            "throttle_id": throttle_id, "apply_id": "a2"}  # fmt: skip


def _end(*left: dict[str, Any]) -> dict[str, Any]:
    return {"format_version": 2, "kind": "finished", "part": 0, "parts": 1, "apply_id": "a0",
            "throttles_left": list(left)}  # fmt: skip


def test_throttles_carried_by_the_last_end_recorded_after_and_removed_after() -> None:
    carried = {k: v for k, v in _throttle("old").items() if k not in ("kind", "part", "parts")}
    tail = Tail(
        _end(carried),
        (
            {"format_version": 2, "kind": "started", "part": 0, "parts": 1, "apply_id": "a1"},
            _throttle("new"),
            _throttle("gone"),
            _unthrottle("gone"),
        ),
    )
    assert set(tail.throttles) == {"old", "new"}
    assert tail.throttles["new"]["rate"] == 1024 and "kind" not in tail.throttles["new"]
    # Ledger records never make an apply unfinished on their own: only a1 (started) is
    assert set(tail.unfinished) == {"a1"}
    assert [r["kind"] for r in tail.unfinished["a1"]] == ["started"]


def test_removed_after_the_end_that_carried_it_and_old_records_without_a_ledger() -> None:
    carried = {k: v for k, v in _throttle("old").items() if k not in ("kind", "part", "parts")}
    assert Tail(_end(carried), (_unthrottle("old"),)).throttles == {}
    assert Tail({"format_version": 1, "cluster": "c"}, ()).throttles == {}
    assert Tail(None, ()).throttles == {}


def test_plan_diagnostics_for_a_held_lock_and_each_throttled_topic() -> None:
    state = dataclasses.replace(
        cluster(),
        lock=LockShown("ada on ci-7 (pid 12)", "2026-11-26T19:00:00+00:00"),
        leftover_throttles=(LeftoverThrottle("a1", "ada@ci-7", 1048576, (1, 3), ("x", "y")),),
    )
    found = list(leftover_warnings.diagnostics(state))
    assert [(d.code, d.rule, d.topic) for d in found] == [
        ("P131", "apply_lock_held", None),
        ("P130", "leftover_throttle", "x"),
        ("P130", "leftover_throttle", "y"),
    ]
    assert "ada on ci-7 (pid 12) since 2026-11-26T19:00:00+00:00" in found[0].message
    assert "apply a1 by ada@ci-7" in found[1].message
    assert "broker(s) 1, 3 keep the rate of 1MiB/s" in found[1].message
    assert all(not d.is_error for d in found)  # neither blocks an apply
