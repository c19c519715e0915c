"""Retrying a read that failed for a reason that may pass, within the request timeout.

A broker that was just killed is still registered for a few seconds (until its session times
out) and a frozen one accepts connections but never answers, so the client libraries may pick
it: as the KRaft "controller" (a random live broker), as kafka-python's bootstrap server, as
the broker asked for its defaults. Such failures (refused connections, timeouts,
NOT_CONTROLLER, LEADER_NOT_AVAILABLE, ...) are retried with exponential backoff and fresh
clients, which pick again, all within one request timeout (`request.timeout.ms`); what cannot
be answered in that time fails with the brokers that did not answer named (probe.py), the
probe's own time reserved in the same timeout. Mutations are never retried here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from confluent_kafka import KafkaError, KafkaException

from reconciler.cluster.adapter.boundary import LibraryFailed
from reconciler.cluster.adapter.connect import Connection
from reconciler.cluster.adapter.failures import is_kafka_python_error
from reconciler.cluster.adapter.probe import probe_timeout
from reconciler.errors import ClusterError

T = TypeVar("T")

FIRST_PAUSE = 0.1  # seconds; doubled after each failure
MAX_PAUSE = 2.0

# librdkafka codes worth another try besides those it marks retriable itself.
_LIBRDKAFKA_RETRIABLE = {
    KafkaError._TRANSPORT,
    KafkaError._TIMED_OUT,
    KafkaError._ALL_BROKERS_DOWN,
    KafkaError._WAIT_COORD,
    KafkaError.NOT_CONTROLLER,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError.NETWORK_EXCEPTION,
    KafkaError.BROKER_NOT_AVAILABLE,
}
# kafka-python: its own `retriable` flag, plus the exceptions of a failed bootstrap.
_KAFKA_PYTHON_RETRIABLE = {"NoBrokersAvailable", "KafkaTimeoutError", "NodeNotReadyError"}


def retriable(exc: BaseException) -> bool:
    """Whether the failure (a ClusterError's cause, or the client's exception) may pass. A
    library's own failure does not (even kafka-python's CorrelationIdError, which it marks
    retriable): a client that cannot read an answer reads the next one the same way."""
    if isinstance(exc, LibraryFailed):
        return False
    cause = exc.__cause__ if isinstance(exc, ClusterError) else exc
    if isinstance(cause, KafkaException):
        error = cause.args[0] if cause.args else None
        return isinstance(error, KafkaError) and (
            error.retriable() or error.code() in _LIBRDKAFKA_RETRIABLE
        )
    if cause is not None and is_kafka_python_error(cause):
        return bool(getattr(cause, "retriable", False)) or (
            type(cause).__name__ in _KAFKA_PYTHON_RETRIABLE
        )
    return False


def within_timeout(
    connection: Connection,
    attempt: Callable[[int, float], T],
    again: Callable[[], None],
    after: Callable[[], None],
) -> T:
    """`attempt(number, timeout)` until it succeeds, raises something not retriable, or the
    request timeout (less the probe's share) is spent; `after()` after each failure, `again()`
    before each retry (fresh clients). Each attempt gets half the time left (all of it once
    under a second): librdkafka sends its admin requests to the controller, in KRaft a random
    live broker, so a frozen one must leave time to ask another. Measured, the largest read
    (every config of 10,000 topics) takes 4 s on the broker, well within half of 30 s."""
    deadline = time.monotonic() + connection.seconds - probe_timeout(connection)
    number = 0
    while True:
        left = max(deadline - time.monotonic(), 0.1)
        try:
            return attempt(number, left / 2 if left > 1.0 else left)
        except ClusterError as exc:
            after()
            pause = min(FIRST_PAUSE * 2**number, MAX_PAUSE)
            if not retriable(exc) or time.monotonic() + pause + 0.2 >= deadline:
                raise
        time.sleep(pause)
        again()
        number += 1
