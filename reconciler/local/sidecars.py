"""The processes a local cluster needs besides its brokers, started first and stopped last.

- ZooKeeper, for a Kafka older than 3.9 (versions.py): `QuorumPeerMain` from the same jars as
  the brokers (Kafka depends on it), standalone, on 127.0.0.1 only, its data in `<state>/zk/`;
- the OAuth token issuer of `--security oauth` (token_issuer.py), a Python process.

Each is tracked by pid in state.json like the brokers and trusted only while its command line
still names its config file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import LocalClusterError
from reconciler.local.processes import is_our_process


@dataclass(frozen=True, slots=True)
class Sidecar:
    """A process started before the brokers and stopped after them: ZooKeeper (Kafka before
    3.9) or the OAuth token issuer (`--security oauth`)."""

    name: str  # "zookeeper" | "token-issuer"
    port: int  # on 127.0.0.1
    config: str  # its config file: on its command line, so a reused pid is told apart
    pid: int | None = None

    def running(self) -> bool:
        return self.pid is not None and is_our_process(self.pid, Path(self.config))


ZOOKEEPER = "zookeeper"
TOKEN_ISSUER = "token-issuer"
ZK_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"


def zookeeper_config(directory: Path, port: int) -> Path:
    """A standalone ZooKeeper on 127.0.0.1:port (no admin server: it would take port 8080)."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "zookeeper.properties"
    config.write_text(
        f"dataDir={directory / 'data'}\n"
        f"clientPort={port}\n"
        "clientPortAddress=127.0.0.1\n"
        "maxClientCnxns=0\n"
        "tickTime=2000\n"
        "admin.enableServer=false\n"
        "4lw.commands.whitelist=srvr,ruok\n"
    )
    return config


def launch(
    sidecar: Sidecar,
    command: Sequence[str],
    log: Path,
    preexec: Callable[[], None] | None,
    timeout: float,
) -> Sidecar:
    """Start `command`, wait until it accepts connections on its port, return it with its pid.
    On failure it is stopped and the error quotes the end of its log."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            list(command),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=preexec,  # noqa: PLW1509  (no other thread runs while a cluster starts)
            cwd=log.parent,
        )
    started = Sidecar(sidecar.name, sidecar.port, sidecar.config, proc.pid)
    deadline = time.monotonic() + timeout
    while not _accepts(sidecar.port):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(started)
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
            raise LocalClusterError(
                f"the local cluster's {sidecar.name} did not start on 127.0.0.1:{sidecar.port}; "
                f"the end of {log}:\n{tail}"
            )
        time.sleep(0.1)
    return started


def _accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def stop(sidecar: Sidecar, grace: float = 10.0) -> Sidecar:
    """SIGTERM, SIGKILL after `grace` s; returns it without a pid."""
    if sidecar.pid and sidecar.running():
        with contextlib.suppress(ProcessLookupError):
            os.kill(sidecar.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while sidecar.running() and time.monotonic() < deadline:
            _reap(sidecar.pid)
            time.sleep(0.05)
        if sidecar.running():
            with contextlib.suppress(ProcessLookupError):
                os.kill(sidecar.pid, signal.SIGKILL)
        _reap(sidecar.pid, wait=True)
    return Sidecar(sidecar.name, sidecar.port, sidecar.config)


def _reap(pid: int, wait: bool = False) -> None:
    """Collect a child's exit status (no zombie); a process an earlier `up` started is not ours
    to wait for, so then wait until the kernel has removed it."""
    try:
        os.waitpid(pid, 0 if wait else os.WNOHANG)
    except ChildProcessError:
        deadline = time.monotonic() + (10 if wait else 0)
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
