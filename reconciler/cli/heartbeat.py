"""A line on stderr every few seconds of silence while a command waits (for a cluster, for
Maven Central), whatever the terminal: a CI log or a pipe shows that the command is alive and
what it waits for, where a terminal's one-off progress line would not be printed at all."""

from __future__ import annotations

import threading
import time
from types import TracebackType

import click

EVERY = 5.0  # seconds of silence before a line: a quick command prints none


class Heartbeat:
    """`with Heartbeat("planning cluster 'prod'"):` prints "... still planning cluster 'prod'
    (10 s)" after each EVERY seconds nothing else was said; `touch()` says something was."""

    def __init__(self, doing: str, every: float = EVERY) -> None:
        self._doing = doing
        self._every = every
        self._started = self._last = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="reconciler-heartbeat", daemon=True)

    def touch(self) -> None:
        self._last = time.monotonic()

    def __enter__(self) -> Heartbeat:
        self._started = self._last = time.monotonic()
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(min(0.5, self._every)):
            now = time.monotonic()
            if now - self._last >= self._every:
                click.echo(f"... still {self._doing} ({now - self._started:.0f} s)", err=True)
                self._last = now
