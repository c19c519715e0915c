"""What an apply did: one result per operation, and the whole run."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from reconciler.apply.execute.operations import Operation


class Status(Enum):
    APPLIED = "applied"
    UNCHANGED = "already done"  # the cluster already showed it (a re-run after an interruption)
    FAILED = "failed"
    SKIPPED = "skipped"  # something it needs failed, or --fail-fast stopped the run

    @property
    def succeeded(self) -> bool:
        return self in (Status.APPLIED, Status.UNCHANGED)


@dataclass(frozen=True, slots=True)
class OperationResult:
    operation: Operation
    status: Status
    message: str = ""  # for FAILED the sentence, for SKIPPED why, else a note
    started: float = 0.0  # epoch seconds the operation's request was sent
    seconds: float = 0.0  # request and wait for metadata, shared by the level's operations

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.operation.topic,
            "step": self.operation.step.name.lower(),
            "change": self.operation.summary,
            "result": self.status.value,
            "message": self.message,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True, slots=True)
class ApplyResult:
    cluster: str
    plan_hash: str
    results: tuple[OperationResult, ...]  # in execution order
    audit: dict[str, Any]  # the record written to the audit topic
    audit_error: str | None = None  # why writing the audit record failed, if it did
    # The cluster showed every change of the plan before this apply began: nothing was sent
    already_applied: bool = False

    def _with(self, status: Status) -> tuple[OperationResult, ...]:
        return tuple(r for r in self.results if r.status is status)

    @property
    def applied(self) -> tuple[OperationResult, ...]:
        return self._with(Status.APPLIED)

    @property
    def unchanged(self) -> tuple[OperationResult, ...]:
        return self._with(Status.UNCHANGED)

    @property
    def failed(self) -> tuple[OperationResult, ...]:
        return self._with(Status.FAILED)

    @property
    def skipped(self) -> tuple[OperationResult, ...]:
        return self._with(Status.SKIPPED)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.skipped
