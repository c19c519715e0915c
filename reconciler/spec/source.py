"""One spec file's text, or the reason it is not a spec file, decided before any parsing.

`read_source` refuses a symlink resolving outside the repository, anything but a regular file,
more than `MAX_FILE_BYTES` (checked before reading), NUL bytes (binary or UTF-16) and bytes that
are not UTF-8; each refusal is a diagnostic, never an exception. What the text means is
yaml_reader.py's business.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reconciler import readable
from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes
from reconciler.spec.spec_files import SpecFiles

MAX_FILE_BYTES = 5 * 1024 * 1024  # a spec file larger than this is refused unread


@dataclass(frozen=True, slots=True)
class Source:
    """A spec file's text, accepted by `read_source`."""

    path: Path  # as found under the repository (not resolved)
    rel: str  # relative to the repository root, '/' separators: what diagnostics show
    text: str


def real_path(path: Path) -> Path:
    """The path with symlinks resolved; unlike Path.resolve, a symlink loop does not raise
    (the loop's file then fails to open, with ELOOP, and is reported as unreadable)."""
    return Path(os.path.realpath(path))


def relative(path: Path, root: Path) -> str:
    """`path` relative to `root` with '/' separators, as diagnostics show it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def read_source(
    path: Path, root: Path, files: SpecFiles | None = None
) -> tuple[Source | None, list[Diagnostic]]:
    """The file's text, or the reason it is not a spec file; never reads more than the cap.
    `files`: the command's reads (spec_files.py), so a file is opened once per command."""
    rel = relative(path, root)
    start = Location(rel, 1, 1)
    try:
        resolved = real_path(path)
        if not resolved.is_relative_to(real_path(root)):
            return None, [
                r_codes.SYMLINK_ESCAPE(
                    f"{rel} is a symlink to {resolved}, outside the repository: spec files must "
                    "live in the repository; copy the file in instead",
                    start,
                )
            ]
        data = (files or SpecFiles()).read(resolved, MAX_FILE_BYTES)
    except readable.Unfit as exc:
        if exc.too_large:
            return None, [_too_large(rel, exc.why, start)]
        return None, [r_codes.UNREADABLE_FILE(f"{rel} {exc.why}; rename or remove it", start)]
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        fix = (
            "give the reconciler's user read permission on it"
            if isinstance(exc, PermissionError)
            else "fix or remove it (a dangling symlink, or removed while reading?)"
        )
        return None, [
            r_codes.UNREADABLE_FILE(
                f"{rel} cannot be read: {reason}; nothing is planned until you {fix}", start
            )
        ]
    nul = data.find(b"\x00")
    if nul >= 0:
        return None, [
            r_codes.BINARY_FILE(
                f"{rel} contains NUL bytes, so it is binary or UTF-16, not a YAML spec file; "
                "save it as UTF-8 text or move it out of the topics directory",
                _byte_location(rel, data, nul),
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            r_codes.NOT_UTF8(
                f"{rel} is not valid UTF-8 (byte 0x{data[exc.start]:02x} cannot start or "
                "continue a character; Latin-1 or Windows-1252 text?): save the file as UTF-8",
                _byte_location(rel, data, exc.start),
            )
        ]
    return Source(path, rel, text.removeprefix("\ufeff")), []


def _too_large(rel: str, why: str, at: Location) -> Diagnostic:
    return r_codes.FILE_TOO_LARGE(f"{rel} {why} of spec files: split it into several files", at)


def _byte_location(rel: str, data: bytes, offset: int) -> Location:
    """Line and column of a byte offset; the column counts bytes, honest for undecodable text."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Location(rel, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)
