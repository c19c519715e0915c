"""Every file a command reads, read only when it is a regular file and no larger than a cap.

A saved plan, a snapshot (`--state`), a spec file or a certificate named in `client:` could be
a FIFO (opening it for reading waits for a writer: the command hangs), a device (`/dev/zero`
never ends: memory runs out), a directory, or a file far larger than any real one (a 222 MB
"plan" took 3.9 GB to parse). `read_bytes` opens without blocking (O_NONBLOCK: a FIFO opens at
once), asks the open file itself what it is (fstat: no window between the check and the read),
and reads at most the cap and one byte more, so a file growing meanwhile is caught too.

`Unfit` says why in words a sentence can end with; `refusal` is the one sentence a command
prints for it (spec files turn the same reasons into diagnostics: spec/source.py).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from reconciler.errors import ConfigError
from reconciler.printable import printable

MIB = 2**20
# The caps (docs/commands.md, "Files a command reads"). A parsed JSON document takes many times
# its size in memory (a 222 MB plan took 3.9 GB), so each cap sits well above the largest real
# file of its kind and well below what a CI runner's memory holds once parsed.
PLAN_CAP = 64 * MIB  # a saved plan: ~1.1 KiB per changed topic measured, so ~60,000 fit
SNAPSHOT_CAP = 512 * MIB  # `--state`, JSON or JSON Lines: 100,000 topics measured 187 MiB
CLIENT_FILE_CAP = 16 * MIB  # a truststore, keystore or PEM named in `client:`


class Unfit(Exception):
    """The file is not one a command reads: not a regular file, or larger than its cap."""

    def __init__(self, why: str, too_large: bool) -> None:
        super().__init__(why)
        self.why = why
        self.too_large = too_large


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def describe_size(size: int, cap: int) -> str:
    """ "is 222.0 MiB, over the 64 MiB limit"."""
    return f"is {size / MIB:.1f} MiB, over the {cap // MIB} MiB limit"


def _open(path: Path, cap: int) -> int:
    """A descriptor of the file, open for reading, once it is known to be a regular file of at
    most `cap` bytes (Unfit otherwise)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            why = f"is {kind}, not a regular file" if kind.startswith("a ") else f"is {kind}"
            raise Unfit(why, too_large=False)
        if info.st_size > cap:
            raise Unfit(describe_size(info.st_size, cap), too_large=True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: Path, cap: int) -> bytes:
    """The file's bytes; Unfit when it is not a regular file or holds more than `cap` bytes,
    OSError when it cannot be opened or read. Never blocks on a FIFO, never reads past the
    cap."""
    fd = _open(path, cap)
    try:
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, MIB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > cap:  # it grew since fstat
        raise Unfit(f"grew past the {cap // MIB} MiB limit while being read", too_large=True)
    return data


def open_text(path: Path, cap: int, what: str, fix: str) -> TextIO:
    """The file as a UTF-8 text stream to read line by line (JSON Lines), checked as
    `read_text` checks it; the caller closes it."""
    with _refused(path, what, fix):
        fd = _open(path, cap)
    return os.fdopen(fd, encoding="utf-8")


@contextmanager
def _refused(path: Path, what: str, fix: str) -> Iterator[None]:
    """Unfit and OSError raised inside, as the one sentence a command prints (ConfigError)."""
    try:
        yield
    except Unfit as exc:
        raise refusal(path, what, exc, fix) from None
    except OSError as exc:
        shown = printable(str(path))
        raise ConfigError(
            f"{shown} cannot be read ({exc.strerror or exc}); pass {what} file"
        ) from None


def read_text(path: Path, cap: int, what: str, fix: str) -> str:
    """The file's text (UTF-8) for a command: any reason it cannot be read is the one sentence
    of `refusal`, a ConfigError (exit 1). `what` names the file's role ("the saved plan"),
    `fix` says what to do when it is too large."""
    with _refused(path, what, fix):
        data = read_bytes(path, cap)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(
            f"{printable(str(path))} is not UTF-8 text, so it is not {what} file; pass {what} file"
        ) from None


def refusal(path: Path, what: str, unfit: Unfit, fix: str) -> ConfigError:
    """The sentence for a file a command will not read: what it is and what to do."""
    shown = printable(str(path))
    if unfit.too_large:
        return ConfigError(f"{shown} {unfit.why} for {what}: {fix}")
    return ConfigError(f"{shown} {unfit.why}: pass {what} as a regular file")
