"""The ports a local cluster listens on are chosen where no outgoing connection can take them
between the choice and the JVM binding them: below the kernel's ephemeral range."""

from __future__ import annotations

import socket
from pathlib import Path

from reconciler.local.free_port import free_port


def test_ports_are_free_and_below_the_ephemeral_range() -> None:
    ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = {free_port() for _ in range(20)}
    assert all(10_000 <= port < ephemeral for port in ports), sorted(ports)
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))  # still free
