"""What an apply did: one result per operation, and the whole run."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from reconciler.apply.execute.operations import Operation

if TYPE_CHECKING:
    from reconciler.apply.record.audit_record import Finished


class Status(Enum):
    APPLIED = "applied"
    UNCHANGED = "already done"  # the cluster already showed it (a re-run after an interruption)
    FAILED = "failed"
    SKIPPED = "skipped"  # something it needs failed, or --fail-fast stopped the run
    # An interrupted apply could not tell whether the cluster carried it out (the cluster could
    # not be read, or its request was sent and does not show): the audit record stays open
    UNKNOWN = "unknown"

    @property
    def succeeded(self) -> bool:
        return self in (Status.APPLIED, Status.UNCHANGED)

    @property
    def shown(self) -> str:
        """The word output and the audit record show: unknown is not known to be done, so it
        shows as failed (its message begins `unknown:`), as it always has."""
        return Status.FAILED.value if self is Status.UNKNOWN else self.value


@dataclass(frozen=True, slots=True)
class OperationResult:
    operation: Operation
    status: Status
    message: str = ""  # for FAILED the sentence, for SKIPPED why, else a note
    started: float = 0.0  # epoch seconds the operation's request was sent
    seconds: float = 0.0  # request and wait for metadata, shared by the level's operations


@dataclass(frozen=True, slots=True)
class ApplyResult:
    cluster: str
    plan_hash: str
    results: tuple[OperationResult, ...]  # in execution order
    record: Finished | None  # the record written to the audit topic (None: none was started)
    audit_error: str | None = None  # why writing the audit record failed, if it did
    # The cluster showed every change of the plan before this apply began: nothing was sent
    already_applied: bool = False

    @property
    def audit(self) -> dict[str, Any]:
        """The audit record as --audit-json prints it ({} when none was started)."""
        return self.record.audit_json() if self.record is not None else {}

    def _with(self, *status: Status) -> tuple[OperationResult, ...]:
        return tuple(r for r in self.results if r.status in status)

    @property
    def applied(self) -> tuple[OperationResult, ...]:
        return self._with(Status.APPLIED)

    @property
    def unchanged(self) -> tuple[OperationResult, ...]:
        return self._with(Status.UNCHANGED)

    @property
    def failed(self) -> tuple[OperationResult, ...]:
        """Failed, and unknown (not known to be done: output counts it as failed)."""
        return self._with(Status.FAILED, Status.UNKNOWN)

    @property
    def skipped(self) -> tuple[OperationResult, ...]:
        return self._with(Status.SKIPPED)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.skipped
