"""Pausing Python's cyclic garbage collector: while a large, acyclic structure is built, and
while a librdkafka admin client lives.

Loading 10,000 topics allocates millions of dicts, lists and tuples that all stay alive; the
collector's generational passes over them find nothing to free and took a quarter of
`load_repo`'s CPU time (measured: 1.33 s with, 1.0 s without). Reference counting still frees
everything that is not part of a cycle, and the collector runs again as soon as the load ends.

A librdkafka client must never be destroyed on one of its own threads: librdkafka aborts the
whole process ("rd_kafka_destroy() called from librdkafka owned thread"). The collector runs on
whichever thread allocates, and an admin client's background thread allocates: it builds each
answer's Python values. So a client that ended up in a reference cycle (a failed call's
exception frames hold it) and was freed by a collection there took the process down
(tests/test_gcpause.py reproduces it). While any admin client lives, the collector is paused;
whoever lets go of clients calls `collect_stragglers` on its own thread, which frees a client
held only by a cycle there, and the collector resumes with the last client gone.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class _Holds:
    """Paused sections and live clients; the collector is on again when both are none."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # re-entrant: a finalizer may run inside a held section
        self.count = 0  # paused sections and live clients
        self.clients = 0  # live clients alone
        self.resume = True  # whether the collector was on before the first hold
        # clients let go while an exception held them (collect_stragglers' in_flight)
        self.pending: list[Callable[[], object]] = []

    def hold(self) -> None:
        with self.lock:
            if self.count == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.count += 1

    def release(self) -> None:
        with self.lock:
            self.count -= 1
            if self.count == 0 and self.resume:
                gc.enable()

    def client_gone(self) -> None:
        with self.lock:
            self.clients -= 1
            self.release()


_HOLDS = _Holds()


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (nesting and an already disabled GC respected)."""
    _HOLDS.hold()
    try:
        yield
    finally:
        _HOLDS.release()


def while_alive(client: T) -> T:
    """Pause the collector until `client` (a librdkafka admin client) is freed; returns it."""
    with _HOLDS.lock:
        _HOLDS.hold()
        _HOLDS.clients += 1
    weakref.finalize(client, _HOLDS.client_gone)
    return client


def live_clients() -> int:
    return _HOLDS.clients


def collect_stragglers(
    client: Callable[[], object] | None = None, *, in_flight: bool = False
) -> None:
    """Free, on this thread, the clients that only a reference cycle still holds (`client`
    alone, when given, with those left pending before). Call it where clients are let go (a
    Cluster's close), never from a librdkafka callback. The young generations first: a cycle
    made while the client lived is there (the collector was paused since), and they are a small
    part of a long-lived process's heap; a full collection costs 0.3 s in a test worker's
    (measured).

    `in_flight`: an exception is propagating, and its traceback's frames still hold the
    client, so no collection can free it yet: a full one per failure was 115 of the 184 CPU s
    of the boundary-fault walk (tests/cluster/test_boundary_faults.py), freeing nothing. The
    client is left pending: once the exception is dropped, reference counting frees it on the
    thread that drops it, or, if a cycle still holds it, the next call collects it. The
    collector stays paused meanwhile, as it is while any client lives."""
    with _HOLDS.lock:
        if in_flight:
            if client is not None and client() is not None:
                _HOLDS.pending.append(client)
            return
        _HOLDS.pending = [c for c in _HOLDS.pending if c() is not None]
        wanted = [*_HOLDS.pending, *([client] if client is not None else [])]
    for generation in (1, 2):
        if _HOLDS.clients == 0 or (client is not None and all(c() is None for c in wanted)):
            return
        gc.collect(generation)


def pending() -> bool:
    """Whether a client let go while an exception held it may still wait for a collection."""
    with _HOLDS.lock:
        return any(c() is not None for c in _HOLDS.pending)
