"""Snapshot files: a cluster's state as JSON (schemas/snapshot.schema.json, format_version 1).

`reconciler snapshot` writes one; `plan --state FILE` plans against it offline, and gets the
same plan as against the live cluster it came from, because both go through `ClusterState`.
Configs are stored as `key: [value, source]` (plus `true` when sensitive) to keep files of
tens of thousands of topics small. `write_snapshot` also writes the fleet pipeline's JSON Lines
form (reconciler.cluster.jsonl) for a `.jsonl` name.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reconciler.cluster import jsonl
from reconciler.cluster.state import (
    ClusterState,
    ConfigEntry,
    Reassignment,
    TopicState,
)
from reconciler.errors import ConfigError

FORMAT_VERSION = 1


def to_json(cluster: str, state: ClusterState, taken_at: datetime | None = None) -> dict[str, Any]:
    when = (taken_at or datetime.now(UTC)).isoformat(timespec="seconds")
    return {
        "format_version": FORMAT_VERSION,
        "cluster": cluster,
        "taken_at": when,
        "cluster_id": state.cluster_id,
        "controller_id": state.controller_id,
        "brokers": [
            {"id": b.id, "host": b.host, "port": b.port, "rack": b.rack} for b in state.brokers
        ],
        "broker_defaults": dict(sorted(state.broker_defaults.items())),
        "topics": [_topic_json(t) for _, t in sorted(state.topics.items())],
        "reassignments": [
            {
                "topic": r.topic,
                "partition": r.partition,
                "replicas": list(r.replicas),
                "adding": list(r.adding),
                "removing": list(r.removing),
            }
            for r in state.reassignments
        ],
    }


def _topic_json(topic: TopicState) -> dict[str, Any]:
    return {
        "name": topic.name,
        "topic_id": topic.topic_id,
        "internal": topic.internal,
        "partitions": jsonl.partitions_to_json(topic.partitions),
        "configs": {
            key: [e.value, e.source, True] if e.sensitive else [e.value, e.source]
            for key, e in topic.configs
        },
    }


def from_json(document: dict[str, Any]) -> tuple[str, ClusterState]:
    """(cluster name, state); a KeyError/TypeError/ValueError means the file is not a snapshot."""
    if document.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"format_version {document.get('format_version')!r} is not {FORMAT_VERSION}"
        )
    topics = {t["name"]: _topic(t) for t in document["topics"]}
    state = ClusterState(
        cluster_id=document.get("cluster_id"),
        controller_id=document.get("controller_id"),
        brokers=jsonl.brokers_from_json(document["brokers"]),
        topics=dict(sorted(topics.items())),
        broker_defaults={str(k): str(v) for k, v in document.get("broker_defaults", {}).items()},
        reassignments=tuple(
            Reassignment(
                r["topic"],
                r["partition"],
                tuple(r["replicas"]),
                tuple(r["adding"]),
                tuple(r["removing"]),
            )
            for r in document.get("reassignments", [])
        ),
    )
    return str(document["cluster"]), state


def _topic(t: dict[str, Any]) -> TopicState:
    return TopicState(
        name=t["name"],
        internal=bool(t.get("internal", False)),
        partitions=jsonl.partitions_from_json(t["partitions"]),
        configs=tuple(
            (key, ConfigEntry(entry[0], entry[1], len(entry) > 2 and bool(entry[2])))
            for key, entry in sorted(t.get("configs", {}).items())
        ),
        topic_id=t.get("topic_id"),
    )


def dumps(cluster: str, state: ClusterState) -> str:
    return json.dumps(to_json(cluster, state), indent=1) + "\n"


def write_snapshot(path: Path, cluster: str, state: ClusterState, fmt: str | None = None) -> None:
    """Write a snapshot file: JSON (this module's form, what `plan --state` reads) or, with
    `fmt="jsonl"` or by default for a name ending in `.jsonl`, the JSON Lines form the fleet
    pipeline reads (reconciler.cluster.jsonl), so `drift --snapshot-out night.jsonl` feeds it."""
    if (fmt or ("jsonl" if path.suffix == jsonl.SUFFIX else "json")) == "jsonl":
        jsonl.write(path, cluster, state)
        return
    try:
        path.write_text(dumps(cluster, state), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write snapshot {path}: {exc.strerror}") from exc


def load_snapshot(path: Path) -> tuple[str, ClusterState]:
    """Read a snapshot file; anything unreadable is a ConfigError naming the file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read snapshot {path}: {exc.strerror}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"{path} is not a snapshot: not valid JSON ({exc}); write one with "
            "`reconciler snapshot --cluster NAME -o FILE`"
        ) from exc
    try:
        if not isinstance(document, dict):
            raise TypeError("not a JSON object")
        return from_json(document)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ConfigError(
            f"{path} is not a reconciler snapshot (format_version {FORMAT_VERSION}): "
            f"{type(exc).__name__} {exc}; write one with "
            "`reconciler snapshot --cluster NAME -o FILE`"
        ) from exc
