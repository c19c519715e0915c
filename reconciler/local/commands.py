"""`reconciler local up|status|down|fetch`: a real Kafka cluster for the demo and for trials."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from reconciler.errors import ClusterError, LocalClusterError
from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.distribution import Distribution, ensure_distribution

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def default_overrides(brokers: int) -> dict[str, str]:
    """Broker defaults that differ from Kafka's built-in 1/1, so KIP-464 defaults are visible."""
    return {"num.partitions": "3", "default.replication.factor": "2" if brokers > 1 else "1"}


def _state_dir(repo: Path, explicit: Path | None) -> Path:
    if explicit:
        return explicit.resolve()
    if env := os.environ.get("RECONCILER_LOCAL_DIR"):
        return Path(env).resolve()
    return (repo / ".reconciler" / "local").resolve()


def _progress(message: str) -> None:
    click.echo(click.style(f"  {message}", dim=True), err=True)


def fetch_distribution() -> Distribution:
    dist = ensure_distribution()
    if dist.fetched_seconds is not None:
        click.echo(
            f"Kafka {dist.version}: fetched {dist.jars} jars from Maven Central in "
            f"{dist.fetched_seconds:.1f} s into {dist.libs}",
            err=True,
        )
    else:
        click.echo(f"Kafka {dist.version}: {dist.jars} jars cached in {dist.libs}", err=True)
    return dist


def _print_status(cl: local_state.LocalCluster) -> None:
    click.echo(f"bootstrap: {cl.bootstrap}")
    try:
        desc = cl.describe(timeout=5)
    except ClusterError as exc:
        raise LocalClusterError(
            f"the local cluster in {cl.state_dir} has live processes but does not answer: {exc}"
        ) from exc
    # KRaft's DescribeCluster names a random broker as "controller" for old clients; the real
    # controller is the sole quorum voter of our layout.
    voter = next(n.id for n in cl.nodes if n.controller)
    click.echo(
        f"kafka: {cl.kafka_version}  cluster id: {desc.cluster_id}  "
        f"controller: node {voter} (KRaft voter)"
    )
    pids = {n.id: n.pid for n in cl.nodes}
    roles = {n.id: "broker,controller" if n.controller else "broker" for n in cl.nodes}
    click.echo("brokers:")
    for broker in desc.brokers:
        click.echo(
            f"  {broker.id}  {broker.host}:{broker.port}  rack={broker.rack or '-'}  "
            f"roles={roles.get(broker.id, '?')}  pid={pids.get(broker.id) or '-'}"
        )


@click.group(context_settings=CONTEXT)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the cluster's configs, data and logs live [default: REPO/.reconciler/local, "
    "or $RECONCILER_LOCAL_DIR].",
)
@click.pass_context
def local(ctx: click.Context, state_dir: Path | None) -> None:
    """A real Apache Kafka (KRaft) cluster on 127.0.0.1, from Maven Central jars.

    Needs Java 17+ and Maven. Jars are cached in $RECONCILER_CACHE (default
    ~/.cache/reconciler), never in the repository.
    """
    repo = ctx.obj.repo if ctx.obj is not None else Path(".")
    ctx.obj = _state_dir(repo, state_dir)


@local.command(context_settings=CONTEXT)
@click.option(
    "--brokers",
    type=click.IntRange(1, 9),
    default=3,
    show_default=True,
    help="Number of brokers (racks rack-a, rack-b, ... when more than one).",
)
@click.option(
    "--timeout",
    type=float,
    default=120.0,
    show_default=True,
    help="Seconds to wait for every broker to register.",
)
@click.pass_obj
def up(state_dir: Path, brokers: int, timeout: float) -> None:
    """Fetch Kafka if needed, format storage, start the brokers, wait until all are registered."""
    existing = local_state.load_state(state_dir)
    if existing and existing.running_pids():
        click.echo(f"already running from {state_dir}", err=True)
        _print_status(existing)
        return
    dist = fetch_distribution()
    started = time.monotonic()
    cl = local_cluster.start(
        state_dir, dist, brokers=brokers, overrides=default_overrides(brokers),
        timeout=timeout, progress=_progress,
    )  # fmt: skip
    click.echo(f"started {brokers} broker(s) in {time.monotonic() - started:.1f} s", err=True)
    _print_status(cl)


@local.command(context_settings=CONTEXT)
@click.pass_obj
def status(state_dir: Path) -> None:
    """Show bootstrap servers, brokers, racks and controller (exit 1 if not running)."""
    cl = local_state.load_state(state_dir)
    if cl is None or not cl.running_pids():
        raise LocalClusterError(
            f"no local cluster is running from {state_dir}; start one with `reconciler local up`."
        )
    _print_status(cl)


@local.command(context_settings=CONTEXT)
@click.option(
    "--grace",
    type=float,
    default=30.0,
    show_default=True,
    help="Seconds each node gets to shut down before SIGKILL.",
)
@click.pass_obj
def down(state_dir: Path, grace: float) -> None:
    """Stop every Kafka process started from the state directory (brokers, then controller)."""
    cl = local_state.load_state(state_dir)
    if cl is None or not cl.running_pids():
        click.echo(f"no local cluster is running from {state_dir}", err=True)
        return
    report = local_cluster.stop(cl, grace=grace)
    killed = f", killed {list(report.killed)} after {grace:.0f} s" if report.killed else ""
    click.echo(f"stopped node(s) {list(report.stopped)}{killed}")


@local.command(context_settings=CONTEXT)
def fetch() -> None:
    """Download the pinned Kafka's jars from Maven Central into the cache (no broker started)."""
    fetch_distribution()
