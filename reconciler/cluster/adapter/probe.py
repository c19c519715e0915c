"""Which brokers do not answer: named in the error when a read fails for want of them.

Asked only after a request failed for a reason a dead or frozen broker explains (a refused
connection, a timeout): every broker known (from DescribeCluster if it answered, else the
bootstrap servers) gets one ApiVersions request, in parallel, on a socket of its own, and each
that refuses, closes or stays silent for the probe's short timeout is named with its id and
address. The client libraries cannot say which broker they were waiting for. ApiVersions is
the one request a broker answers before authentication, so no `client:` credentials are sent;
on SSL listeners the TLS handshake is made without verifying (only liveness is asked).
"""

from __future__ import annotations

import socket
import ssl
import struct
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from reconciler.cluster.adapter import client_security
from reconciler.cluster.adapter.connect import Connection

# ApiVersions v0 with request header v1: api key 18, version 0, correlation id 1, client id.
_CLIENT_ID = b"reconciler-probe"
_BODY = struct.pack(">hhih", 18, 0, 1, len(_CLIENT_ID)) + _CLIENT_ID
_REQUEST = struct.pack(">i", len(_BODY)) + _BODY


@dataclass(frozen=True, slots=True)
class Address:
    id: int | None  # None: a bootstrap server the cluster did not describe
    host: str
    port: int

    def __str__(self) -> str:
        where = f"{self.host}:{self.port}"
        return f"broker {self.id} at {where}" if self.id is not None else f"broker at {where}"


def probe_timeout(connection: Connection) -> float:
    """Seconds the probe may take: a quarter of the request timeout, at most 2 s."""
    return min(2.0, connection.seconds / 4)


def bootstrap_addresses(connection: Connection) -> list[Address]:
    found: list[Address] = []
    for server in connection.bootstrap.split(","):
        host, _, port = server.strip().rpartition("://")[2].rpartition(":")
        if host and port.isdigit():
            found.append(Address(None, host.strip("[]"), int(port)))
    return found


def unanswered(connection: Connection, known: Sequence[Address]) -> list[tuple[Address, str]]:
    """Each known broker that does not answer, with why not; the bootstrap servers the cluster
    did not describe are asked too."""
    addresses = list(known)
    seen = {(a.host, a.port) for a in addresses}
    addresses += [a for a in bootstrap_addresses(connection) if (a.host, a.port) not in seen]
    timeout = probe_timeout(connection)
    client = dict(connection.client)
    tls = (  # the client certificate included: a broker requiring one answers no other
        client_security.ssl_context(connection.name, client, verify=False)
        if client.get("security.protocol", "").upper() in {"SSL", "SASL_SSL"}
        else None
    )
    if not addresses:
        return []
    with ThreadPoolExecutor(max_workers=min(16, len(addresses))) as pool:
        answers = list(pool.map(lambda a: _ask(a, timeout, tls), addresses))
    return [(a, why) for a, why in zip(addresses, answers, strict=True) if why is not None]


def silent(connection: Connection, known: Sequence[Address]) -> list[str]:
    """'broker 2 at host:port (connection refused)' for each known broker that does not answer,
    the bootstrap servers the cluster did not describe included."""
    return [f"{address} ({why})" for address, why in unanswered(connection, known)]


def _ask(address: Address, timeout: float, tls: ssl.SSLContext | None) -> str | None:
    """None if the broker answers an ApiVersions request within `timeout`, else why not."""
    try:
        with socket.create_connection((address.host, address.port), timeout=timeout) as raw:
            sock: socket.socket = raw
            if tls is not None:
                sock = tls.wrap_socket(raw, server_hostname=address.host)
            sock.sendall(_REQUEST)
            if not sock.recv(4):
                return "it closed the connection"
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as exc:
        return exc.strerror or type(exc).__name__
