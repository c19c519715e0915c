"""A local cluster as values: its nodes, and the state file `status` and `down` read.

    <state>/state.json          ports, pids, cluster id (written atomically by `start`)

A node's pid is trusted only while /proc shows it is still the JVM started for that node's
directory: pids get reused, and `down` must never signal someone else's process.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from reconciler.cluster.protocol.answers import ClusterDescription
from reconciler.errors import LocalClusterError
from reconciler.local import security
from reconciler.local.processes import is_our_process
from reconciler.local.sidecars import Sidecar

STATE_FILE = "state.json"


def state_dir_of(repo: Path, explicit: Path | None) -> Path:
    """Where a repository's local cluster keeps its state: `--state-dir`, else
    $RECONCILER_LOCAL_DIR, else .reconciler/local/ of the repository."""
    if explicit:
        return explicit.resolve()
    if env := os.environ.get("RECONCILER_LOCAL_DIR"):
        return Path(env).resolve()
    return (repo / ".reconciler" / "local").resolve()


@dataclass(frozen=True, slots=True)
class Node:
    id: int
    controller: bool  # combined broker+controller; otherwise broker-only
    rack: str | None
    port: int  # the client listener (PLAINTEXT, or SASL_PLAINTEXT/SSL with --security)
    controller_port: int | None
    pid: int | None = None
    internal_port: int | None = None  # oauth: the PLAINTEXT inter-broker listener

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass(frozen=True, slots=True)
class LocalCluster:
    state_dir: Path
    kafka_version: str
    cluster_id: str
    nodes: tuple[Node, ...]
    started_at: float  # epoch seconds
    overrides: tuple[tuple[str, str], ...] = ()
    request_log: bool = False  # each node writes requests.log (see REQUEST_LOG4J2)
    security: str = "none"  # none | sasl_scram | tls | oauth (reconciler/local/security.py)
    sidecars: tuple[Sidecar, ...] = ()
    heap_mib: int = 512  # each node's JVM heap (-Xmx), kept for start-node (local/heap.py)

    @property
    def metadata(self) -> str:
        """kraft, or zookeeper for a Kafka older than 3.9 (reconciler/local/versions.py)."""
        return "zookeeper" if any(s.name == "zookeeper" for s in self.sidecars) else "kraft"

    def sidecar(self, name: str) -> Sidecar | None:
        return next((s for s in self.sidecars if s.name == name), None)

    @property
    def bootstrap(self) -> str:
        return ",".join(n.address for n in self.nodes)

    def node_dir(self, node: Node) -> Path:
        return self.state_dir / f"n{node.id}"

    def running_pids(self) -> list[int]:
        nodes = [
            n.pid for n in self.nodes if n.pid is not None and is_our_jvm(n.pid, self.node_dir(n))
        ]
        return nodes + [s.pid for s in self.sidecars if s.pid is not None and s.running()]

    def client_config(self) -> dict[str, str]:
        """librdkafka properties of the super user (empty for an unsecured cluster)."""
        return security.client_config(self.state_dir, self.security)

    def describe(self, timeout: float = 10.0) -> ClusterDescription:
        from reconciler.cluster.adapter import describe_cluster

        return describe_cluster(self.bootstrap, client=self.client_config(), timeout=timeout)


# ---------------------------------------------------------------------------- state file


def load_state(state_dir: Path) -> LocalCluster | None:
    path = state_dir / STATE_FILE
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text())
        nodes = tuple(Node(**n) for n in raw.pop("nodes"))
        raw["overrides"] = tuple(tuple(kv) for kv in raw.get("overrides", ()))
        raw["sidecars"] = tuple(Sidecar(**s) for s in raw.get("sidecars", ()))
        return LocalCluster(
            state_dir=state_dir, nodes=nodes, **{k: v for k, v in raw.items() if k != "state_dir"}
        )
    except (ValueError, TypeError, KeyError) as exc:
        raise LocalClusterError(
            f"{path} is not a state file this version understands ({exc}); stop any Kafka "
            f"started from {state_dir} by hand and delete the directory."
        ) from exc


def save_state(cluster: LocalCluster) -> None:
    data = asdict(cluster)
    data["state_dir"] = str(cluster.state_dir)
    tmp = cluster.state_dir / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(cluster.state_dir / STATE_FILE)


def is_our_jvm(pid: int, node_dir: Path) -> bool:
    """True if pid is alive and is the JVM started for node_dir (pids get reused)."""
    return is_our_process(pid, node_dir / "server.properties")
