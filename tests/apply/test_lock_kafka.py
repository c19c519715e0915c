"""The apply lock on real brokers, for what only Kafka shows (Finding 4): a lock request whose
answer was lost is resolved by reading the lock topic back from the controller, and a real
holder process in another pid namespace keeps its lock while it heartbeats on the brokers.
The judgement of holders (dead, alive, expired, unrecorded, fenced) runs on the fake in
test_lock.py. Against the real three-broker cluster."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.apply import lock
from reconciler.apply.lock import Holder
from reconciler.cluster import adapter
from reconciler.cluster.adapter import lock_topic as adapter_lock
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.errors import LockHeld
from reconciler.local.state import LocalCluster


@pytest.fixture
def cluster(kafka3: LocalCluster) -> Iterator[adapter.Cluster]:
    with adapter.Cluster(adapter.Connection("test", kafka3.bootstrap)) as c:
        c.release_lock()
        yield c
        c.release_lock()


def _hold(cluster: adapter.Cluster, holder: Holder) -> None:
    assert holder.token is not None
    assert cluster.try_lock(holder.encode(), holder.token)


def _me() -> Holder:
    return Holder.me("tester", "sha256:mine")


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
    # a replica on each of the three brokers (the fake's lock is placed so: tests/fakes)
    (placed,) = cluster.topics([LOCK_TOPIC])[LOCK_TOPIC].partitions
    assert sorted(placed.replicas) == [1, 2, 3]


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
    kafka3: LocalCluster, cluster: adapter.Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 4: no topic after the timeout: the request was lost, so it is sent again.

    The topic is awaited for one request timeout (`--timeout`, `request.timeout.ms`) before
    the create is sent again; a client whose timeout is 5 s, rather than the default 30 s,
    shows the same in a sixth of the time."""
    calls = _lost_answer(monkeypatch, send=False)
    me = _me()
    with adapter.Cluster(adapter.Connection("test", kafka3.bootstrap, timeout=5.0)) as impatient:
        began = time.monotonic()
        assert lock.acquire(impatient, me, False, lambda _: None) is None
        assert time.monotonic() - began >= 5.0  # awaited the topic for the whole timeout
    assert len(calls) == 2
    assert cluster.lock_token() == me.token
