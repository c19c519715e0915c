"""Diagnostics: problems collected, never thrown, so one run reports all of them.

Rendered as `path:line:col: error[CODE]: message`, the form compilers use, so editors and CI
annotations can jump to the place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A place in a spec file; line and column are 1-based, as editors show them."""

    file: str  # path relative to the spec repository root, with '/' separators
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str  # stable code, e.g. "R105"; documented in docs/diagnostics.md
    rule: str  # stable snake_case rule name, e.g. "unknown_config"
    message: str  # says what is wrong and what to do
    location: Location | None = None
    topic: str | None = None
    broker: int | None = None  # the broker concerned (per-broker limits)

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity.value}[{self.code}]: {self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    """Order diagnostics by place, then code, so output is stable across runs."""
    loc = d.location
    return (loc.file, loc.line, loc.column, d.code) if loc else ("", 0, 0, d.code)
