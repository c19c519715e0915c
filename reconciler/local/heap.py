"""How much heap each node of `reconciler local up` gets, and why a node died.

The default heap is a quarter of the machine's memory shared by the nodes, each between
512 MiB and 4 GiB (`default_mib`): 512 MiB, the old fixed size, is what a three-node cluster
of a few hundred topics needs, and thousands of topics of replication factor 2-3 ran it out
of heap. `local up --heap SIZE` sets it; RECONCILER_KAFKA_JVM_OPTS still has the last word.

A node that ran out of heap exits (-XX:+ExitOnOutOfMemoryError) and its kafka.log names the
error; `death_cause` finds that line, so `local status` and a command that cannot reach the
cluster say why it died instead of "connection refused".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.errors import ConfigError, ReconcilerError
from reconciler.spec.units import parse_size_bytes

if TYPE_CHECKING:
    from reconciler.local.state import LocalCluster

MIB = 1024 * 1024
SMALLEST_MIB = 512
LARGEST_DEFAULT_MIB = 4096
_SMALLEST_GIVEN_MIB = 128  # below it Kafka does not start


def machine_mib() -> int | None:
    """The machine's memory in MiB (None where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // MIB
    except (ValueError, OSError, AttributeError):
        return None


def default_mib(nodes: int, memory_mib: int | None) -> int:
    """A quarter of `memory_mib` shared by `nodes`, within [512 MiB, 4 GiB], in 64 MiB steps."""
    if memory_mib is None:
        return SMALLEST_MIB
    share = memory_mib // 4 // max(nodes, 1) // 64 * 64
    return max(SMALLEST_MIB, min(LARGEST_DEFAULT_MIB, share))


def parse_heap(text: str) -> int:
    """`--heap` in MiB: a size in human units (1GiB, 768MiB) or the JVM's (2g, 768m)."""
    jvm = text.strip().lower()
    if jvm[-1:] in ("m", "g") and jvm[:-1].isdigit():
        mib = int(jvm[:-1]) * (1024 if jvm.endswith("g") else 1)
    else:
        try:
            mib = parse_size_bytes(text) // MIB
        except ValueError as exc:
            raise ConfigError(
                f"--heap {text!r}: {exc}; give a size per node, e.g. 2g, 1536m or 2GiB"
            ) from exc
    if mib < _SMALLEST_GIVEN_MIB:
        raise ConfigError(
            f"--heap {text!r}: {mib} MiB is too small for a Kafka node; give at least "
            f"{_SMALLEST_GIVEN_MIB}m (512m or more for real work)"
        )
    return mib


def death_cause(log: Path) -> str | None:
    """The OutOfMemoryError a dead node's log names, e.g. "java.lang.OutOfMemoryError: Java
    heap space"; None when the log names none (or cannot be read)."""
    try:
        with log.open("rb") as handle:
            handle.seek(max(0, log.stat().st_size - 256 * 1024))  # the end says how it died
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        at = line.find("OutOfMemoryError")
        if at >= 0:
            start = line.rfind(" ", 0, at) + 1  # java.lang.OutOfMemoryError, with its package
            return line[start:].strip()
    return None


def dead_nodes(state_dir: Path, message: str) -> list[str]:
    """For an error `message` about a cluster the local cluster in `state_dir` serves (one of its
    addresses appears in it): `deaths` of that cluster. Empty when the error is about another
    cluster."""
    from reconciler.local.state import load_state

    try:
        cluster = load_state(state_dir)
    except ReconcilerError:
        return []
    if cluster is None or not any(node.address in message for node in cluster.nodes):
        return []
    return deaths(cluster)


def deaths(cluster: LocalCluster) -> list[str]:
    """A sentence for each node of `cluster` that is down after an error its log names."""
    from reconciler.local import cluster as local_cluster

    found = []
    for node_id in local_cluster.down_nodes(cluster):
        node = next(n for n in cluster.nodes if n.id == node_id)
        log = cluster.node_dir(node) / "kafka.log"
        cause = death_cause(log)
        if cause is not None:
            found.append(died(node_id, cause, log, cluster.heap_mib))
    return found


def died(node_id: int, cause: str, log: Path, heap_mib: int) -> str:
    bigger = f"{heap_mib * 2 // 1024}g" if heap_mib * 2 % 1024 == 0 else f"{heap_mib * 2}m"
    return (
        f"local node {node_id} died of {cause} ({log}): it had {heap_mib} MiB of heap; start "
        f"the cluster with more: `reconciler local down`, then `reconciler local up --heap "
        f"{bigger}`"
    )
