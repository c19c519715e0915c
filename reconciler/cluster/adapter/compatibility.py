"""The oldest Kafka reconciler supports, and one sentence for a broker older than that.

A client learns which requests a broker knows from its ApiVersions answer (both client
libraries ask it on every connection). When a request reconciler needs is not in that answer,
the failure names the request (in the client's message only: failures.py reads it); this turns
it into one sentence naming the request, the KIP that added it and the Kafka release that
shipped it, instead of a hint about reachability.
"""

from __future__ import annotations

from typing import Protocol

from reconciler.cluster.adapter.failures import unsupported


class Where(Protocol):
    """A connection as far as the sentence names it (connect.py imports this module)."""

    @property
    def name(self) -> str: ...

    @property
    def bootstrap(self) -> str: ...


MINIMUM = "2.4"  # ListPartitionReassignments (KIP-455): replication-factor changes and reads
# Requests reconciler sends that older brokers lack: name -> (KIP, Kafka release that added it).
INTRODUCED = {
    "ListPartitionReassignments": ("KIP-455", "2.4"),
    "AlterPartitionReassignments": ("KIP-455", "2.4"),
    "IncrementalAlterConfigs": ("KIP-339", "2.3"),
    "DescribeCluster": ("KIP-700", "2.8"),
}


def too_old(connection: Where, exc: BaseException) -> str | None:
    """The sentence for a request the cluster's brokers do not know, else None."""
    found = unsupported(exc)
    if found is None:
        return None
    request = found.request
    where = f"cluster '{connection.name}' at {connection.bootstrap}"
    if found.versions is not None:  # known, but no shared version
        client, broker = found.versions
        return (
            f"{where} and reconciler's Kafka client share no version of the {request} request "
            f"(the brokers speak {broker}, the client {client}): upgrade reconciler, or report "
            "it with the brokers' Kafka version."
        )
    kip, since = INTRODUCED.get(request, (None, None))
    added = f" ({kip}, added in Kafka {since})" if kip else ""
    return (
        f"{where} runs a Kafka too old for reconciler: its brokers do not know the {request} "
        f"request{added}; upgrade them to Kafka {MINIMUM} or newer, the oldest reconciler "
        "supports."
    )
