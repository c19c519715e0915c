"""The two sides every contract test runs on: the in-memory fake and the real adapter.

`side` is parametrized: `fake` (tests/fakes/cluster.py, no broker) and `kafka` (adapter.Cluster
on the session cluster `kafka1`, marked `kafka` as tests/conftest.py marks the tests that use
a Kafka fixture, so `make check` runs the fake half only).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import pytest

from reconciler.cluster import adapter
from reconciler.cluster.ports import ApplyTarget, EvidenceReader
from tests.fakes.cluster import FakeKafka

T = TypeVar("T")


def shown(read: Callable[[], T], check: Callable[[T], bool], timeout: float = 30.0) -> T:
    """`read()` once `check` holds of it; fails the test after `timeout` seconds (a broker's
    metadata follows the controller's answer)."""
    deadline = time.monotonic() + timeout
    while True:
        found = read()
        if check(found):
            return found
        assert time.monotonic() < deadline, f"still {found!r}"
        time.sleep(0.05)


class Port(ApplyTarget, EvidenceReader, Protocol):
    """Every port at once: what both sides must implement."""

    def reconnected(self) -> Port: ...

    def __enter__(self) -> Port: ...


@dataclass(frozen=True)
class Side:
    name: str  # "fake" or "kafka"
    connect: Callable[[], Port]  # a new client of the same cluster (a second taker, say)
    prefix: str  # this test's own topic names start with it
    # The lock as a taker leaves it that died before recording itself: the token, no record
    take_lock_unrecorded: Callable[[int], None]


@pytest.fixture(params=["fake", pytest.param("kafka", marks=pytest.mark.kafka)])
def side(request: pytest.FixtureRequest, ns: str) -> Side:
    if request.param == "fake":
        kafka = FakeKafka(authorizer=False)  # as `kafka1`'s brokers
        return Side("fake", lambda: kafka.client("contract"), ns, kafka.take_lock_unrecorded)
    bootstrap = request.getfixturevalue("kafka1").bootstrap

    def connect() -> Port:
        return adapter.Cluster(adapter.Connection("contract", bootstrap))

    def take_lock_unrecorded(token: int) -> None:
        from reconciler.cluster.adapter import lock_topic

        with adapter.Cluster(adapter.Connection("contract", bootstrap)) as taker:
            assert lock_topic.try_lock(taker.connection, taker._admin(), token, 1)

    return Side("kafka", connect, ns, take_lock_unrecorded)
