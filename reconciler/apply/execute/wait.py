"""Waiting until metadata shows what Kafka accepted: after each level, and once at the end.

A change shows when status.judge calls it Done on a fresh read of its topic and status.serving
holds (leaders for new partitions, new replicas in sync). Each poll is one Metadata request for
all the topics still waited for, plus one DescribeConfigs for config levels, and a slow poll
waits three times as long as it took before the next (POLL_SHARE). Once a signal
asks the apply to stop (stopping.py), a level's wait goes on for at most STOP_GRACE seconds: long
enough for the brokers to show what the controller just accepted, so the audit record says what
the cluster shows, and no reassignment is waited for to the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from reconciler import stopping
from reconciler.apply.execute.operations import Operation, Step
from reconciler.apply.execute.verdict import Diverged, Done, judge, serving
from reconciler.cluster.ports import TopicReader
from reconciler.cluster.state import TopicState

CONFIRMATIONS = 3  # reads by fresh clients that must agree before apply returns
CONFIG_STEPS = (Step.CONFIG, Step.RAISE_ISR)
STOP_GRACE = 10.0  # seconds a level's wait goes on once a stop was asked
# A level still not shown after this long says how much of it metadata shows, then as often:
# three busy brokers took over ten minutes to show 20,000 creates, and a bare heartbeat does not
# tell a slow cluster from a stuck one
SHOWN_EVERY = 10.0
# After a poll that took d seconds the next waits at least POLL_SHARE * d: a poll of a large
# level (a Metadata of 20,000 topics took ~1.5 s of busy brokers) must not keep the brokers
# from making the very partitions it waits for
POLL_SHARE = 3.0
LONGEST_PAUSE = 30.0  # so a level's timeout (120 s) still sees several polls
FRESH_AFTER = 5.0  # seconds a reader may show no more before the next poll uses fresh clients


def pause(poll_interval: float, poll_took: float) -> None:
    """Sleep before the next poll: `poll_interval`, or longer after a slow poll."""
    time.sleep(max(poll_interval, min(POLL_SHARE * poll_took, LONGEST_PAUSE)))


def shows(op: Operation, topic: TopicState | None, configs_read: bool) -> bool:
    """Whether this read of the op's topic shows its change, in effect."""
    verdict = judge(op.change, topic, configs_read=configs_read)
    return isinstance(verdict, Done) and serving(op.change, topic)


def for_level(
    cluster: TopicReader,
    step: Step,
    ops: Sequence[Operation],
    timeout: float,
    poll_interval: float,
    progress: Callable[[str], None] | None = None,
) -> dict[int, str]:
    """Poll until metadata shows every op's change; for ops it still does not show after
    `timeout` seconds in which it showed no more of them, why (a sentence), by operation id.

    The timeout counts from the last poll that showed more: brokers show a large level at
    their own pace (measured: 20,000 creates on three busy brokers showed 3,333 within 120 s,
    the rest later, as the brokers made each partition's log), and a level that keeps showing
    more is not late. A reader that shows no more for FRESH_AFTER seconds is replaced by one on
    fresh clients (another broker, maybe less behind); what any poll showed stays shown.
    `progress` hears how many metadata shows, every SHOWN_EVERY seconds while some are still
    not shown."""
    configs = step in CONFIG_STEPS
    began = time.monotonic()
    deadline = began + timeout
    told = began  # when progress last heard of this level
    stalled = began  # since when this reader showed no more
    pending = list(ops)
    seen: dict[str, TopicState] = {}
    cut = False  # the deadline was brought forward by a stop
    with ExitStack() as fresh:
        reader = cluster
        while pending:
            names = sorted({op.topic for op in pending})
            asked = time.monotonic()
            seen = reader.topics(names, configs=configs)
            before = len(pending)
            pending = [op for op in pending if not shows(op, seen.get(op.topic), configs)]
            now = time.monotonic()
            if len(pending) < before and not cut:
                deadline = now + timeout  # progress: the brokers set the pace
            if not cut and stopping.asked():
                deadline, cut = min(deadline, now + STOP_GRACE), True
            if not pending or now > deadline:
                break
            if progress is not None and now - told >= SHOWN_EVERY:
                told = now
                progress(
                    f"  metadata shows {len(ops) - len(pending):,} of {len(ops):,} change(s) "
                    f"after {now - began:.0f} s"
                )
            if len(pending) < before:
                stalled = now
            elif now - stalled >= FRESH_AFTER:
                # Nothing more shown for a while: the broker answering may lag the others
                # (measured: two of seven showed 23,331 of 30,000 creates for minutes while
                # five showed them all). A change any broker showed stays counted; the next
                # poll asks on fresh clients, which librdkafka points at a broker of its own
                # choosing.
                stalled = now
                fresh.close()
                reader = fresh.enter_context(cluster.reconnected())
            pause(poll_interval, now - asked)
    return {op.id: _late(op, seen.get(op.topic), timeout) for op in pending}


def _late(op: Operation, topic: TopicState | None, timeout: float) -> str:
    verdict = judge(op.change, topic, configs_read=op.step in CONFIG_STEPS)
    if isinstance(verdict, Diverged):
        return (
            f"Kafka accepted it but the cluster now shows something else ({verdict.reason}); "
            "plan again to see how it differs"
        )
    if stopping.asked():
        return (
            f"Kafka accepted it but the apply was stopped by {stopping.asked()} before "
            "metadata showed it; re-run apply, which checks the cluster and only does what is left"
        )
    return (
        f"Kafka accepted it but metadata did not show it, nor more of its level, for "
        f"{timeout:.0f} s; re-run "
        "apply, which checks the cluster and only does what is left"
    )


def settle(
    cluster: TopicReader,
    applied: Sequence[Operation],
    timeout: float,
    poll_interval: float,
    progress: Callable[[str], None],
) -> None:
    """Before apply returns, wait (bounded) until readers with fresh clients all see every
    applied change.

    Between levels the controller is what counts (it orders creates after their
    dependencies); at the end, the next reader (a plan right after apply) may ask another
    broker, which learns metadata from the controller asynchronously.
    """
    if not applied:
        return
    configs = any(op.step in CONFIG_STEPS for op in applied)
    deadline = time.monotonic() + timeout
    while True:
        asked = time.monotonic()
        if not _lagging(cluster, applied, configs):
            return
        if time.monotonic() > deadline:
            progress("  note: some brokers do not show every change yet")
            return
        pause(poll_interval, time.monotonic() - asked)


def _lagging(cluster: TopicReader, ops: Sequence[Operation], configs: bool) -> bool:
    """Whether some reader does not see every op yet: fresh clients ask brokers of
    librdkafka's choosing, not always the same one, and must all agree."""
    names = sorted({op.topic for op in ops})
    for _ in range(CONFIRMATIONS):
        with cluster.reconnected() as fresh:
            seen = fresh.topics(names, configs=configs)
        if not all(shows(op, seen.get(op.topic), configs) for op in ops):
            return True
    return False
