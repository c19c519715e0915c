"""`--timeout SECONDS`: the longest a command waits for its cluster, connecting included.

Set once by the CLI for the whole command (`limited`), read wherever a connection is made
(`workflow.connection`), so every command that talks to a cluster honours it without each
use case passing it along. None: the cluster's `client: {request.timeout.ms}`, else 30 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The range of `--timeout` the Kafka clients take: librdkafka sets a connection up in at least
# 1 s (socket.connection.setup.timeout.ms >= 1000) and refuses an admin request timeout over
# 3,600 s
SHORTEST = 1.0
LONGEST = 3600.0
WHY = "librdkafka's limits: a connection set up in at least 1 s, a request of at most 1 hour"

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
