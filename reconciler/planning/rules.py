"""The plan's diagnostic rules: a stable code and snake_case name for each problem diff finds.

Codes P1xx belong to the planner (docs/plan.md lists them with what to do). A rule builds its
`Diagnostic`; the message is the caller's, because only the caller knows the topic and numbers
that make it actionable.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Location, Severity


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity

    def __call__(
        self, message: str, *, topic: str | None = None, location: Location | None = None
    ) -> Diagnostic:
        return Diagnostic(self.severity, self.code, self.name, message, location, topic)


_ERROR, _WARNING = Severity.ERROR, Severity.WARNING

PARTITION_DECREASE = Rule("P101", "partition_decrease", _ERROR)
REPLICATION_FACTOR_UNREACHABLE = Rule("P102", "replication_factor_unreachable", _ERROR)
REASSIGNMENT_IN_PROGRESS = Rule("P103", "reassignment_in_progress", _ERROR)
UNKNOWN_BROKER = Rule("P104", "unknown_broker", _ERROR)
TOPIC_COLLISION = Rule("P105", "topic_collision", _ERROR)
DELETE_PROTECTED = Rule("P106", "delete_protected", _ERROR)
DELETE_NOT_ALLOWED = Rule("P107", "delete_not_allowed", _ERROR)
MAX_DELETES = Rule("P108", "max_deletes", _ERROR)
IGNORED_TOPIC = Rule("P109", "ignored_topic", _WARNING)
INVALID_IGNORE_PATTERN = Rule("P110", "invalid_ignore_pattern", _ERROR)

RULES: tuple[Rule, ...] = (
    PARTITION_DECREASE,
    REPLICATION_FACTOR_UNREACHABLE,
    REASSIGNMENT_IN_PROGRESS,
    UNKNOWN_BROKER,
    TOPIC_COLLISION,
    DELETE_PROTECTED,
    DELETE_NOT_ALLOWED,
    MAX_DELETES,
    IGNORED_TOPIC,
    INVALID_IGNORE_PATTERN,
)
