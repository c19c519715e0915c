"""The width text reports wrap at (reconciler/wrap.py): stdout's own when it is a terminal,
else $COLUMNS when it holds a positive whole number, else 80. JSON and Markdown are never
wrapped, and neither are the messages on stderr (error:, warning:, note:): one line each, so a
log keeps a message whole for grep. Apply's progress is the exception: its narrative of levels
and requests, on stderr, wraps like the report it belongs to."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

import click

from reconciler.render.lines import Line
from reconciler.wrap import wrap

DEFAULT = 80  # a pipe, a file, a CI log: what terraform and most terminals assume


def text_width() -> int:
    if sys.stdout.isatty():
        try:
            columns = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError):
            columns = 0
        if columns > 0:  # a pseudo-terminal without a size reports 0: ask COLUMNS instead
            return columns
    given = os.environ.get("COLUMNS", "").strip()
    if not given:
        return DEFAULT
    if given.isdigit() and int(given) > 0:
        return int(given)
    click.echo(
        f"warning: COLUMNS={given!r} is not a positive whole number of columns; wrapping the "
        f"output at {DEFAULT} (set COLUMNS to the width you want, or unset it)",
        err=True,
    )
    return DEFAULT


def echo(text: str, width: int, *, err: bool = False, hang: int | None = None) -> None:
    """`text` echoed as lines wrapped at `width` (reconciler/wrap.py)."""
    for line in wrap(text, width, hang):
        click.echo(line, err=err)


def emit(lines: Iterable[Line], width: int | None = None) -> None:
    """Print a view's lines (render/lines.py): stdout's wrapped at `width` (the report's width when
    None), stderr's whole, one message a line."""
    wide = text_width() if width is None else width
    for line in lines:
        if line.err:
            click.echo(line.text, err=True)
        else:
            echo(line.text, wide, hang=line.hang)
