"""What other applies left on the cluster: reading it for a plan, removing it in an apply.

`observe` adds to a state read for `plan` or `drift` (ClusterState.lock, .leftover_throttles):
  - the lock's holder, when the lock topic is there (one read of its record; nothing otherwise);
  - the throttles the audit journal records as set and never removed (journal.Tail.throttles)
    that the cluster still shows: a broker still at the recorded rate, a topic still listing
    recorded replicas. Read only when some topic lists throttled replicas, so a plan of a
    cluster without any pays nothing: every throttle apply sets lists replicas on its topics,
    and removing one takes the topics' lists away last.
`remove` (apply, under the lock) takes away every recorded throttle not removed yet, and
records each removal, so the next reader's ledger no longer has it. A throttle whose topics
Kafka is still moving (an apply stopped while following them) is kept until they are done: it
follows them first, and keeps the throttle if they outlast its timeout or a stop. A throttle
no apply recorded is an operator's: it is never read as leftover nor touched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reconciler.cluster.ports import Executing, LeftoverReader, LockStore, Throttles
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.cluster.protocol.throttles import FOLLOWER_REPLICAS, LEADER_REPLICAS
from reconciler.cluster.state import ClusterState, LeftoverThrottle, LockShown
from reconciler.errors import ClusterError
from reconciler.planning import p_codes
from reconciler.planning.plan import Plan

if TYPE_CHECKING:
    from reconciler.apply.record import journal

# Apply's journal, lock record and reassignment follower are imported where they are used: a
# plan of a cluster with no lock topic and no throttled replica needs none of them (about a
# tenth of a live plan's imports; docs/benchmarks.md, start-up).

Progress = Callable[[str], None]
_LISTS = (LEADER_REPLICAS, FOLLOWER_REPLICAS)


def reported(plan: Plan) -> bool:
    """The plan reports a throttle an apply left: applying it, even with no change, removes it."""
    return any(d.rule == p_codes.LEFTOVER_THROTTLE.name for d in plan.diagnostics)


def observe(cluster: LeftoverReader, state: ClusterState) -> ClusterState:
    """`state` with the lock's holder and the leftover throttles it shows (see the module)."""
    lock = _lock(cluster) if LOCK_TOPIC in state.topics else None
    throttled = any(k in t.overrides for t in state.topics.values() for k in _LISTS)
    left: tuple[LeftoverThrottle, ...] = ()
    if throttled:
        from reconciler.apply.record import journal

        try:
            left = leftovers(cluster, state, journal.read_tail(cluster).throttles)
        except ClusterError:
            # The audit topic unreadable (a principal that may not Read it): what is there
            # cannot be told from an operator's throttle, which is never reported; apply, which
            # must read the audit topic, still removes its own
            left = ()
    return dataclasses.replace(state, lock=lock, leftover_throttles=left)


def _lock(cluster: LockStore) -> LockShown | None:
    try:
        if cluster.lock_token() is None:
            return None  # released since the topics were listed
        raw = cluster.lock_holder()
    except ClusterError as exc:
        return LockShown(f"a holder whose record could not be read ({exc})", None)
    from reconciler.apply.lock import Holder

    holder = Holder.decode(raw)
    if holder is None:
        return LockShown("a holder that has not recorded itself (yet)", None)
    return LockShown(f"{holder.user} on {holder.host} (pid {holder.pid})", holder.since)


def leftovers(
    cluster: Throttles, state: ClusterState, recorded: dict[str, dict[str, Any]]
) -> tuple[LeftoverThrottle, ...]:
    """The recorded throttles as far as the cluster still shows them (state's topics; the
    brokers' rates read now, one request per broker involved)."""
    entries = [e for e in recorded.values() if isinstance(e.get("rate"), int)]
    brokers = {b for e in entries for b in e.get("brokers", []) if isinstance(b, int)}
    rates = cluster.broker_rates(brokers) if brokers else {}
    found: list[LeftoverThrottle] = []
    for entry in entries:
        rate = entry["rate"]
        at_rate = tuple(b for b in entry.get("brokers", []) if rates.get(b) == str(rate))
        topics = tuple(
            t for t, leader, follower in _topics(entry) if _shows(state, t, leader, follower)
        )
        if at_rate or topics:
            who = entry.get("who")
            found.append(
                LeftoverThrottle(
                    str(entry.get("apply_id")), who if isinstance(who, str) else None,
                    rate, at_rate, topics,
                )
            )  # fmt: skip
    return tuple(found)


def _topics(entry: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    out: list[tuple[str, list[str], list[str]]] = []
    for item in entry.get("topics", []):
        if isinstance(item, list) and len(item) == 3 and isinstance(item[0], str):
            out.append((item[0], list(item[1]), list(item[2])))
    return out


def _shows(state: ClusterState, topic: str, leader: list[str], follower: list[str]) -> bool:
    found = state.topics.get(topic)
    if found is None:
        return False
    own = found.overrides
    listed = {key: set(own.get(key, "").split(",")) for key in _LISTS}
    return bool(listed[LEADER_REPLICAS] & set(leader) or listed[FOLLOWER_REPLICAS] & set(follower))


def remove(
    cluster: Executing,
    log: journal.Journal,
    progress: Progress,
    timeout: float = 3600.0,
    poll_interval: float = 1.0,
) -> None:
    """Take away every throttle the journal has as left by earlier applies, once the moves of
    its topics are done, recording each removal; one that cannot be removed is a warning and
    stays recorded (the next apply tries again)."""
    for throttle_id, entry in list(log.throttles.items()):
        if not isinstance(entry.get("rate"), int):
            continue
        brokers = [b for b in entry.get("brokers", []) if isinstance(b, int)]
        topics = [t for t, _, _ in _topics(entry)]
        moving = _still_moving(cluster, entry, topics, timeout, poll_interval, progress)
        if moving:
            progress(
                f"warning: the replication throttle apply {entry.get('apply_id')} set stays: "
                f"Kafka is still moving {moving} partition(s) of {', '.join(topics)}; the next "
                "apply follows them again (`reconciler apply --cancel-reassignments` cancels them)"
            )
            continue
        try:
            cluster.remove_throttle(entry["rate"], brokers, _topics(entry))
        except ClusterError as exc:
            progress(
                f"warning: the replication throttle apply {entry.get('apply_id')} left could not "
                f"be removed ({exc}); the next apply tries again"
            )
            continue
        log.unthrottled(throttle_id)
        progress(
            f"removed the replication throttle apply {entry.get('apply_id')} left (broker(s) "
            f"{', '.join(map(str, brokers)) or 'none'}; {', '.join(topics) or 'no topic'})"
        )


def _still_moving(
    cluster: Executing,
    entry: dict[str, Any],
    topics: list[str],
    timeout: float,
    poll_interval: float,
    progress: Progress,
) -> int:
    """Follow the moves the throttle's topics still have; the partitions left (0: done)."""
    if not topics:
        return 0
    now = cluster.reassignments(topics)
    if not now:
        return 0
    progress(
        f"following the partition moves apply {entry.get('apply_id')} started under its "
        f"throttle ({len(now)} partition(s) of {', '.join(sorted({r.topic for r in now}))})"
    )
    from reconciler.apply.execute import reassign

    left = reassign.follow(cluster, topics, len(now), timeout, poll_interval, progress)
    return sum(left.values())
