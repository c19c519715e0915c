"""`--timeout SECONDS`: the longest a command waits for its cluster, connecting included.

Set once by the CLI for the whole command (`limited`), read wherever a connection is made
(`workflow.connection`), so every command that talks to a cluster honours it without each
use case passing it along. None: the cluster's `client: {request.timeout.ms}`, else 30 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_seconds: ContextVar[float | None] = ContextVar("reconciler_wait_limit", default=None)


def seconds() -> float | None:
    """The wait `--timeout` set for this command, or None when it was not given."""
    return _seconds.get()


@contextmanager
def limited(value: float | None) -> Iterator[None]:
    """Connections made inside wait at most `value` seconds for their cluster."""
    token = _seconds.set(value)
    try:
        yield
    finally:
        _seconds.reset(token)
