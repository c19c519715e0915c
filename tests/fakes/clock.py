"""A clock whose time passes only when the code under test sleeps, for the lock's waits.

`lock.acquire(..., clock=FakeClock().clock)` judges a holder (its record's grace, a lease
watched for expiry) in fake seconds: a 30 s lease is watched in milliseconds, and what another
holder does meanwhile (a heartbeat every 0.3 s, a record written 6 s late) happens at the fake
second it is scheduled for, before the sleep that reaches it returns.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from reconciler.apply.lock import Clock


@dataclass
class FakeClock:
    time: float = 1000.0
    _due: list[tuple[float, int, Callable[[], None]]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def clock(self) -> Clock:
        return Clock(now=lambda: self.time, sleep=self.sleep)

    def at(self, seconds: float, action: Callable[[], None]) -> None:
        """Run `action` once `seconds` from now have passed."""
        heapq.heappush(self._due, (self.time + seconds, next(self._order), action))

    def every(self, seconds: float, action: Callable[[], None]) -> Callable[[], None]:
        """Run `action` every `seconds` from now on; returns the function that stops it."""
        stopped = False

        def tick() -> None:
            if not stopped:
                action()
                self.at(seconds, tick)

        def stop() -> None:
            nonlocal stopped
            stopped = True

        self.at(seconds, tick)
        return stop

    def sleep(self, seconds: float) -> None:
        end = self.time + seconds
        while self._due and self._due[0][0] <= end:
            when, _, action = heapq.heappop(self._due)
            self.time = max(self.time, when)
            action()
        self.time = end
