"""Diagnostics: problems collected, never thrown, so one run reports all of them.

Rendered as `path:line:col: error[CODE]: message`, the form compilers use, so editors and CI
annotations can jump to the place. One `Rule` type makes them (spec/r_codes.py holds the R codes
of `validate`, planning/p_codes.py the P codes of `plan`), and one JSON shape carries them
(`to_json`, `from_json`): the plan's `diagnostics` and `validate --format json` alike, described
once by `$defs/diagnostic` of schemas/plan.schema.json.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from reconciler.printable import printable


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
    code: str  # stable code, e.g. "R105"; documented in `reconciler help diagnostics`
    rule: str  # stable snake_case rule name, e.g. "unknown_config"
    message: str  # says what is wrong and what to do
    location: Location | None = None
    topic: str | None = None
    broker: int | None = None  # the broker concerned (per-broker limits)

    def __str__(self) -> str:
        """The line a terminal shows; the file name and message may quote names and values
        from specs or the cluster, so their control characters are shown as escapes."""
        where = f"{printable(str(self.location))}: " if self.location else ""
        return f"{where}{self.severity.value}[{self.code}]: {printable(self.message)}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of problem: a stable code, a snake_case name and its default severity.

    Calling a rule builds its Diagnostic. The message is the caller's, because only the caller
    knows the topic and numbers that make it actionable. `severity` overrides the default for
    the rules a cluster's `policy.severity` configures (planning/p_codes.py).
    """

    code: str
    name: str
    severity: Severity

    def __call__(
        self,
        message: str,
        location: Location | None = None,
        topic: str | None = None,
        *,
        broker: int | None = None,
        severity: Severity | None = None,
    ) -> Diagnostic:
        return Diagnostic(
            severity or self.severity, self.code, self.name, message, location, topic, broker
        )


def sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    """Order diagnostics by place, then code, so output is stable across runs."""
    loc = d.location
    return (loc.file, loc.line, loc.column, d.code) if loc else ("", 0, 0, d.code)


def did_you_mean(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str:
    """` (did you mean 'x'?)` for the closest candidate, or "" when none is close enough."""
    close = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=cutoff)
    return f" (did you mean '{close[0]}'?)" if close else ""


def to_json(d: Diagnostic) -> dict[str, Any]:
    """The JSON form of a diagnostic: `broker` only when it concerns one broker, and `file`,
    `line`, `column` only when it has a place (schemas/plan.schema.json, `$defs/diagnostic`)."""
    out: dict[str, Any] = {
        "severity": d.severity.value,
        "rule": d.rule,
        "code": d.code,
        "topic": d.topic,
        "message": d.message,
    }
    if d.broker is not None:
        out["broker"] = d.broker
    if d.location is not None:
        out |= {"file": d.location.file, "line": d.location.line, "column": d.location.column}
    return out


def from_json(entry: Mapping[str, Any]) -> Diagnostic:
    """The diagnostic a `to_json` dict describes; KeyError for a missing required field."""
    location = None
    if "file" in entry:
        location = Location(entry["file"], entry["line"], entry["column"])
    return Diagnostic(
        severity=Severity(entry["severity"]),
        code=entry["code"],
        rule=entry["rule"],
        message=entry["message"],
        location=location,
        topic=entry.get("topic"),
        broker=entry.get("broker"),
    )
