"""The fingerprint of a cluster state: what a saved plan was computed from.

A hash of the canonical form of the topics a plan touches (partitions and their replicas,
config overrides, reassignments in progress, or the marker that the topic is absent), the
brokers and racks, and the broker defaults a create relies on (KIP-464). Leaders and ISR are left
out: they move on their own and change nothing a plan does. Apply recomputes it from a fresh
read and refuses a plan whose fingerprint no longer matches (a stale plan).
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


def differences(before: ClusterState, after: ClusterState, topics: Iterable[str]) -> list[str]:
    """What changed between two states for these topics, in words (why a plan is stale)."""
    old, new = canonical(before, topics), canonical(after, topics)
    found: list[str] = []
    if old["brokers"] != new["brokers"]:
        found.append("the brokers or their racks changed")
    if old["defaults"] != new["defaults"]:
        found.append("the broker defaults changed")
    for was, now in zip(old["topics"], new["topics"], strict=True):
        if was == now:
            continue
        name = was["name"]
        if was.get("absent"):
            found.append(f"{name} was created")
        elif now.get("absent"):
            found.append(f"{name} was deleted")
        elif was["topic_id"] != now["topic_id"]:
            found.append(f"{name} was deleted and created again")
        else:
            parts = [
                label
                for key, label in (
                    ("replicas", "partitions or replicas"),
                    ("overrides", "config overrides"),
                    ("reassignments", "reassignments"),
                )
                if was[key] != now[key]
            ]
            found.append(f"{name}: {', '.join(parts)} changed")
    return found
