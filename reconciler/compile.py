"""Compiled desired state: what the specs ask of one cluster, after templates and defaults, as
JSON Lines (schemas/desired-line.schema.json, format_version 1): the fleet pipeline's desired
side.

    {"record": "cluster", ...}   first line: the cluster's KIP-578 limits, policy.ignore,
                                 policy.allow_delete and the spec files not read
    {"record": "topic", ...}     one line per topic the specs declare for the cluster, sorted
                                 by name, tombstones included (`state: absent`)

Values are the validated specs' own: config values already in Kafka's canonical form (the
loader normalises them through the catalog), partitions and replication factor null where the
spec leaves them to the broker (KIP-464), `file`/`line`/`column` the place of the topic's
`- name:` line. The output depends on the specs alone, so compiling twice gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reconciler.atomic_write import replace_whole
from reconciler.errors import ConfigError
from reconciler.spec.model import ClusterConfig, DesiredState, TopicSpec

FORMAT_VERSION = 1
SUFFIX = ".jsonl"


def lines(cluster: ClusterConfig, desired: DesiredState) -> Iterator[str]:
    """The compiled desired state of `cluster`, line by line (no newlines)."""
    yield _dumps(
        {
            "record": "cluster",
            "format_version": FORMAT_VERSION,
            "cluster": cluster.name,
            "limits": {
                "max_broker_partitions": cluster.limits.max_broker_partitions,
                "max_partitions": cluster.limits.max_partitions,
            },
            "ignore": list(cluster.policy.ignore),
            "allow_delete": cluster.policy.allow_delete,
            # files that could hold topics but were not read: the planner deletes nothing
            # while there are any (its delete_with_unread_specs), and so reports the fleet
            "unread": [path for path, _ in desired.unread],
        }
    )
    for _, spec in sorted(desired.topics.items()):
        yield _dumps(topic_line(cluster.name, spec))


def topic_line(cluster: str, spec: TopicSpec) -> dict[str, Any]:
    return {
        "record": "topic",
        "cluster": cluster,
        "topic": spec.name,
        "state": spec.state.value,
        "partitions": spec.partitions,
        "replication_factor": spec.replication_factor,
        "config": dict(spec.config),
        "assignments": [list(r) for r in spec.assignments] if spec.assignments else None,
        "keyed": spec.keyed,
        "protect": spec.protect,
        "owner": spec.owner,
        "file": spec.location.file,
        "line": spec.location.line,
        "column": spec.location.column,
    }


def _dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def write(out: Path, cluster: ClusterConfig, desired: DesiredState) -> Path:
    """Write OUT/NAME.jsonl (through a temporary name, so a reader never sees half a file)."""
    path = out / f"{cluster.name}{SUFFIX}"
    try:
        out.mkdir(parents=True, exist_ok=True)
        replace_whole(path, (f"{line}\n" for line in lines(cluster, desired)))
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror}") from exc
    return path
