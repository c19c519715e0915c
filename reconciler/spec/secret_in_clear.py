"""R510: a password or token that would travel unencrypted over the network.

Over `security.protocol: SASL_PLAINTEXT` the SASL login is sent in clear: PLAIN sends the
password itself, OAUTHBEARER a bearer token anyone who sees it can use, SCRAM an exchange an
eavesdropper can attack offline to find the password. That is what a cluster on the same
machine may do (`reconciler local up --security sasl_scram`), and a mistake anywhere else.

Warned when a cluster's expanded settings use SASL_PLAINTEXT (the `security.protocol`
property, or a bootstrap entry's `SASL_PLAINTEXT://` prefix) with any mechanism but GSSAPI
(Kerberos sends tickets, never the password; it is also librdkafka's default mechanism), and a
bootstrap server on SASL_PLAINTEXT is not a loopback address: 127.0.0.0/8, ::1 (also as
::ffff:127.x.x.x) or the name localhost. The brokers the cluster advertises are known only by
asking it; the bootstrap stands for them here.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes

_ENTRY = re.compile(r"(?:(?P<protocol>[A-Za-z_]+)://)?(?P<host>\[[^\]]*\]|[^:\[\]]+):[0-9]+")
_CLEAR = "SASL_PLAINTEXT"
_WHAT_CROSSES = {
    "PLAIN": "the password itself",
    "OAUTHBEARER": "a bearer token anyone who reads it can use",
}


def secret_in_clear(
    cluster: str, bootstrap: str, client: Mapping[str, str], at: Location
) -> Diagnostic | None:
    """R510 when `cluster`'s SASL login would cross the network unencrypted (`bootstrap` and
    `client` expanded; `at` where to fix it: security.protocol's value)."""
    mechanism = client.get("sasl.mechanism", client.get("sasl.mechanisms", "")).strip().upper()
    if mechanism in ("GSSAPI", ""):  # "": not set, or its variable is (R502 says so)
        return None
    default = client.get("security.protocol", "PLAINTEXT").strip().upper()
    remote = []
    for item in bootstrap.split(","):
        entry = _ENTRY.fullmatch(item.strip())
        if entry is None:  # not host:port: R507 says so
            return None
        protocol = (entry.group("protocol") or default).upper()
        if protocol == _CLEAR and not is_loopback(entry.group("host")):
            remote.append(item.strip())
    if not remote:
        return None
    crosses = _WHAT_CROSSES.get(mechanism, "its credentials")
    if mechanism.startswith("SCRAM-"):
        crosses = "a SCRAM exchange an eavesdropper can attack offline for the password"
    return r_codes.SECRET_IN_CLEAR(
        f"cluster {cluster} logs in with SASL {mechanism} over {_CLEAR} to "
        f"{', '.join(remote)}, not a loopback address: {crosses} crosses the network "
        f"unencrypted; set security.protocol: SASL_SSL (the brokers' SASL_SSL listener), "
        f"{_CLEAR} is for a cluster on this machine only",
        at,
    )


def is_loopback(host: str) -> bool:
    """Whether a bootstrap host (an IPv6 address in brackets) is this machine."""
    name = host.strip("[]").split("%")[0].rstrip(".")
    if name.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
