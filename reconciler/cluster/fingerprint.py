"""The fingerprint of a cluster state: what a saved plan was computed from.

A hash of the canonical form of the topics a plan touches (partitions and their replicas,
config overrides, reassignments in progress, or the marker that the topic is absent), the
brokers and racks, and the broker defaults a create relies on (KIP-464). Leaders and ISR are left
out: they move on their own and change nothing a plan does. Apply recomputes it from a fresh
read and refuses a plan whose fingerprint no longer matches (a stale plan; apply/check/preflight.py
says what changed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from reconciler.cluster.state import ClusterState

_DEFAULTS = ("default.replication.factor", "min.insync.replicas", "num.partitions")


def canonical(state: ClusterState, topics: Iterable[str]) -> dict[str, Any]:
    """The JSON-able value the fingerprint hashes; `topics` are the names the plan touches."""
    entries: list[dict[str, Any]] = []
    for name in sorted(set(topics)):
        topic = state.topics.get(name)
        if topic is None:
            entries.append({"name": name, "absent": True})
            continue
        entries.append(
            {
                "name": name,
                "topic_id": topic.topic_id,
                "replicas": [list(p.replicas) for p in topic.partitions],
                "overrides": dict(sorted(topic.overrides.items())),
                "reassignments": [
                    [r.partition, list(r.replicas), list(r.adding), list(r.removing)]
                    for r in state.reassignments
                    if r.topic == name
                ],
            }
        )
    return {
        "brokers": [[b.id, b.rack] for b in state.brokers],
        "defaults": {k: state.broker_defaults.get(k) for k in _DEFAULTS},
        "topics": entries,
    }


def fingerprint(state: ClusterState, topics: Iterable[str]) -> str:
    """`sha256:<hex>` of `canonical(state, topics)`."""
    text = json.dumps(canonical(state, topics), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
