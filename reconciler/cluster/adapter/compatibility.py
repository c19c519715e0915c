"""The oldest Kafka reconciler supports, and one sentence for a broker older than that.

A client learns which requests a broker knows from its ApiVersions answer (both client
libraries ask it on every connection). When a request reconciler needs is not in that answer,
the failure names the request; this turns it into one sentence naming the request, the KIP that
added it and the Kafka release that shipped it, instead of a hint about reachability.
"""

from __future__ import annotations

import re
from typing import Protocol

from confluent_kafka import KafkaError

from reconciler.cluster.adapter.failures import code_of


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
UNSUPPORTED_VERSION = 35  # the broker's own code; kafka-python's IncompatibleBrokerVersion too
# kafka-python: "... does not support the 'ListPartitionReassignmentsRequest' Kafka protocol."
# librdkafka: "IncrementalAlterConfigs (API 44) not supported by broker, requires ..."
# kafka-python: "No version of the 'X' Kafka protocol is supported by both the client [a-b]
# and broker [c-d]."
_NO_COMMON = re.compile(r"client (?P<client>\[[^\]]*\]) and broker (?P<broker>\[[^\]]*\])")
_NAMED = re.compile(r"'(?P<a>\w+?)(?:Request)?' Kafka protocol|(?P<b>[A-Z]\w+) \(API \d+\)")


def _unsupported(exc: BaseException) -> bool:
    return code_of(exc) in (KafkaError._UNSUPPORTED_FEATURE, UNSUPPORTED_VERSION)


def too_old(connection: Where, exc: BaseException) -> str | None:
    """The sentence for a request the cluster's brokers do not know, else None."""
    if not _unsupported(exc):
        return None
    found = _NAMED.search(str(exc))
    if found is None:
        return None
    request = found.group("a") or found.group("b")
    where = f"cluster '{connection.name}' at {connection.bootstrap}"
    if (versions := _NO_COMMON.search(str(exc))) is not None:  # known, but no shared version
        return (
            f"{where} and reconciler's Kafka client share no version of the {request} request "
            f"(the brokers speak {versions.group('broker')}, the client "
            f"{versions.group('client')}): upgrade reconciler, or report it with the brokers' "
            "Kafka version."
        )
    kip, since = INTRODUCED.get(request, (None, None))
    added = f" ({kip}, added in Kafka {since})" if kip else ""
    return (
        f"{where} runs a Kafka too old for reconciler: its brokers do not know the {request} "
        f"request{added}; upgrade them to Kafka {MINIMUM} or newer, the oldest reconciler "
        "supports."
    )
