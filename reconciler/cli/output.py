"""The one boundary between the CLI and its standard streams: every byte printed passes here.

`install` (the CLI's `main`, first thing) replaces sys.stdout and sys.stderr with `Channel`s, so
click.echo, prompts, warnings and tracebacks all go through them. A channel:

- redacts every remembered secret (reconciler.redaction) before anything else;
- shows every control character but line breaks, tabs and colour codes as an escape
  (reconciler.printable.terminal): a CR or an escape sequence in a name or value that reached
  a message without passing `printable` still cannot rewrite a line or move the cursor;
- encodes with the stream's own encoding and `backslashreplace`: a character the terminal's
  encoding cannot show (`LC_ALL=C PYTHONUTF8=0`, a topic name with an 'é' in a diagnostic) is
  written escaped (`\\xe9`), never lost and never an error;
- writes and flushes at once, and when the stream is gone (closed before we started: `>&-`;
  the reader left: EPIPE, `| head -1`; the disk is full: ENOSPC, `> /dev/full`; any other
  OSError) it remembers why, drops the rest silently and never raises; what the failed write
  left in Python's buffer drains into /dev/null, so the flush at exit cannot fail either.

A standard descriptor closed at start is pointed at /dev/null first, so that no file the
command opens later becomes "stdout" by taking its number.

`main` asks `lost()` at the end: it warns on stderr once and chooses the exit code
(`reconciler help commands`, "Broken output"). `raw` is for the signal handler, which must not
re-enter a channel's write.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import locale
import os
import sys
from typing import TextIO

from reconciler.printable import terminal
from reconciler.redaction import redact


class Channel(io.TextIOBase):
    """A text stream over another one (the process's stdout or stderr, or a test's) that never
    raises on write (see the module)."""

    def __init__(self, inner: TextIO | None) -> None:
        super().__init__()
        self.inner = inner
        self._encoding = _encoding(inner)
        self.lost: str | None = None  # why the stream stopped taking output
        self.dropped = 0  # characters not written since

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes | bytearray) and text:
            # click.echo of bytes (the shell completion scripts) falls back to write() on a
            # stream that is not binary: UTF-8, as click encodes them, then written as text
            text = bytes(text).decode("utf-8", "backslashreplace")
        if not isinstance(text, str):
            # click probes for binary streams with write(b""): refused, so click keeps this
            # channel as the text stream (with a `buffer`, it would wrap that in its own,
            # bypassing the encoding chosen here)
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.inner is None and text and self.lost is None:
            self.lost = "it was closed when reconciler started"
        if self.lost is not None or self.inner is None:
            self.dropped += len(text)
            return len(text)
        data = terminal(redact(text)).encode(self._encoding, "backslashreplace")
        try:
            binary = getattr(self.inner, "buffer", None)
            if binary is not None:
                binary.write(data)
                binary.flush()
            else:
                self.inner.write(data.decode(self._encoding))
                self.inner.flush()
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed under us
            self._lose(exc)
            self.dropped += len(text)
        return len(text)

    def _lose(self, exc: Exception) -> None:
        self.lost = _why(exc)
        # What the failed write left in the stream's buffer would fail again when Python
        # flushes it at exit (a second error, after ours): let it drain into /dev/null.
        try:
            fd = self.inner.fileno() if self.inner is not None else -1
        except (OSError, ValueError):
            return
        if fd >= 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)

    def flush(self) -> None:
        pass  # every write was flushed

    def isatty(self) -> bool:
        try:
            return self.inner is not None and self.lost is None and self.inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.inner is None:
            raise io.UnsupportedOperation("the stream was closed when reconciler started")
        return self.inner.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "backslashreplace"


def _why(exc: Exception) -> str:
    number = exc.errno if isinstance(exc, OSError) else None
    if number == errno.EPIPE:
        return "its reader closed it (broken pipe)"
    if number == errno.ENOSPC:
        return "no space was left on its device"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return "it was closed"


def _encoding(stream: TextIO | None) -> str:
    """The stream's encoding as Python chose it from the locale; a name codecs knows."""
    name = getattr(stream, "encoding", None) or locale.getpreferredencoding(False) or "utf-8"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"


def _hold(fd: int) -> None:
    """Point `fd` at /dev/null if it is not open (see the module)."""
    try:
        os.fstat(fd)
    except OSError:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


def install() -> None:
    """Route sys.stdout and sys.stderr through channels from now on (idempotent)."""
    for fd in (0, 1, 2):
        _hold(fd)
    if not isinstance(sys.stdout, Channel):
        sys.stdout = Channel(sys.stdout)
    if not isinstance(sys.stderr, Channel):
        sys.stderr = Channel(sys.stderr)


def lost(stream: TextIO) -> str | None:
    """Why `stream` (sys.stdout or sys.stderr) stopped taking output; None if it never did."""
    return stream.lost if isinstance(stream, Channel) else None


def raw(text: str) -> None:
    """Write to stderr's descriptor at once, from a signal handler: no channel state is touched
    (the handler may run in the middle of a channel's write); a failure is ignored."""
    with contextlib.suppress(OSError):
        os.write(2, redact(text).encode("ascii", "backslashreplace"))
