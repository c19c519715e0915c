"""Snapshot files: a cluster's state as JSON (schemas/snapshot.schema.json, format_version 1).

`reconciler snapshot` writes one; `plan --state FILE` plans against it offline, and gets the
same plan as against the live cluster it came from, because both go through `ClusterState`.
The access parts (ACLs, client quotas, SCRAM credentials without secrets) are
snapshot_access.py's. Configs are stored as `key: [value, source]` (plus `true` when
sensitive) to keep files of tens of thousands of topics small; an override also carries the
synonyms Kafka listed after it, `[value, source, false, [[name, value, source], ...]]` (what
its removal falls back to).
`write_snapshot` also writes the fleet pipeline's JSON Lines form (reconciler.cluster.jsonl)
for a `.jsonl` name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from reconciler import gcpause, readable
from reconciler.atomic_write import replace_whole
from reconciler.cluster import jsonl, snapshot_access, snapshot_check, snapshot_header
from reconciler.cluster.snapshot_header import header
from reconciler.cluster.state import (
    ACCESS_PARTS,
    ClusterState,
    ConfigEntry,
    Reassignment,
    Synonym,
    TopicState,
    listed_config_keys,
)
from reconciler.errors import ConfigError

FORMAT_VERSION = snapshot_header.FORMAT_VERSION


def to_json(cluster: str, state: ClusterState, taken_at: datetime | None = None) -> dict[str, Any]:
    return {
        **header(cluster, state, snapshot_header.taken_at(taken_at), fenced=True),
        "topics": [_topic_json(t) for _, t in sorted(state.topics.items())],
        **_after_topics(state),
    }


def _after_topics(state: ClusterState) -> dict[str, Any]:
    return {
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
        **snapshot_access.records(state),
    }


def _topic_json(topic: TopicState) -> dict[str, Any]:
    return {
        "name": topic.name,
        "topic_id": topic.topic_id,
        "internal": topic.internal,
        "partitions": jsonl.partitions_to_json(topic.partitions),
        "configs": {key: _entry_json(e) for key, e in topic.configs},
    }


def _entry_json(e: ConfigEntry) -> list[Any]:
    if e.synonyms:
        return [e.value, e.source, e.sensitive, [[s.name, s.value, s.source] for s in e.synonyms]]
    return [e.value, e.source, True] if e.sensitive else [e.value, e.source]


def from_json(document: dict[str, Any]) -> tuple[str, ClusterState]:
    """(cluster name, state); a KeyError/TypeError/ValueError means the file is not a snapshot."""
    _check_version(document)
    shared: _Shared = {}
    return _state(document, [_topic(t, shared) for t in document["topics"]])


def _check_version(document: dict[str, Any]) -> None:
    if document.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"format_version {document.get('format_version')!r} is not {FORMAT_VERSION}"
        )


def _state(document: dict[str, Any], topics: list[TopicState]) -> tuple[str, ClusterState]:
    state = ClusterState(
        cluster_id=document.get("cluster_id"),
        controller_id=document.get("controller_id"),
        brokers=jsonl.brokers_from_json(document["brokers"]),
        topics=dict(sorted((t.name, t) for t in topics)),
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
        fenced=_fenced(document),
        topic_config_keys=_keys(document, topics),
        **snapshot_access.state_fields(
            document, {part: document[part] for part in ACCESS_PARTS if part in document}
        ),
    )
    return str(document["cluster"]), state


def _keys(document: dict[str, Any], topics: list[TopicState]) -> frozenset[str] | None:
    """The topic configs the cluster knew: as recorded, else (a snapshot written before they
    were) what its topics' configs list, which is the same answer."""
    if "topic_config_keys" not in document:
        return listed_config_keys(topics)
    keys = document["topic_config_keys"]
    return frozenset(str(k) for k in keys) if keys is not None else None


def _fenced(document: dict[str, Any]) -> tuple[int, ...] | None:
    """null: the cluster could not show fenced brokers; absent (older snapshots): none known."""
    listed = document.get("fenced_brokers", ())
    return None if listed is None else tuple(listed)


_Shared = dict[tuple[str, object, object, bool, object], tuple[str, ConfigEntry]]


def _topic(t: dict[str, Any], shared: _Shared) -> TopicState:
    """A topic of the snapshot. Its config entries are shared with every topic that has the
    same key, value and source (most are inherited defaults): 100,000 topics carry 3.5 million
    entries but a few hundred distinct ones."""
    name = t["name"]  # first: a topic that is not an object fails here, with a TypeError
    configs: list[tuple[str, ConfigEntry]] = []
    for key, entry in sorted(t.get("configs", {}).items()):
        sensitive = len(entry) > 2 and bool(entry[2])
        synonyms = tuple(Synonym(*s) for s in entry[3]) if len(entry) > 3 else ()
        memo = (key, entry[0], entry[1], sensitive, synonyms)
        pair = shared.get(memo)
        if pair is None:
            pair = shared[memo] = (key, ConfigEntry(entry[0], entry[1], sensitive, synonyms))
        configs.append(pair)
    return TopicState(
        name=name,
        internal=bool(t.get("internal", False)),
        partitions=jsonl.partitions_from_json(t["partitions"]),
        configs=tuple(configs),
        topic_id=jsonl.topic_id_from_json(t.get("topic_id")),
    )


def dumps(cluster: str, state: ClusterState) -> str:
    return "".join(pieces(cluster, state))


def pieces(cluster: str, state: ClusterState, taken_at: datetime | None = None) -> Iterator[str]:
    """The text `json.dumps(to_json(...), indent=1)` gives, and a newline, a topic at a time:
    the whole document at once held a second copy of the state and its text besides (a
    snapshot of 30,000 topics peaked at 699 MiB against the plan's 315-395)."""
    head = header(cluster, state, snapshot_header.taken_at(taken_at), fenced=True)
    parts = [*head.items(), ("topics", None), *_after_topics(state).items()]
    yield "{"
    for number, (key, value) in enumerate(parts):
        yield f"{',' if number else ''}\n {json.dumps(key)}: "
        if key != "topics":
            yield _nested(value, 1)
        elif not state.topics:
            yield "[]"
        else:
            yield "["
            for index, (_, topic) in enumerate(sorted(state.topics.items())):
                yield f"{',' if index else ''}\n  {_nested(_topic_json(topic), 2)}"
            yield "\n ]"
    yield "\n}\n"


def _nested(value: object, depth: int) -> str:
    """`value` as json.dumps(..., indent=1) writes it `depth` levels down."""
    return json.dumps(value, indent=1).replace("\n", "\n" + " " * depth)


def write_snapshot(path: Path, cluster: str, state: ClusterState, fmt: str | None = None) -> None:
    """Write a snapshot file: JSON (this module's form, what `plan --state` reads) or, with
    `fmt="jsonl"` or by default for a name ending in `.jsonl`, the JSON Lines form the fleet
    pipeline reads (reconciler.cluster.jsonl), so `drift --snapshot-out night.jsonl` feeds it."""
    if (fmt or ("jsonl" if path.suffix == jsonl.SUFFIX else "json")) == "jsonl":
        jsonl.write(path, cluster, state)
        return
    try:
        replace_whole(path, pieces(cluster, state))
    except OSError as exc:
        raise ConfigError(f"cannot write snapshot {path}: {exc.strerror}") from exc


def load_snapshot(path: Path) -> tuple[str, ClusterState]:
    """Read a snapshot file; anything unreadable is a ConfigError naming the file.

    The topics are read one at a time from the text (`_scan`), each turned into its TopicState
    at once: parsing the whole document first would hold every topic's JSON objects, about
    five times the file's size (910 MiB for a 187 MiB snapshot of 100,000 topics)."""
    shared: _Shared = {}
    checked = snapshot_check.TopicChecker()  # the schema, one topic at a time

    def topic(raw: dict[str, Any]) -> TopicState:
        checked(raw)
        return _topic(raw, shared)

    text = readable.read_text(
        path,
        readable.SNAPSHOT_CAP,
        "a snapshot",
        "snapshots larger than this are not read; plan against the live cluster instead",
    )
    try:
        with gcpause.paused():
            document = _scan(text, topic)
        del text
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not a snapshot: not valid JSON ({exc}); write one with "
            "`reconciler snapshot --cluster NAME -o FILE`"
        ) from exc
    try:
        if not isinstance(document, dict):
            raise TypeError("not a JSON object")
        _check_version(document)
        topics = document.get("topics")
        snapshot_check.check_document(document, isinstance(topics, _Topics))
        assert isinstance(topics, _Topics)  # the schema: an array, so _scan read it
        if topics.bad is not None:
            raise topics.bad
        return _state(document, topics)
    except snapshot_check.InvalidSnapshot as exc:
        raise ConfigError(
            f"{path} is not a valid reconciler snapshot: {exc}; write one with "
            "`reconciler snapshot --cluster NAME -o FILE`"
        ) from exc
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return _not_a_snapshot(path, exc)


def _not_a_snapshot(path: Path, exc: Exception) -> NoReturn:
    raise ConfigError(
        f"{path} is not a reconciler snapshot (format_version {FORMAT_VERSION}): "
        f"{type(exc).__name__} {exc}; write one with "
        "`reconciler snapshot --cluster NAME -o FILE`"
    ) from exc


class _Topics(list[TopicState]):
    """The topics `_scan` read, already TopicStates; `bad`: why the first that is not a topic
    is not (json.loads would read the whole text first, so a JSON error later on wins)."""

    bad: Exception | None = None


_SPACE = re.compile(r"[ \t\n\r]*")


def _scan(text: str, topic: Callable[[dict[str, Any]], TopicState]) -> Any:
    """The JSON document in `text`, as json.loads reads it, except that the top-level
    "topics" array, when it is one, comes back as a _Topics of `topic(each element)`, each
    element decoded and converted in turn. A text whose top level is not an object is left
    to json.loads."""
    decoder = json.JSONDecoder()

    def skip(at: int) -> int:
        match = _SPACE.match(text, at)
        return match.end() if match is not None else at

    at = skip(0)
    if text[at : at + 1] != "{":
        return json.loads(text)
    document: dict[str, Any] = {}
    at = skip(at + 1)
    if text[at : at + 1] == "}":
        at += 1
    else:
        while True:
            if text[at : at + 1] != '"':
                raise json.JSONDecodeError(
                    "Expecting property name enclosed in double quotes", text, at
                )
            key, at = decoder.raw_decode(text, at)
            at = skip(at)
            if text[at : at + 1] != ":":
                raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
            at = skip(at + 1)
            if key == "topics" and text[at : at + 1] == "[":
                document[key], at = _scan_topics(text, skip(at + 1), decoder, skip, topic)
            else:
                document[key], at = decoder.raw_decode(text, at)
            at = skip(at)
            if text[at : at + 1] == ",":
                at = skip(at + 1)
                continue
            if text[at : at + 1] == "}":
                at += 1
                break
            raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    if skip(at) != len(text):
        raise json.JSONDecodeError("Extra data", text, skip(at))
    return document


def _scan_topics(
    text: str,
    at: int,
    decoder: json.JSONDecoder,
    skip: Callable[[int], int],
    topic: Callable[[dict[str, Any]], TopicState],
) -> tuple[_Topics, int]:
    """The elements of the array starting at `at` (just after its '['), each converted."""
    topics = _Topics()
    if text[at : at + 1] == "]":
        return topics, at + 1
    while True:
        raw, at = decoder.raw_decode(text, at)
        if topics.bad is None:  # after a bad topic, only whether the rest is JSON matters
            try:
                topics.append(topic(raw))
            except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
                topics.bad = exc
        at = skip(at)
        if text[at : at + 1] == ",":
            at = skip(at + 1)
            continue
        if text[at : at + 1] == "]":
            return topics, at + 1
        raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
