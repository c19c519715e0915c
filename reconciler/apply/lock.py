"""The per-cluster apply lock: who holds it, taking it, and breaking it only when certain.

The lock lives on the cluster (adapter/lock.py: a topic created atomically by the controller,
carrying the taker's random token), so two CI runners on different machines exclude each other.
The holder's record names it beyond host and pid: the kernel's boot id, its pid namespace and
its process start time. While it applies, the holder renews a lease (heartbeat records).

A holder is judged gone only when that is certain:
  - same host name, boot id and pid namespace as ours (so its pid means the same process
    table) and the pid is missing or belongs to a process started at another time; or
  - its lease expired: no heartbeat reached the lock topic for a whole lease, watched on our
    own monotonic clock (no comparison of clocks between machines decides it).
Anything else (another pid namespace on the same host, another machine, an older record without
these fields, a holder that never recorded itself) refuses naming `--force-unlock`.

The holder fences itself: before each level it checks that its lease was renewed within the
lease, and stops otherwise (another apply may rightly have broken the lock meanwhile).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from reconciler.cluster.ports import LockStore
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.errors import LockHeld, ReconcilerError

DEFAULT_LEASE = 30.0  # seconds without a heartbeat after which a holder counts as gone
HEARTBEATS_PER_LEASE = 6


@dataclass(frozen=True)
class Clock:
    """The monotonic time and the sleep that judging a holder waits by (its record's grace,
    a lease watched). A parameter so that tests watch a lease expire without living it."""

    now: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


SYSTEM_CLOCK = Clock()


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def process_start(pid: int) -> str | None:
    """The start time of process `pid` in clock ticks since boot (/proc/PID/stat field 22), as
    this process's /proc shows it; None if there is no such process."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None or ")" not in stat:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[19] if len(fields) > 19 else None


def _pid_namespace() -> str | None:
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return None


def _proc_is_ours() -> bool:
    """Whether /proc shows our own pid namespace (so /proc/PID is the PID we mean)."""
    try:
        return os.readlink("/proc/self") == str(os.getpid())
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class Holder:
    user: str
    host: str
    pid: int
    since: str  # ISO 8601, UTC
    plan: str  # the plan's hash
    # Identity beyond host and pid; None in records of older reconcilers (judged unknown)
    boot_id: str | None = None
    pid_namespace: str | None = None
    process_start: str | None = None
    token: int | None = None  # the lock topic's token while this holder has it
    lease: float | None = None  # seconds; the holder heartbeats several times per lease

    @staticmethod
    def me(user: str, plan: str, lease: float = DEFAULT_LEASE) -> Holder:
        return Holder(
            user=user,
            host=socket.gethostname(),
            pid=os.getpid(),
            since=datetime.now(UTC).isoformat(timespec="seconds"),
            plan=plan,
            boot_id=_read("/proc/sys/kernel/random/boot_id"),
            pid_namespace=_pid_namespace(),
            process_start=process_start(os.getpid()) if _proc_is_ours() else None,
            token=secrets.randbits(62),
            lease=lease,
        )

    def encode(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @staticmethod
    def decode(raw: bytes | None) -> Holder | None:
        if raw is None:
            return None
        try:
            data = json.loads(raw)

            def optional(key: str, kind: Callable[[Any], Any]) -> Any:
                value = data.get(key)
                return None if value is None else kind(value)

            return Holder(
                str(data["user"]),
                str(data["host"]),
                int(data["pid"]),
                str(data["since"]),
                str(data["plan"]),
                optional("boot_id", str),
                optional("pid_namespace", str),
                optional("process_start", str),
                optional("token", int),
                optional("lease", float),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def __str__(self) -> str:
        return (
            f"{self.user} on {self.host} (pid {self.pid}) since {self.since}, plan {self.plan[:19]}"
        )


class Judgement(Enum):
    ALIVE = "alive"  # certainly running: its process exists here, started when it says
    DEAD = "dead"  # certainly gone: same process table, no such process
    UNKNOWN = "unknown"  # cannot tell from here: its lease decides, or --force-unlock


def judge(holder: Holder, me: Holder, proc_is_ours: bool | None = None) -> Judgement:
    """Whether `holder`'s process is certainly alive or dead, seen from `me` (this process)."""
    ours = _proc_is_ours() if proc_is_ours is None else proc_is_ours
    identified = None not in (holder.boot_id, holder.pid_namespace, holder.process_start)
    same_table = (
        identified
        and ours
        and holder.host == me.host
        and holder.boot_id == me.boot_id
        and holder.pid_namespace == me.pid_namespace
    )
    if not same_table:
        return Judgement.UNKNOWN
    return Judgement.ALIVE if process_start(holder.pid) == holder.process_start else Judgement.DEAD


class _Lease(Enum):
    LIVE = "live"
    EXPIRED = "expired"
    RELEASED = "released"  # the lock went away while we watched


def _lease(cluster: LockStore, token: int, lease: float, clock: Clock) -> _Lease:
    """Whether the lock's lease is live: the lock topic is watched for up to one whole lease
    on our monotonic clock; a record (a heartbeat, or the holder's first) means live. No clock
    of another machine is compared with ours, so clock skew cannot break a live lease."""
    lease = max(1.0, lease)
    end = cluster.lock_end()
    deadline = clock.now() + lease
    while clock.now() < deadline:
        clock.sleep(min(0.5, lease / 8))
        if cluster.lock_token() != token:
            return _Lease.RELEASED
        if cluster.lock_end() != end:
            return _Lease.LIVE
    return _Lease.EXPIRED


def acquire(
    cluster: LockStore,
    me: Holder,
    force: bool,
    progress: Callable[[str], None],
    attempts: int = 10,
    clock: Clock = SYSTEM_CLOCK,
) -> Holder | None:
    """Take the lock; returns the holder whose lock was broken (None if there was none).

    Raises LockHeld naming the holder when it is held by a live (or unknown) apply.
    """
    broken: Holder | None = None
    for _ in range(attempts):
        if cluster.try_lock(me.encode(), me.token):
            return broken
        token = cluster.lock_token()
        if token is None:
            continue  # released meanwhile
        holder = _holder(cluster, token, clock)
        why = "--force-unlock" if force else _why_gone(cluster, holder, token, me, progress, clock)
        if why is None:
            continue
        progress(f"breaking the lock of {holder or 'an unknown holder'} ({why})")
        broken = holder
        cluster.release_lock(token)  # returns once the deletion shows
    raise LockHeld(
        f"could not take the lock on cluster '{cluster.name}': it was taken again each "
        "time it was broken; another apply is starting"
    )


def _holder(cluster: LockStore, token: int, clock: Clock, wait: float = 5.0) -> Holder | None:
    """The holder's record; a holder that has just taken the lock gets `wait` seconds to write
    it (polled), so a race between two starting applies is not mistaken for a crash."""
    deadline = clock.now() + wait
    while cluster.lock_end() == 0 and clock.now() < deadline:
        if cluster.lock_token() != token:
            return None
        clock.sleep(0.1)
    found = cluster.lock_records(wait=wait)
    return Holder.decode(found[0].value) if found else None


def _why_gone(
    cluster: LockStore,
    holder: Holder | None,
    token: int,
    me: Holder,
    progress: Callable[[str], None],
    clock: Clock,
) -> str | None:
    """Why the holder is certainly gone (None: the lock was released meanwhile); raises
    LockHeld when it is not certain."""
    if holder is None:
        if cluster.lock_token() != token:
            return None  # released (and perhaps taken again) meanwhile: try again
        unrecorded = (
            f"another apply holds the lock on cluster '{cluster.name}' (topic {LOCK_TOPIC}) but "
            "has not recorded who it is"
        )
        if token < 0:  # an older reconciler's lock: no lease to watch
            raise LockHeld(
                f"{unrecorded}: it may have crashed right after taking it. If no apply is "
                "running, re-run with --force-unlock."
            )
        # A taker records itself at once and then heartbeats, and fences itself on its lease
        # before each level: no record for a whole lease (every apply's is the same length as
        # ours) means it died right after the create.
        lease = me.lease or DEFAULT_LEASE
        progress(f"{unrecorded}; watching for its record for up to {lease:.0f} s")
        match _lease(cluster, token, lease, clock):
            case _Lease.LIVE | _Lease.RELEASED:
                return None  # it recorded itself, or let go: judge it again
            case _Lease.EXPIRED:
                return f"no holder record appeared for {lease:.0f} s after it took the lock"
    running = (
        f"another apply is running on cluster '{cluster.name}': held by {holder}. "
        "Wait for it to finish; if it crashed, re-run with --force-unlock."
    )
    verdict = judge(holder, me)
    if verdict is Judgement.ALIVE:
        raise LockHeld(running)
    if verdict is Judgement.DEAD:
        return "its process is gone"
    if holder.lease is None or holder.token is None or holder.token != token:
        raise LockHeld(
            f"another apply is running on cluster '{cluster.name}': held by {holder}, whose "
            "record does not say enough to tell from here whether it still runs (a holder "
            "from an older reconciler). Wait for it to finish; if it crashed, re-run with "
            "--force-unlock."
        )
    progress(
        f"the lock holder ({holder}) is not a process this machine can see; watching its "
        f"lease for up to {max(1.0, holder.lease):.0f} s"
    )
    match _lease(cluster, token, holder.lease, clock):
        case _Lease.LIVE:
            raise LockHeld(
                f"another apply is running on cluster '{cluster.name}': held by {holder}, "
                "which renews its lease. Wait for it to finish; if it is stuck, stop it, or "
                "re-run with --force-unlock."
            )
        case _Lease.RELEASED:
            return None
        case _Lease.EXPIRED:
            return f"its lease expired: no heartbeat for {holder.lease:.0f} s"


@dataclass
class Lease:
    """The holder's heartbeat: a thread appending a record to the lock topic several times per
    lease, on clients of its own. `check` (the apply, before each level) raises once the lease
    was not renewed for a whole lease or the lock is someone else's."""

    cluster: LockStore
    holder: Holder
    renewed: float = field(default_factory=time.monotonic)
    lost: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Lease:
        self._thread = threading.Thread(target=self._run, name="lock-heartbeat", daemon=True)
        self._thread.start()
        return self

    @property
    def seconds(self) -> float:
        return self.holder.lease or DEFAULT_LEASE

    def _run(self) -> None:
        interval = self.seconds / HEARTBEATS_PER_LEASE
        beat = 0
        with self.cluster.reconnected() as cluster:
            while not self._stop.wait(interval):
                sent = time.monotonic()
                beat += 1
                try:
                    if cluster.lock_token() != self.holder.token:
                        self.lost = "the lock is no longer this apply's (it was broken)"
                        return
                    record = {"heartbeat": beat, "token": self.holder.token}
                    cluster.append_lock(json.dumps(record).encode(), timeout=2 * interval)
                except ReconcilerError:
                    continue  # the lease runs out unless a later heartbeat gets through
                self.renewed = sent

    def check(self, before: str, confirm: bool = False) -> None:
        """Raise LockHeld when the lease lapsed or the lock was broken; `confirm` reads the
        lock's token now (one request) rather than trust the last heartbeat's look."""
        if confirm and self.lost is None and self.cluster.lock_token() != self.holder.token:
            self.lost = "the lock is no longer this apply's (it was broken)"
        late = time.monotonic() - self.renewed
        why = self.lost or (
            f"no heartbeat could be written for {late:.0f} s (the lease is {self.seconds:.0f} s)"
            if late > self.seconds
            else None
        )
        if why is not None:
            raise LockHeld(
                f"this apply lost the lock on cluster '{self.cluster.name}': {why}, so another "
                f"apply may have taken it; stopped before {before}. Re-run apply: it resumes "
                "from what the cluster shows."
            )

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.seconds)


def release(cluster: LockStore, holder: Holder, progress: Callable[[str], None]) -> None:
    """Delete the lock if it is still ours. A failure (a broker or the controller lost) is a
    warning, not an error: the apply's report matters more, and the lock left behind is broken
    by the next apply once this process is gone (or by --force-unlock)."""
    try:
        cluster.release_lock(holder.token)
    except ReconcilerError as exc:
        progress(
            f"warning: the apply lock was not released ({exc}); the next apply on this machine "
            "breaks it once this process has ended, elsewhere use --force-unlock"
        )
