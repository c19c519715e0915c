"""A port for a local cluster's listener (brokers, controller, ZooKeeper, the token issuer).

cluster.py and security.py both choose ports; this module is theirs, so neither imports the
other for it.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

# Ports are chosen below the kernel's ephemeral range: a port is free when chosen but bound by
# the JVM seconds later, and in between any outgoing connection on the machine could take a port
# of the ephemeral range as its local port (seen as "Address already in use" when many test
# clusters start at once). Below it, only another explicit bind can.
_LOWEST_PORT = 10_000


def _ephemeral_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def free_port() -> int:
    """A port free on 127.0.0.1 now, at random below the ephemeral range when there is room."""
    below = _ephemeral_start()
    for _ in range(100 if below - _LOWEST_PORT >= 1_000 else 0):
        port = random.randrange(_LOWEST_PORT, below)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken, or lingering from a stopped cluster
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
