"""Snapshot lines: a cluster's state as JSON Lines, the form the fleet pipeline reads
(schemas/snapshot-line.schema.json, format_version 1).

The JSON snapshot (snapshot.py) is one document that `plan --state` reads back whole; a fleet
of hundreds of thousands of topics needs a form Spark can split anywhere, so here every line
stands alone:

    {"record": "cluster", ...}   first line: the cluster, when it was read, its brokers and
                                 broker defaults
    {"record": "topic", ...}     one line per topic: partitions (replicas, leader, ISR), the
                                 topic's own config overrides (with the synonyms Kafka listed
                                 after them, when it listed any), reassignments in progress
    {"record": "acl", ...}       one line per ACL binding, per client quota entity ("quota")
                                 and per SCRAM credential ("user": user, mechanism,
                                 iterations, never a secret), for the parts the cluster line
                                 does not list in `unread` (snapshot_access.py)
    {"record": "end", ...}       last line, the trailer: how many topic lines came before it
                                 (and lines of each access part held) and the cluster id, so a
                                 reader can prove the file whole (a file cut short has no
                                 trailer; a lost line, another count)

Every line carries `taken_at`, so a topic line is tied to its cluster line even when Spark
reads them in different tasks, and a second snapshot written the same day supersedes the
first line by line.

Only the overrides (DescribeConfigs source DYNAMIC_TOPIC_CONFIG) are kept, already in Kafka's
canonical form through `overrides.comparable_overrides`, the function the planner's diff
applies to a cluster's values (here with the throttles kept): the pipeline compares strings
and never needs a second copy of the normalisation rules. Inherited values are left out
(they are most of a JSON snapshot's size, and drift never reports them), which is why this
form is the pipeline's input and not `plan --state`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from reconciler import readable, topic_ids
from reconciler.atomic_write import replace_whole
from reconciler.cluster import snapshot_access, snapshot_header
from reconciler.cluster.overrides import OPERATIONAL_KEYS, comparable_overrides
from reconciler.cluster.state import (
    ACLS,
    QUOTAS,
    TOPIC_OVERRIDE,
    USERS,
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    Synonym,
    TopicState,
)
from reconciler.errors import ConfigError

FORMAT_VERSION = snapshot_header.FORMAT_VERSION
SUFFIX = ".jsonl"
TRAILER = "end"  # the record of a snapshot's last line
# The record of each access part's lines: one ACL binding, quota entity, SCRAM credential each
ACCESS_RECORDS = {ACLS: "acl", QUOTAS: "quota", USERS: "user"}
_PART_OF = {record: part for part, record in ACCESS_RECORDS.items()}


def partitions_to_json(partitions: Iterable[PartitionState]) -> list[dict[str, Any]]:
    """A topic's partitions as both snapshot forms store them."""
    return [
        {
            "partition": p.partition,
            "leader": p.leader,
            "replicas": list(p.replicas),
            "isr": list(p.isr),
        }
        for p in partitions
    ]


def partitions_from_json(items: list[dict[str, Any]]) -> tuple[PartitionState, ...]:
    """A topic's partitions in a snapshot (either form), sorted by partition id."""
    found = (
        PartitionState(p["partition"], p.get("leader"), tuple(p["replicas"]), tuple(p["isr"]))
        for p in items
    )
    return tuple(sorted(found, key=lambda p: p.partition))


def brokers_from_json(items: list[dict[str, Any]]) -> tuple[BrokerState, ...]:
    """The brokers of a snapshot (either form), sorted by id as ClusterState keeps them."""
    found = (BrokerState(b["id"], b["host"], b["port"], b.get("rack")) for b in items)
    return tuple(sorted(found, key=lambda b: b.id))


def lines(cluster: str, state: ClusterState, taken_at: datetime | None = None) -> Iterator[str]:
    """The snapshot as JSON lines (no newline at the end of each): the cluster line first,
    then one line per topic, sorted by name, then the trailer."""
    when = snapshot_header.taken_at(taken_at)
    yield _dumps(
        {"record": "cluster", **snapshot_header.header(cluster, state, when, fenced=False)}
    )
    moving: dict[str, list[Reassignment]] = {}
    for r in state.reassignments:
        moving.setdefault(r.topic, []).append(r)
    for name, topic in sorted(state.topics.items()):
        yield _dumps(_topic_line(when, topic, moving.get(name, ())))
    access = snapshot_access.records(state)
    for part, items in access.items():
        for item in items:
            yield _dumps({"record": ACCESS_RECORDS[part], "taken_at": when, **item})
    yield _dumps(
        {
            "record": TRAILER,
            "taken_at": when,
            "cluster": cluster,
            "cluster_id": state.cluster_id,
            "topics": len(state.topics),
            # the lines of each access part the file holds, counted as the topics are
            **{part: len(items) for part, items in access.items()},
        }
    )


def _topic_line(when: str, topic: TopicState, moving: Iterable[Reassignment]) -> dict[str, Any]:
    line: dict[str, Any] = {
        "record": "topic",
        "taken_at": when,
        "topic": topic.name,
        "topic_id": topic.topic_id,
        "internal": topic.internal,
        "partitions": partitions_to_json(topic.partitions),
        # throttles kept: drift reports the ones an apply left (planning/leftover_warnings.py)
        "overrides": dict(sorted(comparable_overrides(topic, named=OPERATIONAL_KEYS).items())),
    }
    synonyms = {
        key: [[s.name, s.value, s.source] for s in e.synonyms]
        for key, e in topic.configs
        if e.source == TOPIC_OVERRIDE and e.synonyms
    }
    if synonyms:  # what a removal falls back to (planning.configs.inherited)
        line["synonyms"] = synonyms
    reassignments = [
        {
            "partition": r.partition,
            "replicas": list(r.replicas),
            "adding": list(r.adding),
            "removing": list(r.removing),
        }
        for r in moving
    ]
    if reassignments:  # rare: left out otherwise, to keep a fleet's files small
        line["reassignments"] = reassignments
    return line


def _dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def dumps(cluster: str, state: ClusterState, taken_at: datetime | None = None) -> str:
    return "".join(f"{line}\n" for line in lines(cluster, state, taken_at))


def write(path: Path, cluster: str, state: ClusterState, taken_at: datetime | None = None) -> None:
    """Write the snapshot lines to `path` through a temporary name in the same directory, so a
    Spark job reading `*.jsonl` there never sees half a file."""
    try:
        replace_whole(path, (f"{line}\n" for line in lines(cluster, state, taken_at)))
    except OSError as exc:
        raise ConfigError(f"cannot write snapshot {path}: {exc.strerror}") from exc


def load(path: Path) -> tuple[str, datetime, ClusterState]:
    """(cluster, taken_at, state) of a snapshot-lines file, for the Python side of the fleet
    tests and benchmark. The state holds the overrides only (as DYNAMIC_TOPIC_CONFIG entries,
    canonical): enough for drift, not for `plan --state`. A ConfigError names the file and the
    line when it is not one, and when its trailer is missing or counts other topic lines than
    the file holds (a file cut short or with lines lost)."""
    cluster: str | None = None
    taken_at: datetime | None = None
    header: dict[str, Any] = {}
    trailer: dict[str, Any] | None = None
    topic_lines = 0
    topics: dict[str, TopicState] = {}
    reassignments: list[Reassignment] = []
    access: dict[str, list[dict[str, Any]]] = {}
    try:
        fix = "snapshots larger than this are not read; split the cluster's topics"
        with readable.open_text(path, readable.SNAPSHOT_CAP, "a snapshot", fix) as source:
            for number, text in enumerate(source, 1):
                if not text.strip():
                    continue
                try:
                    line = json.loads(text)
                    if line["record"] == "cluster":
                        if line["format_version"] != FORMAT_VERSION:
                            raise ValueError(f"format_version {line['format_version']!r}")
                        header = line
                        cluster = str(line["cluster"])
                        taken_at = datetime.fromisoformat(line["taken_at"])
                    elif line["record"] == "topic":
                        topic, moving = _topic(line)
                        topics[topic.name] = topic
                        reassignments.extend(moving)
                        topic_lines += 1
                    elif line["record"] in _PART_OF:
                        access.setdefault(_PART_OF[line["record"]], []).append(line)
                    elif line["record"] == TRAILER:
                        trailer = line
                    else:
                        raise ValueError(f"unknown record {line['record']!r}")
                except (ValueError, KeyError, TypeError) as exc:
                    raise ConfigError(
                        f"{path}:{number}: not a snapshot line ({type(exc).__name__} {exc})"
                    ) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read snapshot {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text: {exc}") from exc
    if cluster is None or taken_at is None:
        raise ConfigError(f"{path} has no cluster line: it is not a snapshot-lines file")
    counts = {"topics": topic_lines}
    for part in ACCESS_RECORDS:  # a part's lines all lost: its count in the trailer says so
        if part in access or (trailer is not None and part in trailer):
            counts[part] = len(access.get(part, ()))
    for counted, found in counts.items():
        if trailer is None or trailer.get(counted) != found:
            told = trailer.get(counted) if trailer is not None else None
            stated = "no trailer line" if trailer is None else f"a trailer counting {told}"
            raise ConfigError(
                f"{path} is not whole: {stated} after {found} {counted} line(s); write it again "
                "with `reconciler snapshot --format jsonl`"
            )
    state = ClusterState(
        cluster_id=header.get("cluster_id"),
        controller_id=header.get("controller_id"),
        brokers=brokers_from_json(header["brokers"]),
        topics=dict(sorted(topics.items())),
        broker_defaults={str(k): str(v) for k, v in header.get("broker_defaults", {}).items()},
        reassignments=tuple(reassignments),
        topic_config_keys=_config_keys(header.get("topic_config_keys")),
        **_access(path, header, access),
    )
    return cluster, taken_at, state


def _access(
    path: Path, header: dict[str, Any], parts: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """The access fields of the state: the header says which parts the file holds (a part it
    holds whose lines are none has no line at all)."""
    if isinstance(header.get("unread"), dict):  # the parts not said unread are held
        parts = {**{p: [] for p in ACCESS_RECORDS if p not in header["unread"]}, **parts}
    try:
        return snapshot_access.state_fields(header, parts)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(
            f"{path}: its access lines are not a snapshot's ({type(exc).__name__} {exc}); "
            "write it again with `reconciler snapshot --format jsonl`"
        ) from exc


def _config_keys(keys: object) -> frozenset[str] | None:
    """The cluster line's topic config keys; None when absent (an older file): topic lines
    hold overrides only, so they cannot tell."""
    return frozenset(str(k) for k in keys) if isinstance(keys, list) else None


def _topic(line: dict[str, Any]) -> tuple[TopicState, list[Reassignment]]:
    name = str(line["topic"])
    synonyms = line.get("synonyms", {})
    topic = TopicState(
        name=name,
        internal=bool(line.get("internal", False)),
        partitions=partitions_from_json(line["partitions"]),
        configs=tuple(
            (
                key,
                ConfigEntry(
                    str(value),
                    TOPIC_OVERRIDE,
                    synonyms=tuple(Synonym(*s) for s in synonyms.get(key, ())),
                ),
            )
            for key, value in sorted(line.get("overrides", {}).items())
        ),
        topic_id=topic_id_from_json(line.get("topic_id")),
    )
    moving = [
        Reassignment(
            name, r["partition"], tuple(r["replicas"]), tuple(r["adding"]), tuple(r["removing"])
        )
        for r in line.get("reassignments", [])
    ]
    return topic, moving


def topic_id_from_json(value: Any) -> str | None:
    """A snapshot's topic id in Kafka's form: snapshots written before reconciler printed
    Kafka's form hold the standard base64 alphabet, naming the same 16 bytes."""
    return None if value is None else topic_ids.canonical(str(value))
