"""The pinned cluster id: the brokers' own id, checked before anything else is asked of them.

reconciler.yaml may pin a cluster's id (`cluster_id:`); a `bootstrap` is only a hostname, often
from an environment variable, and may point anywhere. A `Cluster` whose connection is pinned
sends DescribeCluster before any other request and compares the id it reports; a mismatch is
`WrongCluster`, raised before anything further is read or sent. A read made beside the first
one (the reassignments, on clients of their own) waits for that answer before its request.
"""

from __future__ import annotations

import threading

from reconciler.cluster.adapter.connect import Connection
from reconciler.errors import ClusterError, WrongCluster


class Identity:
    """What the brokers reported as the cluster id, once: shared by a Cluster and the Clusters
    that read beside it, so that the id is asked once and every request waits for its check."""

    def __init__(self) -> None:
        self._settled = threading.Event()
        self._refusal: ClusterError | None = None
        self.reported: str | None = None

    @property
    def settled(self) -> bool:
        return self._settled.is_set()

    def settle(self, connection: Connection, reported: str | None) -> None:
        """Record the id the brokers reported; WrongCluster if the connection pins another."""
        self.reported = reported
        self._refusal = None  # a read that failed before (abandon) is answered now
        if connection.cluster_id is not None and reported != connection.cluster_id:
            self._refusal = WrongCluster(mismatch(connection, reported))
        self._settled.set()
        if self._refusal is not None:
            raise self._refusal

    def abandon(self, why: ClusterError) -> None:
        """The id could not be read: whatever waits for it fails with the same error."""
        if not self._settled.is_set():
            self._refusal = why
            self._settled.set()

    def wait(self, seconds: float) -> None:
        """Block until the id is checked (by the Cluster that reads it); raise its refusal."""
        if not self._settled.wait(seconds):
            raise ClusterError("the cluster id was not checked in time; nothing was read")
        if self._refusal is not None:
            raise self._refusal


def mismatch(connection: Connection, reported: str | None) -> str:
    """The one sentence for a cluster that is not the pinned one."""
    shown = f"cluster id {reported}" if reported is not None else "no cluster id"
    return (
        f"cluster '{connection.name}' pins cluster_id {connection.cluster_id} in "
        f"reconciler.yaml, but the brokers at {connection.bootstrap} report {shown}: point its "
        "bootstrap at the cluster the specs name (or, if that cluster was rebuilt, correct "
        "cluster_id); nothing was read or changed"
    )
