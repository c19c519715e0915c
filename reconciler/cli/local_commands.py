"""`reconciler local up|status|down|fetch`: a real Kafka cluster for the demo and for trials.

The commands only; the cluster they drive is reconciler/local/'s (imported when `local` is run:
cli/main.py).
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import click

from reconciler.cli.heartbeat import Heartbeat
from reconciler.cli.number_options import Seconds
from reconciler.cluster import wait_limit
from reconciler.errors import ClusterError, LocalClusterError
from reconciler.local import cluster as local_cluster
from reconciler.local import heap as local_heap
from reconciler.local import security as local_security
from reconciler.local import state as local_state
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution, ensure_distribution
from reconciler.local.state import state_dir_of
from reconciler.render.local_status import status_lines

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _progress(message: str) -> None:
    click.echo(click.style(f"  {message}", dim=True), err=True)


def fetch_distribution(version: str | None = None) -> Distribution:
    def fetching(version: str) -> None:
        click.echo(f"Kafka {version}: fetching its jars from Maven Central ...", err=True)

    with Heartbeat("fetching Kafka's jars from Maven Central", every=3.0):
        dist = ensure_distribution(version=version, fetching=fetching)
    if dist.fetched_seconds is not None:
        click.echo(
            f"Kafka {dist.version}: fetched {dist.jars} jars from Maven Central in "
            f"{dist.fetched_seconds:.1f} s into {dist.libs}",
            err=True,
        )
    else:
        click.echo(f"Kafka {dist.version}: {dist.jars} jars cached in {dist.libs}", err=True)
    return dist


def _print_status(cl: local_state.LocalCluster, fmt: str = "text") -> None:
    """Print what runs (text, or JSON: schemas/local-status.schema.json); raise (exit 1)
    naming every node that is down or not registered, after printing."""
    document, problem = _status(cl)
    if fmt == "json":
        click.echo(json.dumps(document, indent=2))
    else:
        for line in status_lines(document):
            click.echo(line)
    if problem is not None:
        raise problem


def _status(cl: local_state.LocalCluster) -> tuple[dict[str, Any], LocalClusterError | None]:
    """The cluster as `status` shows it, and the error to exit with (None: all running)."""
    down = set(local_cluster.down_nodes(cl))
    try:
        desc = cl.describe(timeout=wait_limit.seconds() or 5)  # --timeout, as every command
    except ClusterError as exc:
        if not down:
            raise LocalClusterError(
                f"the local cluster in {cl.state_dir} has live processes but does not answer: {exc}"
            ) from exc
        desc = None  # e.g. the controller is down: still say which nodes are
    # KRaft's DescribeCluster names a random broker as "controller" for old clients; the real
    # controller is the sole quorum voter of our layout. Under ZooKeeper it is the elected one.
    voter = next((n.id for n in cl.nodes if n.controller), None)
    zookeeper = cl.sidecar("zookeeper")
    if voter is not None:
        controller = {"node": voter, "kind": "kraft_voter", "zookeeper": None}
    else:
        elected = desc.controller_id if desc and desc.controller_id else None
        at = f"127.0.0.1:{zookeeper.port}" if zookeeper is not None else None
        controller = {"node": elected, "kind": "elected", "zookeeper": at}
    registered = {b.id: b for b in desc.brokers} if desc else {}
    nodes = []
    for node in cl.nodes:
        broker = registered.get(node.id)
        cause = None
        if node.id in down:
            health = "down"
            cause = local_heap.death_cause(cl.node_dir(node) / "kafka.log")
        else:
            health = "up" if broker is not None else "not_registered"
        nodes.append(
            {
                "id": node.id,
                "address": f"{broker.host}:{broker.port}" if broker else node.address,
                "rack": (broker.rack if broker else node.rack) or None,
                "roles": ["broker", "controller"] if node.controller else ["broker"],
                "pid": node.pid,
                "state": health,
                "died_of": cause,
            }
        )
    sidecars = [
        {"name": c.name, "address": f"127.0.0.1:{c.port}", "pid": c.pid, "running": c.running()}
        for c in cl.sidecars
    ]
    unregistered = {n.id for n in cl.nodes if n.id not in registered} - down
    problem = None
    if down or unregistered:
        problem = _degraded(cl, down, unregistered)
    elif stopped := [c.name for c in cl.sidecars if not c.running()]:
        problem = LocalClusterError(
            f"the local cluster in {cl.state_dir} lost its {' and '.join(stopped)}; run "
            "`reconciler local down` and `reconciler local up` to start it afresh."
        )
    document = {
        "format_version": 1,
        "state_dir": str(cl.state_dir),
        "running": problem is None,
        "bootstrap": cl.bootstrap,
        "kafka_version": cl.kafka_version,
        "cluster_id": desc.cluster_id if desc else cl.cluster_id,
        "controller": controller,
        "nodes": nodes,
        "sidecars": sidecars,
        "security": {
            "mode": cl.security,
            "description": local_security.describe_lines(
                cl.state_dir, cl.security, zookeeper=cl.metadata == "zookeeper"
            ),
        },
    }
    return document, problem


def _degraded(
    cl: local_state.LocalCluster, down: set[int], unregistered: set[int]
) -> LocalClusterError:
    """Finding 9: a cluster missing a node is not "running"; say which and what to do."""
    parts = []
    if down:
        parts.append(f"node(s) {sorted(down)} down")
    if unregistered:
        parts.append(f"node(s) {sorted(unregistered)} running but not registered")
    fix = (
        "start them with `reconciler local start-node N` or `reconciler local up`"
        if down
        else "see their kafka.log, or restart them with `reconciler local stop-node N` and "
        "`start-node N`"
    )
    died = local_heap.deaths(cl)  # nodes that died of an error their log names: that, the fix
    if died:
        fix = "; ".join(died)
    return LocalClusterError(
        f"the local cluster in {cl.state_dir} is degraded ({len(cl.nodes)} nodes): "
        f"{' and '.join(parts)}; {fix}."
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
    ctx.obj = state_dir_of(repo, state_dir)


# --timeout and --grace: a finite wait, at most an hour (nan, inf or more would never end)
_SECONDS = Seconds(0, 3600, "a finite wait of at most an hour")


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
    type=_SECONDS,
    default=120.0,
    show_default=True,
    help="Seconds to wait for every broker to register.",
)
@click.option(
    "--security",
    "security_mode",
    type=click.Choice(local_security.MODES),
    help="sasl_scram: SCRAM-SHA-512 listener with ACLs; tls: SSL listener with a CA made on "
    "the spot; oauth: OAUTHBEARER listener checking JWTs of a local token issuer (OIDC). "
    "Credentials go to STATE/security/ (mode 0600), never to the terminal. [default: none]",
)
@click.option(
    "--kafka-version",
    metavar="V",
    help="Any Apache Kafka release on Maven Central, e.g. 2.4.1 or 4.4.0: KRaft from 3.9, "
    "ZooKeeper mode below. [default: the pinned version, see `local fetch`]",
)
@click.option(
    "--heap",
    metavar="SIZE",
    help="Each node's JVM heap, e.g. 2g or 1536m [default: a quarter of the machine's memory "
    "shared by the nodes, 512m to 4g each].",
)
@click.pass_obj
def up(
    state_dir: Path,
    brokers: int,
    timeout: float,
    security_mode: str | None,
    kafka_version: str | None,
    heap: str | None,
) -> None:
    """Fetch Kafka if needed, format storage, start the brokers, wait until all are registered."""
    heap_mib = (
        local_heap.parse_heap(heap)
        if heap is not None
        else local_heap.default_mib(brokers, local_heap.machine_mib())
    )
    existing = local_state.load_state(state_dir)
    if existing and existing.running_pids():
        if security_mode is not None and security_mode != existing.security:
            raise LocalClusterError(
                f"the local cluster running from {state_dir} has --security "
                f"{existing.security}, not {security_mode}; run `reconciler local down` first "
                "to start one with other security."
            )
        if kafka_version is not None and kafka_version != existing.kafka_version:
            raise LocalClusterError(
                f"the local cluster running from {state_dir} runs Kafka "
                f"{existing.kafka_version}, not {kafka_version}; run `reconciler local down` "
                "first to start another version."
            )
        down = local_cluster.down_nodes(existing)
        if not down:
            click.echo(f"already running from {state_dir}", err=True)
            _print_status(existing)
            return
        # Finding 9: a degraded cluster is not "already running"; bring the missing nodes back.
        click.echo(
            f"the local cluster in {state_dir} is degraded ({len(existing.nodes)} nodes): "
            f"node(s) {list(down)} down; starting them again",
            err=True,
        )
        if heap is not None:  # the nodes started again get the heap asked for
            existing = dataclasses.replace(existing, heap_mib=heap_mib)
            local_state.save_state(existing)
        for node_id in down:
            existing = local_cluster.start_node(
                existing, node_id, timeout=timeout, progress=_progress
            )
        _print_status(existing)
        return
    dist = fetch_distribution(kafka_version)
    started = time.monotonic()
    cl = local_cluster.start(
        state_dir, dist, brokers=brokers, overrides=default_overrides(brokers),
        timeout=timeout, progress=_progress, security_mode=security_mode or "none",
        heap_mib=heap_mib,
    )  # fmt: skip
    click.echo(
        f"started {brokers} broker(s) with {heap_mib} MiB of heap each in "
        f"{time.monotonic() - started:.1f} s",
        err=True,
    )
    _print_status(cl)


@local.command(context_settings=CONTEXT)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text for people, json for scripts (schemas/local-status.schema.json).",
)
@click.pass_obj
def status(state_dir: Path, fmt: str) -> None:
    """Show bootstrap servers, brokers, racks and controller (exit 1 if not running, naming
    the error a node died of when its log says). With --format json the same, as one JSON
    document, printed also when a node is down (exit 1 then too)."""
    cl = local_state.load_state(state_dir)
    died = local_heap.deaths(cl) if cl is not None and not cl.running_pids() else []
    if died:
        raise LocalClusterError(f"no local cluster is running from {state_dir}: {'; '.join(died)}.")
    _print_status(_running(state_dir), fmt)


@local.command(context_settings=CONTEXT)
@click.option(
    "--grace",
    type=_SECONDS,
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
@click.option("--kafka-version", metavar="V", help="Another release [default: the pinned one].")
def fetch(kafka_version: str | None) -> None:
    """Download the pinned Kafka's jars from Maven Central into the cache (no broker started)."""
    fetch_distribution(kafka_version)


@local.command("stop-node", context_settings=CONTEXT)
@click.argument("node_id", metavar="N", type=int)
@click.option(
    "--grace",
    type=_SECONDS,
    default=30.0,
    show_default=True,
    help="Seconds the node gets to shut down before SIGKILL.",
)
@click.pass_obj
def stop_node(state_dir: Path, node_id: int, grace: float) -> None:
    """Stop node N only (for drills); `status` then names it down until `start-node N`."""
    cl = _running(state_dir)
    local_cluster.stop_node(cl, node_id, grace=grace)
    click.echo(f"stopped node {node_id}; `reconciler local start-node {node_id}` starts it again")


@local.command("start-node", context_settings=CONTEXT)
@click.argument("node_id", metavar="N", type=int)
@click.option(
    "--timeout",
    type=_SECONDS,
    default=120.0,
    show_default=True,
    help="Seconds to wait for the node to register.",
)
@click.pass_obj
def start_node(state_dir: Path, node_id: int, timeout: float) -> None:
    """Start node N again on its ports and data, and wait until it is registered."""
    cl = local_state.load_state(state_dir)
    if cl is None:
        raise LocalClusterError(
            f"there is no local cluster in {state_dir}; start one with `reconciler local up`."
        )
    local_cluster.start_node(cl, node_id, timeout=timeout, progress=_progress)
    click.echo(f"node {node_id} is running and registered")


def _running(state_dir: Path) -> local_state.LocalCluster:
    cl = local_state.load_state(state_dir)
    if cl is None or not cl.running_pids():
        raise LocalClusterError(
            f"no local cluster is running from {state_dir}; start one with `reconciler local up`."
        )
    return cl
