"""Every connection a command makes to a cluster: the one module of the workflow that imports
the Kafka adapter (import-linter's `adapter` contract); the use cases get an `adapter.Cluster`
from `connect` and speak to it through cluster/ports.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.cluster.snapshot import load_snapshot
from reconciler.cluster.state import ClusterState
from reconciler.errors import ConfigError
from reconciler.printable import printable
from reconciler.spec.model import ClusterConfig

# Commands that never talk to Kafka (validate, compile) must not pay for loading the Kafka
# clients (~0.5 s): the adapter is imported where it is used.
if TYPE_CHECKING:
    from reconciler.cluster import adapter


def connection(cluster: ClusterConfig) -> adapter.Connection:
    from reconciler.cluster import adapter, wait_limit

    # A load for another command's cluster leaves this one's settings unread and empty
    assert cluster.settings_read, f"cluster {cluster.name}'s settings were not read"

    return adapter.Connection(
        cluster.name,
        cluster.bootstrap,
        cluster.client,
        wait_limit.seconds(),
        cluster_id=cluster.cluster_id,
    )


def connect(cluster: ClusterConfig) -> adapter.Cluster:
    """A client of `cluster` (a context manager: `with connect(c) as kafka:`)."""
    from reconciler.cluster import adapter

    return adapter.Cluster(connection(cluster))


def read_state(cluster: ClusterConfig, snapshot: Path | None = None) -> ClusterState:
    """The cluster's state: from the snapshot file if given, else live in batched round trips,
    with what other applies left there (a held lock, recorded throttles: apply.leftovers)."""
    if snapshot is None:
        from reconciler.apply.check import leftovers

        with connect(cluster) as kafka:
            return leftovers.observe(kafka, kafka.read_state())
    name, state = load_snapshot(snapshot)
    if name != cluster.name:
        raise ConfigError(
            f"{snapshot} is a snapshot of cluster '{printable(name)}', not '{cluster.name}'; "
            "pass the matching --cluster or snapshot file"
        )
    if cluster.cluster_id is not None and state.cluster_id != cluster.cluster_id:
        # the file's own words: its control characters shown as escapes, never a line of ours
        shown = printable(state.cluster_id) if state.cluster_id is not None else "no cluster id"
        raise ConfigError(
            f"{snapshot} is a snapshot of cluster id {shown}, but reconciler.yaml pins "
            f"cluster_id {cluster.cluster_id} for '{cluster.name}'; pass a snapshot of that "
            "cluster (or correct cluster_id if the cluster was rebuilt)"
        )
    return state


def reported_cluster(
    name: str, bootstrap: str, timeout: float = 10.0
) -> tuple[str | None, int | None]:
    """What init writes from the cluster at `bootstrap` (no client settings): the id it
    reports, and the replication factor its topics have now (`current_replication_factor`),
    each None when the cluster does not answer within `timeout` seconds or refuses the read."""
    from reconciler.cluster import adapter
    from reconciler.errors import ClusterError

    connection = adapter.Connection(name, bootstrap, (), timeout)
    try:
        with adapter.Cluster(connection) as kafka:
            try:
                state = kafka.read_state()  # it carries the cluster id: one read for both
            except ClusterError:  # e.g. not authorized to describe the topics' configs
                return kafka.describe().cluster_id, None
    except ClusterError:
        return None, None
    return state.cluster_id, current_replication_factor(state)


def current_replication_factor(state: ClusterState) -> int | None:
    """The floor init writes as policy.min_replication_factor: the smallest replication factor
    of the cluster's topics (Kafka's internal ones left out), else, with no topic yet, the
    brokers' default.replication.factor; None when neither is known."""
    factors = [t.replication_factor for t in state.topics.values() if not t.internal]
    if factors:
        return min(factors)
    default = state.broker_defaults.get("default.replication.factor", "")
    return int(default) if default.isdigit() and int(default) > 0 else None
