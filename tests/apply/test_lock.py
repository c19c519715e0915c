"""The apply lock never guesses (Finding 4): a holder is broken only when it is certainly gone
(its process is missing from our own process table, or its lease expired), and a holder that
is alive or cannot be judged is refused naming --force-unlock. The judgement is apply's own
logic, so it runs on the in-memory fake, with the waits (a lease watched, a holder's record
awaited) in fake seconds; tests/contract/test_ports.py holds the fake's lock to Kafka's
(one holder, its token, records and heartbeats seen by other clients, release by token).
What only brokers can show stays in test_lock_kafka.py: a lock create whose answer was lost,
resolved by reading the topic back, and a real holder process in another pid namespace."""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import Callable

import pytest

from reconciler.apply import lock
from reconciler.apply.lock import Holder, Judgement
from reconciler.errors import LockHeld
from tests.apply.helpers import wait_until
from tests.fakes.clock import FakeClock
from tests.fakes.cluster import FakeCluster, FakeKafka

NO_SUCH_PID = 4_194_304 + 17  # above the kernel's pid_max: never a process


@pytest.fixture
def kafka() -> FakeKafka:
    return FakeKafka()


@pytest.fixture
def cluster(kafka: FakeKafka) -> FakeCluster:
    return kafka.client()


def _heartbeats(clock: FakeClock, cluster: FakeCluster, token: int) -> Callable[[], None]:
    """Someone else's holder renewing its lease, on a client of its own: a record on the lock
    topic every 0.3 (fake) seconds; returns the function that stops it."""
    theirs = cluster.reconnected()
    record = json.dumps({"heartbeat": 1, "token": token}).encode()
    return clock.every(0.3, lambda: theirs.append_lock(record))


def _hold(cluster: FakeCluster, holder: Holder) -> None:
    assert holder.token is not None
    assert cluster.try_lock(holder.encode(), holder.token)


def _me() -> Holder:
    return Holder.me("tester", "sha256:mine")


def test_holder_in_another_pid_namespace_with_a_live_lease_is_not_broken(
    cluster: FakeCluster,
) -> None:
    """Finding 4: same host name, pid not visible here (another pid namespace, as in a container
    with host networking): it is still applying, so the lock must hold."""
    other = dataclasses.replace(
        Holder.me("deploy", "sha256:other", lease=3.0), pid=NO_SUCH_PID, pid_namespace="1"
    )
    _hold(cluster, other)
    assert other.token is not None
    clock = FakeClock()
    _heartbeats(clock, cluster, other.token)
    with pytest.raises(LockHeld) as refused:
        lock.acquire(cluster, _me(), False, lambda _: None, clock=clock.clock)
    assert "another apply is running" in str(refused.value)
    assert "--force-unlock" in str(refused.value)
    assert cluster.lock_token() == other.token  # still theirs


def test_dead_holder_in_our_own_pid_namespace_is_broken(cluster: FakeCluster) -> None:
    """Finding 4: the one certain case on this host: our host, boot and pid namespace, and the
    holder's process is gone."""
    dead = dataclasses.replace(_me(), user="crashed", pid=NO_SUCH_PID)
    _hold(cluster, dead)
    said: list[str] = []
    me = _me()
    broken = lock.acquire(cluster, me, False, said.append, clock=FakeClock().clock)
    assert broken is not None and broken.user == "crashed"
    assert any("its process is gone" in s for s in said)
    assert cluster.lock_token() == me.token


def test_recycled_pid_is_not_the_holder() -> None:
    """Finding 4: a pid that exists again but belongs to a process started at another time is
    not the holder; the holder's own process, started when it says, is alive."""
    me = _me()
    assert lock.judge(me, me, proc_is_ours=True) is Judgement.ALIVE
    recycled = dataclasses.replace(me, process_start="1")
    assert lock.judge(recycled, me, proc_is_ours=True) is Judgement.DEAD
    elsewhere = dataclasses.replace(me, boot_id="another-boot", pid=NO_SUCH_PID)
    assert lock.judge(elsewhere, me, proc_is_ours=True) is Judgement.UNKNOWN
    assert lock.judge(dataclasses.replace(me, pid=NO_SUCH_PID), me, False) is Judgement.UNKNOWN


def test_holder_from_an_older_reconciler_is_refused_not_broken(cluster: FakeCluster) -> None:
    """Finding 4: a record with only host and pid cannot prove anything: refuse, name
    --force-unlock (the old lock broke it because the pid was not visible here)."""
    old = {"host": socket.gethostname(), "pid": NO_SUCH_PID, "plan": "sha256:old",
           "since": "2026-01-02T03:04:05+00:00", "user": "legacy"}  # fmt: skip
    assert cluster.try_lock(json.dumps(old).encode())
    clock = FakeClock()
    with pytest.raises(LockHeld) as refused:
        lock.acquire(cluster, _me(), False, lambda _: None, clock=clock.clock)
    assert "legacy on" in str(refused.value)
    assert "--force-unlock" in str(refused.value)
    said: list[str] = []
    lock.acquire(cluster, _me(), True, said.append, clock=clock.clock)
    assert any("breaking the lock of legacy" in s for s in said)


def test_expired_lease_is_broken_and_live_one_is_not(cluster: FakeCluster) -> None:
    """Finding 4: a holder on another machine is gone once its lease expired (no heartbeat for
    a whole lease, watched here); while it heartbeats it holds."""
    remote = dataclasses.replace(
        Holder.me("far", "sha256:far", lease=30.0), host="another-machine", boot_id="b"
    )
    _hold(cluster, remote)
    assert remote.token is not None
    clock = FakeClock()
    stop = _heartbeats(clock, cluster, remote.token)
    with pytest.raises(LockHeld) as refused:
        lock.acquire(cluster, _me(), False, lambda _: None, clock=clock.clock)
    assert "renews its lease" in str(refused.value)
    stop()
    said: list[str] = []
    began = clock.time
    broken = lock.acquire(cluster, _me(), False, said.append, clock=clock.clock)
    assert broken is not None and broken.user == "far"
    assert any("its lease expired: no heartbeat for 30 s" in s for s in said), said
    assert clock.time - began >= 30.0  # watched for the whole lease, not less


def test_a_heartbeat_late_in_the_lease_keeps_the_holder(cluster: FakeCluster) -> None:
    """Finding 4: the lease is watched for all of its length: one heartbeat just before it
    ends shows a live holder, which is refused, not broken."""
    remote = dataclasses.replace(
        Holder.me("slowbeat", "sha256:s", lease=30.0), host="another-machine", boot_id="b"
    )
    _hold(cluster, remote)
    clock = FakeClock()
    theirs = cluster.reconnected()
    clock.at(29.0, lambda: theirs.append_lock(b'{"heartbeat": 1}'))
    with pytest.raises(LockHeld, match="renews its lease"):
        lock.acquire(cluster, _me(), False, lambda _: None, clock=clock.clock)
    assert cluster.lock_token() == remote.token


def test_holder_stops_once_its_lock_was_broken(cluster: FakeCluster) -> None:
    """Finding 4: the holder fences itself: once its lock is gone (broken by someone else), its
    lease check stops the apply before the next level."""
    me = Holder.me("fenced", "sha256:f", lease=1.5)  # a heartbeat every 0.25 s
    lock.acquire(cluster, me, False, lambda _: None)
    lease = lock.Lease(cluster, me).start()
    try:
        lease.check("level 1")  # freshly taken: fine
        assert cluster.reconnected().release_lock()  # --force-unlock elsewhere
        wait_until(lambda: lease.lost is not None, timeout=30)
        with pytest.raises(LockHeld, match="this apply lost the lock"):
            lease.check("level 2")
    finally:
        lease.stop()


def test_release_leaves_someone_elses_lock_alone(cluster: FakeCluster) -> None:
    other = _me()
    _hold(cluster, other)
    assert other.token is not None
    said: list[str] = []
    lock.release(cluster, dataclasses.replace(other, token=other.token + 1), said.append)
    assert cluster.lock_token() == other.token
    assert said == []


def test_lock_taken_but_never_recorded_is_broken_after_a_lease(kafka: FakeKafka) -> None:
    """Finding 4: a taker that died between creating the lock and recording itself leaves a
    token and no record. It would have recorded itself at once and heartbeated since, so a
    whole lease without a record means it is gone: broken, no --force-unlock needed. A taker
    whose record arrives within the lease (after the 5 s any holder gets) holds."""
    cluster = kafka.client()
    me = Holder.me("tester", "sha256:mine", lease=4.0)
    slow = dataclasses.replace(_me(), user="slow")
    assert slow.token is not None
    kafka.take_lock_unrecorded(slow.token)
    clock = FakeClock()
    clock.at(6.0, lambda: cluster.reconnected().append_lock(slow.encode()))
    said: list[str] = []
    with pytest.raises(LockHeld, match="held by slow on"):
        lock.acquire(cluster, me, False, said.append, clock=clock.clock)
    assert any("has not recorded who it is; watching" in s for s in said), said
    assert cluster.release_lock(slow.token)

    dead = dataclasses.replace(_me(), user="dead")
    assert dead.token is not None
    kafka.take_lock_unrecorded(dead.token)
    said.clear()
    began = clock.time
    assert lock.acquire(cluster, me, False, said.append, clock=clock.clock) is None  # no one
    assert any("no holder record appeared for 4 s" in s for s in said), said
    assert clock.time - began >= 5.0 + 4.0  # the holder's grace, then a whole lease
    assert cluster.lock_token() == me.token


def test_a_broken_lock_is_noticed_at_once_where_it_is_confirmed(cluster: FakeCluster) -> None:
    """Finding 4: before closing other applies' unfinished audit records (theirs to close only
    while the lock is ours) apply confirms the lock by reading it, rather than trust the last
    heartbeat's look, which may be a whole heartbeat interval old."""
    me = Holder.me("confirming", "sha256:c")  # 30 s lease: a heartbeat every 5 s
    lock.acquire(cluster, me, False, lambda _: None)
    lease = lock.Lease(cluster, me).start()
    try:
        assert cluster.reconnected().release_lock()  # --force-unlock elsewhere, between beats
        lease.check("closing unfinished audit records")  # the last heartbeat's look: fine
        with pytest.raises(LockHeld, match="this apply lost the lock"):
            lease.check("closing unfinished audit records", confirm=True)
    finally:
        lease.stop()
