"""What one operation of an apply did: its `Status` (unknown included) and its result.

The audit record (audit_record.py) records these per operation and the whole apply
(results.py) collects them; they depend on neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from reconciler.apply.execute.operations import Operation


class Status(Enum):
    APPLIED = "applied"
    UNCHANGED = "already done"  # the cluster already showed it (a re-run after an interruption)
    FAILED = "failed"
    SKIPPED = "skipped"  # something it needs failed, or --fail-fast stopped the run
    # An interrupted apply could not tell whether the cluster carried it out (the cluster could
    # not be read, or its request was sent and does not show): the audit record stays open
    UNKNOWN = "unknown"
    # Partition moves Kafka accepted and still carries out (apply stopped or timed out while
    # following them): not done, so not applied; their throttle stays until they complete
    IN_PROGRESS = "in progress"

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
