"""apply --throttle: limit the copies a level's reassignments make, for as long as they run.

`hold` works out which replicas copy from and to (the replicas holding the data -> the replicas
being added), has the adapter throttle them (cluster/adapter/replication_throttle.py says
how, and what it leaves alone) once the audit journal has recorded what is about to be set,
and says so;
`release` takes it away again and records that, warning instead of failing when it cannot,
since the reassignments themselves are done by then: the throttle stays recorded, so `plan` and
`drift` report it and the next apply removes it (apply/leftovers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from reconciler.cluster.ports import Throttles
from reconciler.cluster.protocol.throttles import Moves, Throttle
from reconciler.cluster.state import TopicState
from reconciler.errors import ClusterError
from reconciler.spec.units import format_size_bytes

Progress = Callable[[str], None]


class Ledger(Protocol):
    """Where apply records its throttles (journal.Journal): before setting, after removing."""

    def throttle(self, throttle: Throttle) -> None: ...  # raises ClusterError: then not set

    def unthrottled(self, throttle: Throttle) -> None: ...


def hold(
    cluster: Throttles,
    rate: int,
    targets: Mapping[tuple[str, int], tuple[int, ...]],
    shown: Mapping[str, TopicState],
    progress: Progress,
    ledger: Ledger | None = None,
) -> Throttle:
    """Throttle the copies these moves make to `rate` bytes/s per broker, recorded in `ledger`
    before anything is set. Raises ClusterError."""
    sources: dict[str, list[str]] = {}
    destinations: dict[str, list[str]] = {}
    brokers: set[int] = set()
    for (topic, partition), target in sorted(targets.items()):
        found = shown.get(topic)
        now = (
            found.partitions[partition].replicas
            if found is not None and partition < len(found.partitions)
            else ()
        )
        sources.setdefault(topic, []).extend(f"{partition}:{b}" for b in now)
        destinations.setdefault(topic, []).extend(
            f"{partition}:{b}" for b in target if b not in now
        )
        brokers.update(now, target)
    moves = {t: Moves(tuple(sources[t]), tuple(destinations.get(t, ()))) for t in sources}
    record = ledger.throttle if ledger is not None else (lambda _: None)
    held = cluster.set_throttle(rate, moves, brokers, record)
    progress(
        f"  throttling replication to {format_size_bytes(held.rate)}/s on broker(s) "
        f"{', '.join(map(str, held.brokers)) or 'none'}"
    )
    for broker, own in held.kept:
        progress(f"  broker {broker} keeps its own throttle of {own} bytes/s")
    return held


def release(
    cluster: Throttles, held: Throttle, progress: Progress, ledger: Ledger | None = None
) -> None:
    try:
        cluster.clear_throttle(held)
    except ClusterError as exc:
        progress(
            f"  warning: the replication throttle could not be removed ({exc}); it stays in "
            "the audit record: `plan` and `drift` report it and the next apply removes it"
        )
    else:
        if ledger is not None:
            ledger.unthrottled(held)
        progress("  replication throttle removed")
