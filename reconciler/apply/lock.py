"""The per-cluster apply lock: who holds it, taking it, breaking a crashed holder's.

The lock lives on the cluster (adapter/lock.py: a topic created atomically by the controller), so
two CI runners on different machines exclude each other. A holder left behind by a crashed
apply is broken automatically only when it is certain the holder is gone: same host and its
process no longer exists. Anywhere else, `--force-unlock` breaks it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from reconciler.cluster.adapter import LOCK_TOPIC, Cluster
from reconciler.errors import LockHeld


@dataclass(frozen=True, slots=True)
class Holder:
    user: str
    host: str
    pid: int
    since: str  # ISO 8601, UTC
    plan: str  # the plan's hash

    @staticmethod
    def me(user: str, plan: str) -> Holder:
        return Holder(
            user=user,
            host=socket.gethostname(),
            pid=os.getpid(),
            since=datetime.now(UTC).isoformat(timespec="seconds"),
            plan=plan,
        )

    def encode(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @staticmethod
    def decode(raw: bytes | None) -> Holder | None:
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            return Holder(
                str(data["user"]),
                str(data["host"]),
                int(data["pid"]),
                str(data["since"]),
                str(data["plan"]),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def __str__(self) -> str:
        return (
            f"{self.user} on {self.host} (pid {self.pid}) since {self.since}, plan {self.plan[:19]}"
        )


def _dead_here(holder: Holder) -> bool:
    """True only when the holder ran on this host and its process is gone."""
    if holder.host != socket.gethostname():
        return False
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def acquire(
    cluster: Cluster,
    me: Holder,
    force: bool,
    progress: Callable[[str], None],
    attempts: int = 10,
) -> Holder | None:
    """Take the lock; returns the holder whose lock was broken (None if there was none).

    Raises LockHeld naming the holder when it is held by a live (or unknown) apply.
    """
    broken: Holder | None = None
    for _ in range(attempts):
        if cluster.try_lock(me.encode()):
            return broken
        holder = Holder.decode(cluster.lock_holder())
        if holder is None and not force:
            raise LockHeld(
                f"another apply holds the lock on cluster '{cluster.name}' (topic "
                f"{LOCK_TOPIC}) but has not recorded who it is: it may have crashed "
                "right after taking it. If no apply is running, re-run with --force-unlock."
            )
        if holder is not None and not force and not _dead_here(holder):
            raise LockHeld(
                f"another apply is running on cluster '{cluster.name}': held by {holder}. "
                "Wait for it to finish; if it crashed, re-run with --force-unlock."
            )
        why = "--force-unlock" if force else "its process is gone"
        progress(f"breaking the lock of {holder or 'an unknown holder'} ({why})")
        broken = holder
        cluster.release_lock()
        time.sleep(0.5)
    raise LockHeld(
        f"could not take the lock on cluster '{cluster.name}': it was taken again each "
        "time it was broken; another apply is starting"
    )


def release(cluster: Cluster) -> None:
    cluster.release_lock()
