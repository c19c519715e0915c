"""A stop asked of a running apply by SIGINT or SIGTERM, honoured between requests.

Raising from a signal handler lands wherever the main thread happens to be: inside a Kafka
client's C code (confluent-kafka reports it as `SystemError ... returned a result with an
exception set`), between taking the lock and the `try` that releases it, half way through
writing a record. So while an apply runs (`armed`), the CLI's handler only calls `ask`, and the
apply looks at `asked()` where stopping is safe:

    before taking the lock and before the audit record starts   -> Interrupted (nothing changed)
    before each level, between the requests of a level          -> the rest is `skipped`
    while following reassignments, while waiting for metadata   -> stop waiting (bounded)

The request in flight finishes; the lock is released and the audit record written by the
apply's own `finally` blocks (run.py). A second signal is the CLI's to handle: it aborts at once.

`test_point` is a hook for the tests only: with RECONCILER_TEST_SIGNAL_AT naming points (e.g.
`locked`, `level-2`, `in-flight-1`, `after-level-1`, `finishing`; several separated by commas)
the process signals itself there
(RECONCILER_TEST_SIGNAL: INT, the default, or TERM), so a test can interrupt an apply at an
exact point through the real handler.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from reconciler.errors import Interrupted


@dataclass
class _Stop:
    armed: int = 0  # > 0 while an apply honours stops
    signal: signal.Signals | None = None  # the first signal asked for a stop


_stop = _Stop()


@contextmanager
def armed() -> Iterator[None]:
    """While inside, signals ask for a stop instead of raising (the CLI's handler checks)."""
    _stop.armed += 1
    try:
        yield
    finally:
        _stop.armed -= 1


def is_armed() -> bool:
    return _stop.armed > 0


def ask(number: int) -> bool:
    """Ask for a stop; True if this is the first ask (a second one means: abort now)."""
    first = _stop.signal is None
    if first:
        _stop.signal = signal.Signals(number)
    return first


def asked() -> str | None:
    """The name of the signal that asked for a stop (`SIGINT`), or None."""
    return _stop.signal.name if _stop.signal is not None else None


def exit_code() -> int | None:
    """128 + the asking signal's number (130 for SIGINT, 143 for SIGTERM), or None."""
    return 128 + _stop.signal.value if _stop.signal is not None else None


def check(before: str) -> None:
    """Raise Interrupted if a stop was asked; `before`: what is not started (nothing changed
    yet when this is called)."""
    if _stop.signal is not None:
        raise Interrupted(
            f"stopped by {_stop.signal.name} before {before}: nothing was changed on the "
            "cluster; re-run apply to make the changes",
            _stop.signal.value,
        )


def reset() -> None:
    """Forget an asked stop (an in-process caller running several applies, the tests)."""
    _stop.signal = None


def test_point(name: str) -> None:
    """The test hook (see the module): signal ourselves at the point RECONCILER_TEST_SIGNAL_AT
    names. At `in-flight-*` points (right before a level's request) another thread sends the
    signal once the main thread waits for Kafka's answer (a wait in threading.py: the
    request's future), so it lands while the request is in flight."""
    if name not in os.environ.get("RECONCILER_TEST_SIGNAL_AT", "").split(","):
        return
    number = signal.SIGTERM if os.environ.get("RECONCILER_TEST_SIGNAL") == "TERM" else signal.SIGINT
    if not name.startswith("in-flight-"):
        os.kill(os.getpid(), number)
        return
    main = threading.main_thread().ident

    def in_flight() -> None:
        while not _waiting(sys._current_frames().get(main or 0)):
            time.sleep(0.001)
        os.kill(os.getpid(), number)

    threading.Thread(target=in_flight, daemon=True).start()


def _waiting(frame: FrameType | None) -> bool:
    return frame is not None and frame.f_code.co_filename.endswith("threading.py")
