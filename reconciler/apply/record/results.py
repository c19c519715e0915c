"""What an apply did, as a whole: each operation's outcome (outcome.py) and the audit record
written (audit_record.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reconciler.apply.record.audit_record import Finished
from reconciler.apply.record.outcome import OperationResult, Status


@dataclass(frozen=True, slots=True)
class ApplyResult:
    cluster: str
    plan_hash: str
    results: tuple[OperationResult, ...]  # in execution order
    record: Finished | None  # the record written to the audit topic (None: none was started)
    audit_error: str | None = None  # why writing the audit record failed, if it did
    # The cluster showed every change of the plan before this apply began: nothing was sent
    already_applied: bool = False
    # ACL grants and revokes and client quota entities sent beside the topic operations
    # (acl_steps.py, quota_steps.py), and those Kafka refused, one sentence each
    besides: int = 0
    refused: tuple[str, ...] = ()

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
    def in_progress(self) -> tuple[OperationResult, ...]:
        """Partition moves Kafka still carries out: the next apply follows them."""
        return self._with(Status.IN_PROGRESS)

    @property
    def skipped(self) -> tuple[OperationResult, ...]:
        return self._with(Status.SKIPPED)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.skipped and not self.in_progress and not self.refused
