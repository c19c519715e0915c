"""The apply lock never guesses (Finding 4): a holder is broken only when it is certainly gone
(its process is missing from our own process table, or its lease expired), and a lock request
whose answer was lost is resolved by reading the lock back. Against the real three-broker
cluster."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.apply import lock
from reconciler.apply.lock import Holder, Judgement
from reconciler.cluster import adapter
from reconciler.cluster.adapter import lock_topic as adapter_lock
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.errors import LockHeld
from reconciler.local.state import LocalCluster
from tests.apply.helpers import wait_until

NO_SUCH_PID = 4_194_304 + 17  # above the kernel's pid_max: never a process


@pytest.fixture
def cluster(kafka3: LocalCluster) -> Iterator[adapter.Cluster]:
    with adapter.Cluster(adapter.Connection("test", kafka3.bootstrap)) as c:
        c.release_lock()
        yield c
        c.release_lock()


class _Heartbeat:
    """Someone else's holder renewing its lease: a record on the lock topic every 0.3 s."""

    def __init__(self, cluster: adapter.Cluster, token: int) -> None:
        self.cluster = cluster.reconnected()
        self.token = token
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.3):
            self.cluster.append_lock(json.dumps({"heartbeat": 1, "token": self.token}).encode())

    def __enter__(self) -> _Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        self.cluster.close()


def _hold(cluster: adapter.Cluster, holder: Holder) -> None:
    assert holder.token is not None
    assert cluster.try_lock(holder.encode(), holder.token)


def _me() -> Holder:
    return Holder.me("tester", "sha256:mine")


def test_holder_in_another_pid_namespace_with_a_live_lease_is_not_broken(
    cluster: adapter.Cluster,
) -> None:
    """Finding 4: same host name, pid not visible here (another pid namespace, as in a container
    with host networking): it is still applying, so the lock must hold."""
    other = dataclasses.replace(
        Holder.me("deploy", "sha256:other", lease=3.0), pid=NO_SUCH_PID, pid_namespace="1"
    )
    _hold(cluster, other)
    assert other.token is not None
    with _Heartbeat(cluster, other.token), pytest.raises(LockHeld) as refused:
        lock.acquire(cluster, _me(), False, lambda _: None)
    assert "another apply is running" in str(refused.value)
    assert "--force-unlock" in str(refused.value)
    assert cluster.lock_token() == other.token  # still theirs


def test_real_holder_in_another_pid_namespace_is_not_broken(
    cluster: adapter.Cluster, kafka3: LocalCluster
) -> None:
    """Finding 4: a real apply holder started in a new pid namespace (`unshare --pid --fork`),
    whose pid means nothing here, keeps its lock while it runs."""
    script = (
        "import sys, time\n"
        "from reconciler.apply import lock as lock\n"
        "from reconciler.cluster import adapter\n"
        f"c = adapter.Cluster(adapter.Connection('test', {kafka3.bootstrap!r}))\n"
        # A live holder is never waited out, so its lease costs nothing here; a short one
        # (3 s) lapsed on a busy machine while its heartbeat's clients were still connecting
        "me = lock.Holder.me('boxed', 'sha256:boxed', lease=15.0)\n"
        "lock.acquire(c, me, False, print)\n"
        "lease = lock.Lease(c, me).start()\n"
        "first, end = lease.renewed, time.monotonic() + 60\n"
        "while lease.renewed == first and time.monotonic() < end:\n"
        "    time.sleep(0.05)  # until its first heartbeat is on the lock topic\n"
        "print('held' if lease.renewed != first else 'no heartbeat', me.pid, flush=True)\n"
        "sys.stdin.read()\n"
        "lease.stop(); lock.release(c, me, print)\n"
    )
    child = subprocess.Popen(
        ["unshare", "--pid", "--fork", sys.executable, "-c", script],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("held"), line
        with pytest.raises(LockHeld) as refused:
            lock.acquire(cluster, _me(), False, lambda _: None)
        assert "boxed on" in str(refused.value)
        holder = Holder.decode(cluster.lock_holder())
        assert holder is not None and holder.user == "boxed"
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=60)
    assert child.returncode == 0
    assert cluster.lock_token() is None  # it released its own lock


def test_dead_holder_in_our_own_pid_namespace_is_broken(cluster: adapter.Cluster) -> None:
    """Finding 4: the one certain case on this host: our host, boot and pid namespace, and the
    holder's process is gone."""
    dead = dataclasses.replace(_me(), user="crashed", pid=NO_SUCH_PID)
    _hold(cluster, dead)
    said: list[str] = []
    broken = lock.acquire(cluster, _me(), False, said.append)
    assert broken is not None and broken.user == "crashed"
    assert any("its process is gone" in s for s in said)


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


def test_holder_from_an_older_reconciler_is_refused_not_broken(cluster: adapter.Cluster) -> None:
    """Finding 4: a record with only host and pid cannot prove anything: refuse, name
    --force-unlock (the old lock broke it because the pid was not visible here)."""
    import socket

    old = {"host": socket.gethostname(), "pid": NO_SUCH_PID, "plan": "sha256:old",
           "since": "2026-01-02T03:04:05+00:00", "user": "legacy"}  # fmt: skip
    assert cluster.try_lock(json.dumps(old).encode())
    with pytest.raises(LockHeld) as refused:
        lock.acquire(cluster, _me(), False, lambda _: None)
    assert "legacy on" in str(refused.value)
    assert "--force-unlock" in str(refused.value)
    said: list[str] = []
    lock.acquire(cluster, _me(), True, said.append)
    assert any("breaking the lock of legacy" in s for s in said)


def test_expired_lease_is_broken_and_live_one_is_not(cluster: adapter.Cluster) -> None:
    """Finding 4: a holder on another machine is gone once its lease expired (no heartbeat for
    a whole lease, watched here); while it heartbeats it holds."""
    remote = dataclasses.replace(
        Holder.me("far", "sha256:far", lease=2.0), host="another-machine", boot_id="b"
    )
    _hold(cluster, remote)
    assert remote.token is not None
    with _Heartbeat(cluster, remote.token):
        with pytest.raises(LockHeld) as refused:
            lock.acquire(cluster, _me(), False, lambda _: None)
        assert "renews its lease" in str(refused.value)
    said: list[str] = []
    broken = lock.acquire(cluster, _me(), False, said.append)
    assert broken is not None and broken.user == "far"
    assert any("its lease expired" in s for s in said)


def test_holder_stops_once_its_lock_was_broken(cluster: adapter.Cluster) -> None:
    """Finding 4: the holder fences itself: once its lock is gone (broken by someone else), its
    lease check stops the apply before the next level."""
    me = Holder.me("fenced", "sha256:f", lease=1.5)
    lock.acquire(cluster, me, False, lambda _: None)
    lease = lock.Lease(cluster, me).start()
    try:
        lease.check("level 1")  # freshly taken: fine
        assert cluster.release_lock()  # --force-unlock elsewhere
        wait_until(lambda: lease.lost is not None)
        with pytest.raises(LockHeld, match="this apply lost the lock"):
            lease.check("level 2")
    finally:
        lease.stop()


def test_release_leaves_someone_elses_lock_alone(cluster: adapter.Cluster) -> None:
    other = _me()
    _hold(cluster, other)
    assert other.token is not None
    assert not cluster.release_lock(other.token + 1)
    assert cluster.lock_token() == other.token


def _lost_answer(
    monkeypatch: pytest.MonkeyPatch, before: object = None, send: bool = True
) -> list[int]:
    """Make the first lock CreateTopics answer time out on the client side, as under load; the
    request (if `send`) still reaches the controller and the topic is really created."""
    real = adapter_lock.create_topics  # type: ignore[attr-defined]
    calls: list[int] = []

    def timed_out(*args: object, **kwargs: object) -> dict[str, Failure | None]:
        calls.append(1)
        if len(calls) > 1:
            return real(*args, **kwargs)  # type: ignore[arg-type]
        if callable(before):
            before()  # someone else's create, through this same (patched) function
        if send:
            real(*args, **kwargs)  # type: ignore[arg-type]
        return {LOCK_TOPIC: Failure("TIMED_OUT", "Local: Timed out")}

    monkeypatch.setattr(adapter_lock, "create_topics", timed_out)
    return calls


def test_lock_request_that_timed_out_is_resolved_by_reading_it_back(
    cluster: adapter.Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: the controller created the lock topic but the answer was lost: the token on
    the topic says it is ours, so we hold it and record who we are (no holder-less lock)."""
    calls = _lost_answer(monkeypatch)
    me = _me()
    assert lock.acquire(cluster, me, False, lambda _: None) is None
    assert len(calls) == 1
    assert cluster.lock_token() == me.token
    holder = Holder.decode(cluster.lock_holder())
    assert holder is not None and holder.token == me.token


def test_timed_out_lock_request_when_someone_else_won(
    cluster: adapter.Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: our create timed out and the topic carries another token: it is theirs."""
    other = dataclasses.replace(_me(), user="winner")
    _lost_answer(monkeypatch, before=lambda: _hold(cluster, other), send=False)
    with pytest.raises(LockHeld, match="winner on"):
        lock.acquire(cluster, _me(), False, lambda _: None)
    assert cluster.lock_token() == other.token


def test_timed_out_lock_request_that_never_arrived_is_sent_again(
    cluster: adapter.Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: no topic after the timeout: the request was lost, so it is sent again."""
    calls = _lost_answer(monkeypatch, send=False)
    me = _me()
    assert lock.acquire(cluster, me, False, lambda _: None) is None
    assert len(calls) == 2
    assert cluster.lock_token() == me.token


def test_lock_taken_but_never_recorded_is_broken_after_a_lease(cluster: adapter.Cluster) -> None:
    """Finding 4: a taker that died between creating the lock and recording itself leaves a
    token and no record. It would have recorded itself at once and heartbeated since, so a
    whole lease without a record means it is gone: broken, no --force-unlock needed. A taker
    whose record arrives within the lease (after the 5 s any holder gets) holds."""
    me = Holder.me("tester", "sha256:mine", lease=4.0)
    slow = dataclasses.replace(_me(), user="slow")
    assert slow.token is not None
    assert adapter_lock.try_lock(cluster.connection, cluster._admin(), slow.token, 1)

    def record_late() -> None:
        with cluster.reconnected() as other:
            other.append_lock(slow.encode())

    late = threading.Timer(6.0, record_late)
    late.start()
    said: list[str] = []
    with pytest.raises(LockHeld, match="held by slow on"):
        lock.acquire(cluster, me, False, said.append)
    late.join()
    assert any("has not recorded who it is; watching" in s for s in said), said
    assert cluster.release_lock(slow.token)

    dead = dataclasses.replace(_me(), user="dead")
    assert dead.token is not None
    assert adapter_lock.try_lock(cluster.connection, cluster._admin(), dead.token, 1)
    said.clear()
    assert lock.acquire(cluster, me, False, said.append) is None  # nobody to name
    assert any("no holder record appeared for 4 s" in s for s in said), said
    assert cluster.lock_token() == me.token


def test_a_broken_lock_is_noticed_at_once_where_it_is_confirmed(cluster: adapter.Cluster) -> None:
    """Finding 4: before closing other applies' unfinished audit records (theirs to close only
    while the lock is ours) apply confirms the lock by reading it, rather than trust the last
    heartbeat's look, which may be a whole heartbeat interval old."""
    me = Holder.me("confirming", "sha256:c")  # 30 s lease: a heartbeat every 5 s
    lock.acquire(cluster, me, False, lambda _: None)
    lease = lock.Lease(cluster, me).start()
    try:
        assert cluster.release_lock()  # --force-unlock elsewhere, between two heartbeats
        with pytest.raises(LockHeld, match="this apply lost the lock"):
            lease.check("closing unfinished audit records", confirm=True)
    finally:
        lease.stop()
