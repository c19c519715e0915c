"""What `apply` and `apply --cancel-reassignments` print when they finish; formats, decides nothing.

One row per operation, its status right-aligned in a column (a long message continues under the
operation), then the one-line summary: applied, already done, in progress, failed, skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import Protocol

from reconciler.render.lines import Line, out
from reconciler.wrap import HANG

# The shapes this view reads of apply's values (apply/record/results.py ApplyResult,
# apply/cancel.py Cancelled): render imports no apply module (the `pure` layer contract).


class _Shown(Protocol):
    @property
    def shown(self) -> str: ...


class _Summarised(Protocol):
    @property
    def summary(self) -> str: ...


class _Operated(Protocol):
    @property
    def operation(self) -> _Summarised: ...
    @property
    def status(self) -> _Shown: ...
    @property
    def message(self) -> str: ...


class Applied(Protocol):
    @property
    def results(self) -> Sequence[_Operated]: ...
    @property
    def already_applied(self) -> bool: ...
    @property
    def ok(self) -> bool: ...
    @property
    def besides(self) -> int: ...
    @property
    def refused(self) -> Sized: ...
    @property
    def applied(self) -> Sized: ...
    @property
    def unchanged(self) -> Sized: ...
    @property
    def in_progress(self) -> Sized: ...
    @property
    def failed(self) -> Sized: ...
    @property
    def skipped(self) -> Sized: ...


class _Move(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...


class CancelDone(Protocol):
    @property
    def moves(self) -> Sequence[_Move]: ...
    @property
    def left(self) -> Sequence[_Move]: ...
    @property
    def refused(self) -> Mapping[tuple[str, int], object]: ...


STATUS = 12  # the width of the status column ("     applied  create a.b ...")


def apply_lines(result: Applied, cluster: str, stopped_by: str | None) -> list[Line]:
    """The rows and the summary; `stopped_by` names the signal that stopped the apply, if any."""
    lines: list[Line] = []
    if not result.results and not result.besides:
        lines.append(out(f"No changes: cluster '{cluster}' already matches the plan."))
    elif not result.results:  # ACL, quota or user changes alone: their progress lines named them
        how = "complete" if result.ok else "incomplete"
        sent = f"{result.besides} ACL, client quota or SCRAM user change(s) sent"
        lines.append(out(f"Apply {how}: {sent}, {len(result.refused)} refused."))
    for done in result.results:
        note = f": {done.message}" if done.message else ""
        row = f"{done.status.shown:>{STATUS}}  {done.operation.summary}{note}"
        lines.append(out(row, hang=STATUS + 2 + HANG))
    if result.already_applied:
        lines.append(
            out(
                f"Already applied: cluster '{cluster}' shows every change of this plan "
                f"({len(result.results)} operation(s)); nothing was changed."
            )
        )
    elif result.results:
        how = (
            f"stopped by {stopped_by}" if stopped_by else "complete" if result.ok else "incomplete"
        )
        end = "; re-run apply to finish." if stopped_by and not result.ok else "."
        moving = f"{len(result.in_progress)} in progress, " if result.in_progress else ""
        lines.append(
            out(
                f"Apply {how}: {len(result.applied)} applied, "
                f"{len(result.unchanged)} already done, {moving}{len(result.failed)} failed, "
                f"{len(result.skipped)} skipped{end}"
            )
        )
    return lines


def cancel_lines(done: CancelDone, cluster: str) -> list[Line]:
    """Each move in progress: cancelled, still moving, or failed (with Kafka's reason)."""
    if not done.moves:
        nothing = f"No partition moves in progress on the managed topics of cluster '{cluster}'."
        return [out(nothing)]
    left = {(r.topic, r.partition) for r in done.left}
    lines: list[Line] = []
    for move in done.moves:
        key = (move.topic, move.partition)
        failure = done.refused.get(key)
        status = "failed" if failure is not None else "moving" if key in left else "cancelled"
        why = f": {failure}" if failure is not None else ""
        lines.append(out(f"{status:>9}  {move.topic}-{move.partition}{why}"))
    lines.append(
        out(
            f"{len(done.moves) - len(done.refused) - len(left)} of {len(done.moves)} move(s) "
            "cancelled; a replication throttle an apply set over them is removed by the next "
            "`reconciler apply`."
        )
    )
    return lines
