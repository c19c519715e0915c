"""The Kafka release a cluster's ApiVersions answer shows, named when a client library fails.

Kafka never sends its release number: a client learns which requests (and which versions of
them) a broker speaks from its ApiVersions answer, and kafka-python infers the release from that
answer (`infer_broker_version_from_api_versions`). reconciler asks kafka-python rather than
keeping a table of its own. Where the kafka-python client whose call failed is at hand, its own
inference is read; otherwise one ApiVersions v0 request (as probe.py sends it: no credentials,
the one request a broker answers before authentication) goes to the bootstrap servers in turn,
within the probe's short timeout. This runs only while another failure is being described, so
anything that goes wrong here is "unknown", never a second failure.
"""

from __future__ import annotations

import socket
import ssl
import struct
from typing import Any, Protocol

from reconciler.errors import CannotAnswer


class Where(Protocol):
    """A connection as far as asking its brokers needs it (connect.py imports the boundary,
    which imports this module: no import back)."""

    @property
    def bootstrap(self) -> str: ...

    @property
    def client(self) -> tuple[tuple[str, str], ...]: ...

    @property
    def seconds(self) -> float: ...


# ApiVersions v0 with request header v1: api key 18, version 0, correlation id 7, client id.
_CLIENT_ID = b"reconciler-version"
_BODY = struct.pack(">hhih", 18, 0, 7, len(_CLIENT_ID)) + _CLIENT_ID
_REQUEST = struct.pack(">i", len(_BODY)) + _BODY


def of_client(admin: Any) -> str | None:
    """The release a kafka-python client inferred from its broker's ApiVersions answer."""
    try:
        inferred = admin._manager.broker_version_data
        return str(inferred.broker_version_str) if inferred is not None else None
    except Exception:  # not kafka-python's, or not connected yet: unknown
        return None


def asked(connection: Where) -> str | None:
    """The release the first bootstrap server that answers ApiVersions runs, as kafka-python
    infers it; None when none answers in time or the answer cannot be read. Each server gets
    the probe's timeout (probe.py): a quarter of the request timeout, at most 2 s."""
    tls = dict(connection.client).get("security.protocol", "").upper() in {"SSL", "SASL_SSL"}
    timeout = min(2.0, connection.seconds / 4)
    for server in connection.bootstrap.split(","):
        host, _, port = server.strip().rpartition("://")[2].rpartition(":")
        try:
            versions = _api_versions(host.strip("[]"), int(port), timeout, tls)
            from kafka.protocol.broker_version_data import infer_broker_version_from_api_versions

            return ".".join(map(str, infer_broker_version_from_api_versions(versions)))
        except Exception:  # unreachable, or an answer this cannot read: try the next
            continue
    return None


def _api_versions(host: str, port: int, timeout: float, tls: bool) -> dict[int, tuple[int, int]]:
    """api key -> (min, max) version, from one ApiVersions v0 answer."""
    with socket.create_connection((host, port), timeout=timeout) as raw:
        sock: socket.socket = raw
        if tls:  # only the versions are asked: nothing is sent that needs the peer verified
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            sock = context.wrap_socket(raw, server_hostname=host)
        sock.sendall(_REQUEST)
        (size,) = struct.unpack(">i", _exactly(sock, 4))
        if not 10 <= size <= 1 << 20:  # not a Kafka answer
            raise ValueError(f"an answer of {size} bytes")
        answer = _exactly(sock, size)
    # correlation id, error code, then an array of (api key, min version, max version)
    _, error, count = struct.unpack_from(">ihi", answer)
    if error != 0:
        raise ValueError(f"ApiVersions answered with error {error}")
    return {
        key: (low, high)
        for key, low, high in (struct.unpack_from(">hhh", answer, 10 + 6 * i) for i in range(count))
    }


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data


class Named(Where, Protocol):
    """A connection whose name a sentence says."""

    @property
    def name(self) -> str: ...


def section_too_old(connection: Named, need: str, section: str, meanwhile: str) -> CannotAnswer:
    """The error for a reconciler.yaml section (`quotas:`, `users:`) the cluster's brokers
    are too old for: `need` says what needs which release and requests, `meanwhile` the tool
    to use until they are upgraded. Its release is asked (one ApiVersions)."""
    release = asked(connection)
    runs = f"runs Kafka {release}" if release else "does not know the requests"
    return CannotAnswer(
        f"cluster '{connection.name}' at {connection.bootstrap} {runs}, but {need}, and "
        f"reconciler.yaml declares `{section}:` for it: upgrade the brokers, or remove "
        f"`{section}:` from this cluster ({meanwhile} meanwhile); nothing was changed",
        f"the cluster {runs}, but {need}",
    )
