"""Start, inspect and stop a cluster of real Kafka JVMs on 127.0.0.1.

Layout (KRaft, Kafka 3.9+): node 1 is broker and sole controller (one voter: no quorum races on
a small machine); nodes 2..N are broker-only. An older Kafka runs in ZooKeeper mode: one
standalone ZooKeeper (sidecars.py) and N brokers, the controller elected among them. With more
than one broker, node i sits in rack `rack-<letter>`. Everything a cluster needs lives in its
state directory:

    <state>/state.json          ports, pids, cluster id: what `status` and `down` read
    <state>/n<i>/server.properties, log4j2.properties (or log4j.properties), data/, kafka.log
    <state>/zk/                 ZooKeeper's config, data and log (ZooKeeper mode)

Steps of `start`: pick free ports, write configs, start the sidecars (ZooKeeper, the OAuth
token issuer), format storage (StorageTool, KRaft only), start the JVMs, wait until every node
logs that it started and DescribeCluster lists every broker. `stop` signals broker-only nodes
before the controller (a broker's controlled shutdown waits for the controller), SIGKILLs
whatever outlives the grace period, then stops the sidecars.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import dataclasses
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import ClusterError, LocalClusterError
from reconciler.local import class_archive, security, sidecars, versions
from reconciler.local.distribution import Distribution, ensure_distribution
from reconciler.local.free_port import free_port
from reconciler.local.sidecars import Sidecar
from reconciler.local.state import (
    STATE_FILE,
    LocalCluster,
    Node,
    is_our_jvm,
    load_state,
    save_state,
)
from reconciler.local.toolchain import find_java

JVM_OPTS_ENV = "RECONCILER_KAFKA_JVM_OPTS"
JVM_OPTS = (
    "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
    # A node out of heap exits at once, its log naming the error (local/heap.py reports it),
    # rather than limping on with failing requests
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:TieredStopAtLevel=1",  # C1 only: starts faster; a test broker never gets hot
    "-Djava.awt.headless=true",
)  # fmt: skip

# Settings for a small, fast, single-machine cluster. Internal topics keep one replica so a
# three-broker cluster tolerates a stopped node; auto-creation is off because a reconciler's
# clusters must only ever hold topics somebody declared.
BASE_PROPERTIES: Mapping[str, str] = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "num.network.threads": "2",
    "num.io.threads": "2",
    "num.recovery.threads.per.data.dir": "1",
    "auto.create.topics.enable": "false",
    "num.partitions": "1",
    "default.replication.factor": "1",
}

LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.target = SYSTEM_OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = OUT
logger.srv.name = kafka.server.KafkaRaftServer
logger.srv.level = INFO
logger.msk.name = dev.reconciler
logger.msk.level = INFO
"""

# Kafka before 4.0 logs through Log4j 1 (reload4j): the same settings in its format.
LOG4J1 = """\
log4j.rootLogger=WARN, out
log4j.appender.out=org.apache.log4j.ConsoleAppender
log4j.appender.out.layout=org.apache.log4j.PatternLayout
log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaRaftServer=INFO
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.dev.reconciler=INFO
"""
REQUEST_LOG4J1 = """\
log4j.appender.req=org.apache.log4j.FileAppender
log4j.appender.req.File=${kafka.logs.dir}/requests.log
log4j.appender.req.layout=org.apache.log4j.PatternLayout
log4j.appender.req.layout.ConversionPattern=%m%n
log4j.logger.kafka.request.logger=DEBUG, req
log4j.additivity.kafka.request.logger=false
"""

# Every request a node serves, one line each, in requests.log (kafka.request.logger at DEBUG):
# lets tests count round trips as the broker saw them, not as the client claims.
REQUEST_LOG4J2 = """\
appender.req.type = File
appender.req.name = REQ
appender.req.fileName = ${sys:kafka.logs.dir}/requests.log
appender.req.layout.type = PatternLayout
appender.req.layout.pattern = %m%n
logger.req.name = kafka.request.logger
logger.req.level = DEBUG
logger.req.additivity = false
logger.req.appenderRef.req.ref = REQ
"""

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def default_overrides(brokers: int) -> dict[str, str]:
    """Broker defaults that differ from Kafka's built-in 1/1, so KIP-464 defaults are visible."""
    return {"num.partitions": "3", "default.replication.factor": "2" if brokers > 1 else "1"}


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL us when the parent dies (tests killed mid-run)."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _properties(cluster: LocalCluster, node: Node) -> str:
    if cluster.metadata == "zookeeper":
        return _zookeeper_properties(cluster, node)
    controller = next(n for n in cluster.nodes if n.controller)
    client = security.protocol(cluster.security)  # also the listener's name
    props: dict[str, str] = {
        "process.roles": "broker,controller" if node.controller else "broker",
        "node.id": str(node.id),
        "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller.controller_port}",
        "inter.broker.listener.name": client,
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": (
            f"CONTROLLER:{security.controller_protocol(cluster.security)},{client}:{client}"
        ),
        "log.dirs": str(cluster.node_dir(node) / "data"),
    }
    props.update(security.broker_properties(cluster.state_dir, cluster.security))
    listeners = f"{client}://127.0.0.1:{node.port}"
    if node.internal_port is not None:  # oauth: brokers talk to each other over PLAINTEXT
        internal = security.INTERNAL_LISTENER
        listeners += f",{internal}://127.0.0.1:{node.internal_port}"
        props["inter.broker.listener.name"] = internal
        props["listener.security.protocol.map"] += f",{internal}:PLAINTEXT"
    if node.controller:
        listeners += f",CONTROLLER://127.0.0.1:{node.controller_port}"
    props["listeners"] = props["advertised.listeners"] = listeners
    if node.rack:
        props["broker.rack"] = node.rack
    props.update(BASE_PROPERTIES)
    props.update(dict(cluster.overrides))
    return "".join(f"{k}={v}\n" for k, v in props.items())


def _zookeeper_properties(cluster: LocalCluster, node: Node) -> str:
    """A broker of a ZooKeeper-mode cluster (Kafka before 3.9): PLAINTEXT, or SASL_PLAINTEXT
    with ACLs (`--security sasl_scram`)."""
    zookeeper = cluster.sidecar(sidecars.ZOOKEEPER)
    assert zookeeper is not None  # start() adds it for every ZooKeeper-mode cluster
    listener = f"{security.protocol(cluster.security)}://127.0.0.1:{node.port}"
    props = {
        "broker.id": str(node.id),
        "zookeeper.connect": f"127.0.0.1:{zookeeper.port}",
        "listeners": listener,
        "advertised.listeners": listener,
        "log.dirs": str(cluster.node_dir(node) / "data"),
        # share.* keys do not exist before 4.0: an old broker would only warn about them
        **{k: v for k, v in BASE_PROPERTIES.items() if not k.startswith("share.")},
        **security.zookeeper_broker_properties(cluster.state_dir, cluster.security),
    }
    if node.rack:
        props["broker.rack"] = node.rack
    props.update(dict(cluster.overrides))
    return "".join(f"{k}={v}\n" for k, v in props.items())


def _log_config(dist: Distribution, request_log: bool) -> tuple[str, str, str]:
    """(file name, contents, JVM option) of the logging config the version's backend reads."""
    if versions.parse(dist.version).log4j2:
        text = LOG4J2 + (REQUEST_LOG4J2 if request_log else "")
        return "log4j2.properties", text, "-Dlog4j2.configurationFile="
    text = LOG4J1 + (REQUEST_LOG4J1 if request_log else "")
    return "log4j.properties", text, "-Dlog4j.configuration=file:"


def _java(
    java: str,
    dist: Distribution,
    node_dir: Path,
    *args: str,
    heap_mib: int = 512,
    dump: bool = False,
) -> list[str]:
    # Appended, so they win over JVM_OPTS and the heap: e.g. "-Xmx2g" for clusters of 10,000+
    # partitions, which thrash in full GCs within 512 MiB.
    extra = os.environ.get(JVM_OPTS_ENV, "").split()
    heap = (f"-Xms{min(256, heap_mib)}m", f"-Xmx{heap_mib}m")
    name, _, option = _log_config(dist, False)
    # The local ZooKeeper has no SASL; ZooKeeper 3.4's client (Kafka 2.3) otherwise fails on
    # Java 14+ resolving a SASL server principal for 127.0.0.1.
    if versions.parse(dist.version).metadata == "zookeeper":
        extra = ["-Dzookeeper.sasl.client=false", *extra]
    added = security.classpath(node_dir.parent)
    # the archive of Kafka's classes (local/class_archive.py), written only by a JVM whose
    # classpath is Kafka's jars alone, which every later one starts with, and never with an
    # -Xshare of the user's: with -Xshare:off a JVM asked to write one does not start
    own_share = any(o.startswith("-Xshare") for o in extra)
    shared = class_archive.options(java, dist, node_dir, dump=dump and not added and not own_share)
    return [
        java, *heap, *JVM_OPTS, *shared, *extra,
        f"-Dkafka.logs.dir={node_dir}",
        f"{option}{node_dir / name}",
        *security.jvm_options(node_dir.parent),
        "-cp", ":".join([dist.classpath, *added]), *args,
    ]  # fmt: skip


def _log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


# ---------------------------------------------------------------------------- start


def plan_nodes(brokers: int, kraft: bool = True, internal: bool = False) -> tuple[Node, ...]:
    """The nodes' ids, racks and ports; node 1 is the KRaft controller (ZooKeeper mode: none).
    `internal`: each broker also gets a PLAINTEXT listener for inter-broker traffic."""
    if brokers < 1:
        raise LocalClusterError("a cluster needs at least one broker")
    racks = [f"rack-{chr(ord('a') + i)}" for i in range(brokers)] if brokers > 1 else [None]
    return tuple(
        Node(
            id=i + 1,
            controller=kraft and i == 0,
            rack=racks[i],
            port=free_port(),
            controller_port=free_port() if kraft and i == 0 else None,
            internal_port=free_port() if internal else None,
        )
        for i in range(brokers)
    )


def start(
    state_dir: Path,
    dist: Distribution,
    brokers: int = 3,
    overrides: Mapping[str, str] | None = None,
    tie_to_parent: bool = False,
    timeout: float = 120.0,
    progress: Progress = _quiet,
    request_log: bool = False,
    security_mode: str = "none",
    heap_mib: int = 512,
) -> LocalCluster:
    """Format and start a fresh cluster in state_dir; return once every broker is registered.

    security_mode: none, sasl_scram, tls, oauth or msk-iam (reconciler/local/security.py);
    KRaft only.

    tie_to_parent: the JVMs die with this process (test fixtures); `local up` leaves them running.
    request_log: every node logs each request it serves to `n<i>/requests.log`.
    heap_mib: each node's JVM heap (`local up --heap`; local/heap.py derives its default).
    On any failure the JVMs already started are stopped before the error propagates.
    """
    java, _ = find_java()
    existing = load_state(state_dir)
    if existing and existing.running_pids():
        raise LocalClusterError(
            f"a local cluster is already running from {state_dir} (bootstrap "
            f"{existing.bootstrap}); run `reconciler local down` first."
        )
    release = versions.parse(dist.version)
    kraft = release.metadata == "kraft"
    if not kraft and security_mode not in ("none", "sasl_scram"):
        raise LocalClusterError(
            f"--security {security_mode} needs a KRaft cluster (Kafka "
            f"{'.'.join(map(str, versions.KRAFT_SINCE))} or newer); Kafka {dist.version} runs "
            "in ZooKeeper mode here, with a PLAINTEXT or SASL_PLAINTEXT (--security "
            "sasl_scram) listener only."
        )
    _clean(state_dir)
    cluster_id = random_cluster_id()
    cluster = LocalCluster(
        state_dir=state_dir,
        kafka_version=dist.version,
        cluster_id=cluster_id,
        nodes=plan_nodes(brokers, kraft, internal=security.needs_internal_listener(security_mode)),
        started_at=time.time(),
        overrides=tuple(sorted((overrides or {}).items())),
        request_log=request_log,
        security=security_mode,
        heap_mib=heap_mib,
    )
    security.prepare(state_dir, security_mode, java, dist)
    cluster = _start_sidecars(java, dist, cluster, kraft, tie_to_parent, timeout, progress)
    try:
        log_name, log_text, _ = _log_config(dist, request_log)
        for node in cluster.nodes:
            node_dir = cluster.node_dir(node)
            (node_dir / "data").mkdir(parents=True)
            # 0600: with --security it holds the JAAS and keystore passwords.
            security.write_private(node_dir / "server.properties", _properties(cluster, node))
            (node_dir / log_name).write_text(log_text)
        if kraft:
            progress(f"formatting KRaft storage for {brokers} node(s)")
            _format_all(java, dist, cluster)
        elif security_mode == "sasl_scram":
            progress("writing the admin's SCRAM credentials into ZooKeeper")
            add_zookeeper_scram_user(cluster, security.ADMIN, security.admin_password(state_dir))
        cluster, procs = _launch(java, dist, cluster, tie_to_parent)
        save_state(cluster)
        security.write_client_files(state_dir, security_mode, cluster.bootstrap)
        _wait_ready(cluster, procs, timeout, progress)
    except BaseException:
        stop(cluster)
        raise
    return cluster


def _start_sidecars(
    java: str,
    dist: Distribution,
    cluster: LocalCluster,
    kraft: bool,
    tie_to_parent: bool,
    timeout: float,
    progress: Progress,
) -> LocalCluster:
    """ZooKeeper (an older Kafka) and the token issuer (oauth), each waited for on its port."""
    preexec = _die_with_parent if tie_to_parent else None
    started: list[Sidecar] = []
    try:
        if not kraft:
            directory = cluster.state_dir / "zk"
            port = free_port()
            config = sidecars.zookeeper_config(directory, port)
            (directory / "log4j.properties").write_text(LOG4J1)
            command = [
                java, "-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1",
                f"-Dlog4j.configuration=file:{directory / 'log4j.properties'}",
                # ZooKeeper 3.4 (Kafka 2.3) registers Log4j 1 JMX beans reload4j does not have
                "-Dzookeeper.jmx.log4j.disable=true",
                "-cp", dist.classpath, sidecars.ZK_MAIN, str(config),
            ]  # fmt: skip
            progress(f"starting ZooKeeper on 127.0.0.1:{port}")
            zookeeper = Sidecar(sidecars.ZOOKEEPER, port, str(config))
            log = directory / "zookeeper.log"
            started.append(sidecars.launch(zookeeper, command, log, preexec, timeout))
        if (issuer := security.token_issuer(cluster.state_dir, cluster.security)) is not None:
            sidecar, command, log = issuer
            progress(f"starting the OAuth token issuer on 127.0.0.1:{sidecar.port}")
            started.append(sidecars.launch(sidecar, command, log, preexec, timeout))
    except BaseException:
        for sidecar in started:
            sidecars.stop(sidecar)
        raise
    cluster = dataclasses.replace(cluster, sidecars=tuple(started))
    save_state(cluster)
    return cluster


def _clean(state_dir: Path) -> None:
    """Remove a previous, stopped cluster's files (formatting refuses a formatted dir)."""
    if state_dir.exists():
        for child in state_dir.iterdir():
            if child.is_dir() and (child.name.startswith("n") or child.name == "zk"):
                shutil.rmtree(child)
            elif child.name.startswith(STATE_FILE):
                child.unlink()
    state_dir.mkdir(parents=True, exist_ok=True)


def _format_all(java: str, dist: Distribution, cluster: LocalCluster) -> None:
    """Format every node's storage; the nodes' formatting runs in parallel JVMs."""
    procs = []
    for node in cluster.nodes:
        node_dir = cluster.node_dir(node)
        args = ["kafka.tools.StorageTool", "format", "-t", cluster.cluster_id,
                "-c", str(node_dir / "server.properties")]  # fmt: skip
        if node.controller:
            args.append("--standalone")  # the sole voter (KIP-853 dynamic quorum)
        args += security.format_args(cluster.state_dir, cluster.security)
        cmd = _java(java, dist, node_dir, *args)
        procs.append(
            (
                node,
                subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
            )
        )
    for node, proc in procs:
        out, _ = proc.communicate(timeout=120)
        out = security.redact(cluster.state_dir, out)
        if proc.returncode != 0:
            (cluster.node_dir(node) / "format-failed.log").write_text(out)
            raise LocalClusterError(f"formatting storage of node {node.id} failed:\n{out.strip()}")


def add_zookeeper_scram_user(cluster: LocalCluster, user: str, password: str) -> None:
    """`user`'s SCRAM credentials, written into the ZooKeeper of a ZooKeeper-mode cluster:
    the admin's before any broker starts (the brokers log in to each other as it), others' as
    tests need them (Kafka before 2.7 has no AlterUserScramCredentials)."""
    zookeeper = cluster.sidecar(sidecars.ZOOKEEPER)
    if zookeeper is None:
        raise LocalClusterError(f"the cluster in {cluster.state_dir} has no ZooKeeper")
    java, _ = find_java()
    dist = ensure_distribution(version=cluster.kafka_version)
    node_dir = cluster.node_dir(cluster.nodes[0])
    args = security.zookeeper_scram_args(f"127.0.0.1:{zookeeper.port}", user, password)
    done = subprocess.run(_java(java, dist, node_dir, *args), capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    if done.returncode != 0:
        out = security.redact(cluster.state_dir, done.stdout + done.stderr).replace(password, "***")
        (node_dir / "scram-failed.log").write_text(out)
        raise LocalClusterError(
            f"writing the SCRAM credentials of {user} into ZooKeeper failed:\n{out}"
        )


def random_cluster_id() -> str:
    """A cluster id as Kafka's Uuid.randomUuid() makes it: 22 URL-safe base64 characters, never
    starting with '-', which the storage tool's argument parser would read as an option (the
    cause of the rare "formatting storage failed: argument --cluster-id: expected one
    argument", once in 64 starts)."""
    while True:
        candidate = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not candidate.startswith("-"):
            return candidate


def _launch(
    java: str, dist: Distribution, cluster: LocalCluster, tie_to_parent: bool
) -> tuple[LocalCluster, dict[int, subprocess.Popen[bytes]]]:
    nodes = []
    procs = {}
    # Controller first: brokers register with it.
    for node in sorted(cluster.nodes, key=lambda n: not n.controller):
        proc = _spawn(java, dist, cluster, node, tie_to_parent)
        nodes.append(_replace_pid(node, proc.pid))
        procs[node.id] = proc
    return _with_nodes(cluster, tuple(sorted(nodes, key=lambda n: n.id))), procs


def _spawn(
    java: str, dist: Distribution, cluster: LocalCluster, node: Node, tie_to_parent: bool
) -> subprocess.Popen[bytes]:
    """Start one node's JVM; its log starts afresh, so "Kafka Server started" is this run's."""
    node_dir = cluster.node_dir(node)
    with (node_dir / "kafka.log").open("wb") as log:
        return subprocess.Popen(
            _java(
                java,
                dist,
                node_dir,
                "kafka.Kafka",
                str(node_dir / "server.properties"),
                heap_mib=cluster.heap_mib,
                dump=node.id == 1,
            ),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the shell that ran `local up` spares it
            # Safe here: no other thread runs while a node starts.
            preexec_fn=_die_with_parent if tie_to_parent else None,  # noqa: PLW1509
            cwd=node_dir,
        )


def _replace_pid(node: Node, pid: int | None) -> Node:
    return dataclasses.replace(node, pid=pid)


def _with_nodes(cluster: LocalCluster, nodes: tuple[Node, ...]) -> LocalCluster:
    return dataclasses.replace(cluster, nodes=nodes)


def _wait_ready(
    cluster: LocalCluster,
    procs: dict[int, subprocess.Popen[bytes]],
    timeout: float,
    progress: Progress,
    only: tuple[int, ...] | None = None,
) -> None:
    """Wait until the nodes in `only` (default: all) logged their start and every node of the
    cluster is registered."""
    deadline = time.monotonic() + timeout
    started_line = versions.parse(cluster.kafka_version).started_line
    pending = {n.id for n in cluster.nodes if only is None or n.id in only}
    progress(f"waiting for {len(pending)} node(s) to start")
    while pending:
        for node in cluster.nodes:
            if node.id not in procs:
                continue
            log = cluster.node_dir(node) / "kafka.log"
            if procs[node.id].poll() is not None:
                raise LocalClusterError(
                    f"Kafka node {node.id} exited during start-up; the end of {log}:\n"
                    + _log_tail(log)
                )
            if node.id in pending and started_line in log.read_text(errors="replace"):
                pending.discard(node.id)
                progress(f"node {node.id} started")
        if time.monotonic() > deadline:
            raise LocalClusterError(
                f"Kafka node(s) {sorted(pending)} did not start within {timeout:.0f} s; see the "
                f"logs in {cluster.state_dir}."
            )
        time.sleep(0.2)
    expected = {n.id for n in cluster.nodes if only is None or n.id in only}
    while True:
        try:
            seen = {b.id for b in cluster.describe(timeout=5).brokers}
        except ClusterError:
            seen = set()
        if expected <= seen:
            return
        if time.monotonic() > deadline:
            raise LocalClusterError(
                f"only {len(seen & expected)} of {len(expected)} brokers registered within "
                f"{timeout:.0f} s; see the logs in {cluster.state_dir}."
            )
        time.sleep(0.3)


# ---------------------------------------------------------------------------- stop


@dataclass(frozen=True, slots=True)
class StopReport:
    stopped: tuple[int, ...]  # node ids that exited on SIGTERM
    killed: tuple[int, ...]  # node ids that needed SIGKILL


def current(cluster: LocalCluster) -> LocalCluster:
    """The cluster as its state file says now: pids change when single nodes stop and start,
    and a caller may hold the value `start` returned before that."""
    return load_state(cluster.state_dir) or cluster


def stop(cluster: LocalCluster, grace: float = 30.0) -> StopReport:
    """Stop every JVM of the cluster: broker-only nodes first, then the controller (ZooKeeper
    mode: one broker at a time, node 1 last), then the sidecars."""
    cluster = current(cluster)
    stopped: list[int] = []
    killed: list[int] = []
    waves = [
        [n for n in cluster.nodes if not n.controller],
        [n for n in cluster.nodes if n.controller],
    ]
    if cluster.metadata == "zookeeper":
        # One at a time: brokers shutting down together each retry their controlled shutdown
        # while the elected controller leaves (20 s for two brokers); most likely the first
        # started, node 1, is the controller, so it goes last.
        waves = [[n] for n in sorted(cluster.nodes, key=lambda n: -n.id)]
    for wave in waves:
        alive = [n for n in wave if n.pid and is_our_jvm(n.pid, cluster.node_dir(n))]
        for node in alive:
            _signal(node, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while alive and time.monotonic() < deadline:
            time.sleep(0.1)
            still = [n for n in alive if is_our_jvm(n.pid or 0, cluster.node_dir(n))]
            stopped.extend(n.id for n in alive if n not in still)
            alive = still
        for node in alive:
            _signal(node, signal.SIGKILL)
            killed.append(node.id)
        for node in wave:
            _reap(node, wait=node.id in killed)
            class_archive.keep(cluster.node_dir(node), exited=node.id not in killed)
    stopped_sidecars = tuple(sidecars.stop(s) for s in cluster.sidecars)
    cluster = dataclasses.replace(cluster, sidecars=stopped_sidecars)
    save_state(_with_nodes(cluster, tuple(_replace_pid(n, None) for n in cluster.nodes)))
    return StopReport(tuple(sorted(stopped)), tuple(sorted(killed)))


def _signal(node: Node, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(node.pid or 0, sig)


def _reap(node: Node, wait: bool) -> None:
    """Collect the exit status if the JVM is our child, so it leaves no zombie behind.

    After a SIGKILL, also wait (briefly) until the kernel has really removed the process, so
    "stopped" means no Kafka process is left when `down` returns.
    """
    if not node.pid:
        return
    try:
        os.waitpid(node.pid, 0 if wait else os.WNOHANG)
    except ChildProcessError:  # not our child (started by an earlier `local up`)
        deadline = time.monotonic() + 10
        while wait and Path(f"/proc/{node.pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)


# ---------------------------------------------------------------------------- single nodes


def _node(cluster: LocalCluster, node_id: int) -> Node:
    for node in cluster.nodes:
        if node.id == node_id:
            return node
    raise LocalClusterError(
        f"the local cluster in {cluster.state_dir} has no node {node_id}; its nodes are "
        f"{[n.id for n in cluster.nodes]}."
    )


def down_nodes(cluster: LocalCluster) -> tuple[int, ...]:
    """Ids of the nodes whose JVM is not running (never started, stopped, or died)."""
    return tuple(
        n.id for n in cluster.nodes if not (n.pid and is_our_jvm(n.pid, cluster.node_dir(n)))
    )


def stop_node(cluster: LocalCluster, node_id: int, grace: float = 30.0) -> LocalCluster:
    """Stop one node's JVM (SIGTERM, SIGKILL after `grace` s); the others keep running.

    The state file records the node as down, so `status` names it and `start_node` (or
    `local up`) brings it back on the same ports and data. Returns the updated cluster.
    """
    cluster = current(cluster)
    node = _node(cluster, node_id)
    if node.pid and is_our_jvm(node.pid, cluster.node_dir(node)):
        _signal(node, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while is_our_jvm(node.pid, cluster.node_dir(node)) and time.monotonic() < deadline:
            time.sleep(0.1)
        killed = is_our_jvm(node.pid, cluster.node_dir(node))
        if killed:
            _signal(node, signal.SIGKILL)
        _reap(node, wait=killed)
        class_archive.keep(cluster.node_dir(node), exited=not killed)
    nodes = tuple(_replace_pid(n, None) if n.id == node_id else n for n in cluster.nodes)
    updated = _with_nodes(cluster, nodes)
    save_state(updated)
    return updated


def start_node(
    cluster: LocalCluster,
    node_id: int,
    tie_to_parent: bool = False,
    timeout: float = 120.0,
    progress: Progress = _quiet,
) -> LocalCluster:
    """Start one stopped node again, on its ports and storage; return once it is registered.

    Starting a node that runs already is a no-op. Returns the updated cluster.
    """
    cluster = current(cluster)
    node = _node(cluster, node_id)
    if node.pid and is_our_jvm(node.pid, cluster.node_dir(node)):
        return cluster
    java, _ = find_java()
    dist = ensure_distribution(version=cluster.kafka_version)  # the jars `start` used
    proc = _spawn(java, dist, cluster, node, tie_to_parent)
    nodes = tuple(_replace_pid(n, proc.pid) if n.id == node_id else n for n in cluster.nodes)
    updated = _with_nodes(cluster, nodes)
    save_state(updated)
    try:
        _wait_ready(updated, {node_id: proc}, timeout, progress, only=(node_id,))
    except BaseException:
        stop_node(updated, node_id)
        raise
    return updated
