"""SIGINT and SIGTERM for the whole CLI.

While an apply runs (reconciler.stopping is armed), the first signal only asks it to stop:
nothing is raised inside a Kafka client's C code, the request in flight finishes, the lock is
released and the audit record written; the apply then exits 130 (SIGINT) or 143 (SIGTERM). A
second signal aborts at once (the lock stays behind: the next apply on this machine breaks it,
as its holder is gone).

Anywhere else there is nothing to release: SIGINT raises KeyboardInterrupt as Python's own
handler does and SIGTERM raises `Terminated`, so `finally` blocks run and main exits 130 or 143
with one line.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

from reconciler import stopping
from reconciler.cli import output


class Terminated(KeyboardInterrupt):
    """SIGTERM outside an apply: unwinds like Ctrl-C, exits 143."""


def install() -> None:
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _handle)


def _handle(number: int, _frame: FrameType | None) -> None:
    name = signal.Signals(number).name
    if stopping.is_armed():
        if stopping.ask(number):
            output.raw(
                f"\n{name}: stopping after the request in flight, then releasing the lock (send "
                "it again to abort at once)\n"
            )
            return
        output.raw(
            f"{name} again: aborted at once; the apply lock stays until the next apply on this "
            "machine breaks it (elsewhere: --force-unlock), and the next apply closes the audit "
            "record\n"
        )
        os._exit(128 + number)
    if number == signal.SIGTERM:
        raise Terminated
    raise KeyboardInterrupt
