"""Each test's seconds in the runs before, for the order in which `make test` hands out its units
of work (tests/worker_groups.py): the longest first, so that the run does not end on one
worker still busy with a long unit the other could have taken at the start.

xdist's own order is by number of tests, which put single-test units of a minute or more (a
fault drill that starts its own cluster) at the end of the queue: in CI's run of 2026-11-29
13:17 the two workers were busy 1,249 s and 1,367 s. The seconds are a test's setup, call and
teardown as the controller saw them (tests/file_times.py), kept in `$RECONCILER_CACHE` outside
the clone like the suite's other caches, each run's tests replacing their own entries. They
order the queue only: what runs, and on which worker a file runs whole, is unchanged, and a
run without them (an empty cache) keeps xdist's order.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterable, Mapping
from pathlib import Path

from reconciler.local.distribution import cache_dir

_NAME = "test-seconds.json"


def path() -> Path:
    return cache_dir() / _NAME


def recorded(where: Path | None = None) -> dict[str, float]:
    """The seconds recorded per test node id; none if the file is missing or unreadable."""
    try:
        data = json.loads((where or path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def record(seconds: Mapping[str, float], where: Path | None = None) -> None:
    """This run's tests replace their entries; the others' stay (a run of one file keeps the
    rest). Written whole under a new name, then renamed: a reader never sees half a file."""
    if not seconds:
        return
    target = where or path()
    merged = {**recorded(target), **{k: round(v, 3) for k, v in seconds.items()}}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}")
        partial.write_text(json.dumps(merged, sort_keys=True), encoding="utf-8")
        partial.replace(target)
    except OSError:
        pass  # a read-only cache costs the next run its order, nothing else


def longest_first(units: Mapping[str, Iterable[str]], seconds: Mapping[str, float]) -> list[str]:
    """The units' names, the costliest first: a unit costs its tests' recorded seconds, a test
    never recorded the median of those that were. Equal costs keep the units' given order, and
    with nothing recorded that is the whole order."""
    if not seconds:
        return list(units)
    typical = statistics.median(seconds.values())
    cost = {name: sum(seconds.get(t, typical) for t in tests) for name, tests in units.items()}
    return sorted(units, key=lambda name: -cost[name])
