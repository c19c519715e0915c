"""A report as lines for the command line to print: what each says, where it goes, how it wraps.

The views of render/ return these and print nothing; cli/width.py's `emit` prints them (wrapped
at the terminal's width, stderr's messages one line each, as cli/width.py says why).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    text: str
    err: bool = False  # stderr: a message (error:, warning:, note:), never wrapped
    hang: int | None = None  # how far a wrapped continuation is indented (wrap.py's default)


def out(text: str, hang: int | None = None) -> Line:
    return Line(text, hang=hang)


def err(text: str) -> Line:
    return Line(text, err=True)
