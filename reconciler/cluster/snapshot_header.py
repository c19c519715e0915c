"""What a snapshot says of its cluster, in both forms (snapshot.py's JSON document, jsonl.py's
cluster line): one place, so the two cannot drift apart. Both forms are format_version 1."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from reconciler.cluster import snapshot_access
from reconciler.cluster.state import ClusterState

FORMAT_VERSION = 1


def taken_at(when: datetime | None = None) -> str:
    return (when or datetime.now(UTC)).isoformat(timespec="seconds")


def header(cluster: str, state: ClusterState, when: str, *, fenced: bool) -> dict[str, Any]:
    """The cluster's fields, in the order both forms write them; `fenced`: with the brokers
    Kafka reports fenced (the JSON form; the JSON Lines form has no such field)."""
    document: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "cluster": cluster,
        "taken_at": when,
        "cluster_id": state.cluster_id,
        "controller_id": state.controller_id,
        "brokers": [
            {"id": b.id, "host": b.host, "port": b.port, "rack": b.rack} for b in state.brokers
        ],
    }
    if fenced:
        document["fenced_brokers"] = None if state.fenced is None else list(state.fenced)
    document["broker_defaults"] = dict(sorted(state.broker_defaults.items()))
    # JSON Lines' topic lines keep overrides only: the keys the cluster knows are stated here
    keys = state.topic_config_keys
    document["topic_config_keys"] = sorted(keys) if keys is not None else None
    # which access parts the file holds (snapshot_access.py), said once for both forms
    document.update(snapshot_access.header(state))
    return document
