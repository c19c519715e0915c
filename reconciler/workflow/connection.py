"""Every connection a command makes to a cluster: the one module of the workflow that imports
the Kafka adapter (import-linter's `adapter` contract); the use cases get an `adapter.Cluster`
from `connect` and speak to it through cluster/ports.py."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.cluster.snapshot import load_snapshot
from reconciler.cluster.state import ClusterState
from reconciler.errors import ConfigError
from reconciler.printable import printable
from reconciler.spec.model import ClusterConfig, DesiredState
from reconciler.spec.repo_config import load_repo_config, select_cluster
from reconciler.spec.settings_scope import Settings

# Commands that never talk to Kafka (validate, compile) must not pay for loading the Kafka
# clients (~0.5 s): the adapter is imported where it is used.
if TYPE_CHECKING:
    from reconciler.cluster import adapter
    from reconciler.planning.plan import MadeBy


def connection(
    cluster: ClusterConfig, read_acls: bool = False, declared: bool = True
) -> adapter.Connection:
    """`read_acls`: its state includes the ACLs (a spec declaring access: `help access`);
    `declared`: and the quotas and users reconciler.yaml declares (`snapshot`, which reads
    every part itself, says False)."""
    from reconciler.cluster import adapter, wait_limit

    # A load for another command's cluster leaves this one's settings unread and empty
    assert cluster.settings_read, f"cluster {cluster.name}'s settings were not read"

    return adapter.Connection(
        cluster.name,
        cluster.bootstrap,
        cluster.client,
        wait_limit.seconds(),
        cluster_id=cluster.cluster_id,
        read_acls=read_acls,
        read_quotas=declared and cluster.quotas is not None,
        read_users=declared and cluster.users is not None,
    )


def made_by(clients: bool = False) -> MadeBy:
    """This reconciler and its client libraries, as a saved plan records them: with `clients`
    (a live plan; apply, which loads them anyway), librdkafka's version as loaded; a plan from
    a snapshot talks to no cluster and loads no client (their import costs ~0.5 s), so it
    records the installed distributions only. Said by the caller, not inferred from what
    happens to be imported."""
    from importlib.metadata import version

    from reconciler import __version__
    from reconciler.planning.plan import MadeBy

    if clients:
        from reconciler.cluster.adapter.boundary import library_versions

        return MadeBy(__version__, library_versions())
    names = ("confluent-kafka", "kafka-python")
    return MadeBy(__version__, tuple((name, version(name)) for name in names))


def connect(
    cluster: ClusterConfig,
    desired: DesiredState | None = None,
    acls: bool = False,
    declared: bool = True,
) -> adapter.Cluster:
    """A client of `cluster` (a context manager: `with connect(c) as kafka:`) whose state
    reads include the ACLs when `acls`, or when the `desired` state declares access (and
    `declared`: `connection`)."""
    from reconciler.cluster import adapter
    from reconciler.planning.acl_derivation import reads_acls

    acls = acls or (desired is not None and reads_acls(desired))
    return adapter.Cluster(connection(cluster, acls, declared))


def read_state(
    cluster: ClusterConfig, snapshot: Path | None = None, acls: bool = False
) -> ClusterState:
    """The cluster's state: from the snapshot file if given, else live in batched round trips,
    with what other applies left there (a held lock, recorded throttles: apply.leftovers)."""
    if snapshot is None:
        from reconciler.apply import leftovers

        with connect(cluster, acls=acls) as kafka:
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


def snapshot_state(cluster: ClusterConfig) -> ClusterState:
    """What `reconciler snapshot` keeps: the state with every access part the cluster can
    answer, whatever reconciler.yaml and the specs declare (`Cluster.read_snapshot`); no
    leftovers of other applies (a snapshot keeps none, so they are not read)."""
    # its own reads of the access parts (`declared` False), so none is read twice or fatally
    with connect(cluster, declared=False) as kafka:
        return kafka.read_snapshot()


@dataclass(frozen=True, slots=True)
class Reported:
    """What init learnt from the cluster: its id and the replication factor its topics have
    now (each None when unknown), and why it learnt nothing (`refused`: the cluster's own
    sentence, a refused login among them), None when it answered."""

    cluster_id: str | None
    replication_factor: int | None
    refused: str | None = None


def init_client(root: Path, cluster: str) -> tuple[tuple[str, str], ...]:
    """The `client:` settings of the reconciler.yaml init is about to write (in `root`, a
    scratch folder), expanded and checked exactly as plan's are (`${VAR}` from the
    environment, R509 literal secrets, logins no client can make)."""
    from reconciler.cluster import client_settings
    from reconciler.spec.r_codes import LITERAL_SECRET

    config, found = load_repo_config(root, os.environ, Settings.of(cluster))
    # a literal secret, only a warning in a repository that has one, is refused before init
    # writes it into a file made to be committed
    problems = [d.message for d in found if d.is_error or d.code == LITERAL_SECRET.code]
    if config is None or problems:
        raise ConfigError(f"init --client: {'; '.join(problems)}; nothing was written")
    chosen = select_cluster(config, cluster)
    client_settings.check(cluster, dict(chosen.client))
    return chosen.client


# How long init waits for a cluster when `--timeout` is not given: init also works before the
# cluster is reachable from here (it then writes no cluster_id), so it waits less than plan's 30 s
INIT_WAIT = 10.0


def reported_cluster(
    name: str, bootstrap: str, client: tuple[tuple[str, str], ...] = ()
) -> Reported:
    """What init writes from the cluster at `bootstrap`, reached with `client` settings (as
    plan would): see `Reported`. A cluster that does not answer within `--timeout` seconds
    (INIT_WAIT without it), or refuses the login or the read, gives what it gave and says why."""
    from reconciler.cluster import adapter, wait_limit
    from reconciler.errors import ClusterError

    timeout = wait_limit.seconds() or INIT_WAIT
    connection = adapter.Connection(name, bootstrap, client, timeout)
    try:
        with adapter.Cluster(connection) as kafka:
            try:
                state = kafka.read_state()  # it carries the cluster id: one read for both
            except ClusterError as exc:  # e.g. not authorized to describe the topics' configs
                return Reported(kafka.describe().cluster_id, None, str(exc))
    except ClusterError as exc:
        return Reported(None, None, str(exc))
    return Reported(state.cluster_id, current_replication_factor(state))


def current_replication_factor(state: ClusterState) -> int | None:
    """The floor init writes as policy.min_replication_factor: the smallest replication factor
    of the cluster's topics (Kafka's internal ones left out), else, with no topic yet, the
    brokers' default.replication.factor; None when neither is known."""
    factors = [t.replication_factor for t in state.topics.values() if not t.internal]
    if factors:
        return min(factors)
    default = state.broker_defaults.get("default.replication.factor", "")
    return int(default) if default.isdigit() and int(default) > 0 else None
