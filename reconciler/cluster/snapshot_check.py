"""A snapshot file held to its schema (schemas/snapshot.schema.json) before `plan --state`
plans against it: a file that is not what `reconciler snapshot` writes is refused, never
planned (a `topics` of `{}` would otherwise read as an empty cluster and plan every spec as a
create).

The schema says the shape; rules it cannot say are checked here too: every topic has at
least one partition (Kafka has no topic without), no topic appears twice, and each access part
is either held or said unread (`access_mismatch`). The topics are
checked one at a time as the loader streams them (jsonschema-rs, compiled), so a
100,000-topic file is never held whole.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from reconciler.cluster.state import ACCESS_PARTS, ACLS
from reconciler.resources import schema_text

SCHEMA = "snapshot.schema.json"


class InvalidSnapshot(ValueError):
    """What makes the document not a snapshot, as a phrase for the loader's one sentence."""


@cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text(SCHEMA))
    return loaded


@cache
def _topic_schema() -> dict[str, Any]:
    schema = _schema()
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/topic"}


@cache
def _fast(which: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(_topic_schema() if which == "topic" else _schema())


def _first_error(validator: Any, instance: object, prefix: str = "") -> str:
    """The error nearest the top of `instance`, as `path: message`."""
    error = min(validator.iter_errors(instance), key=lambda e: len(e.instance_path))
    path = prefix + "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.instance_path
    )
    return f"{path.lstrip('.') or 'the document'}: {_short(error.message)}"


def _short(message: str) -> str:
    """jsonschema-rs quotes the whole offending value: keep a line of it."""
    return message if len(message) <= 200 else message[:200] + "…"


def check_document(document: dict[str, Any], topics_read: bool) -> None:
    """Everything but the topics (`topics_read`: the loader streamed them, each checked by
    `check_topic`; else `topics` is not an array and is checked here too)."""
    head = {**document, "topics": []} if topics_read else document
    if not _fast("document").is_valid(head):
        raise InvalidSnapshot(_first_error(_fast("document"), head))
    if (odd := access_mismatch(document)) is not None:
        raise InvalidSnapshot(odd)


def access_mismatch(head: dict[str, Any]) -> str | None:
    """What the schema cannot say of a header and its access parts, as a phrase; None when
    they agree: with `unread` (a file that records access), each part is either held or said
    unread, and held ACLs say `acls_idempotent_write`; without it (an older file), no part
    is held."""
    held = [part for part in ACCESS_PARTS if part in head]
    if "unread" not in head:
        return f"{', '.join(held)} without `unread` (the parts read)" if held else None
    unread = head["unread"]
    for part in ACCESS_PARTS:
        if (part in held) == (part in unread):
            said = "held and said unread" if part in held else "neither held nor said unread"
            return f"the access part `{part}` is {said}"
    if ACLS in held and "acls_idempotent_write" not in head:
        return "`acls` without `acls_idempotent_write`"
    return None


class TopicChecker:
    """Each topic of one file, in file order: the schema, a partition at least, once only."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, raw: object) -> None:
        index = len(self._seen)
        if not _fast("topic").is_valid(raw):
            raise InvalidSnapshot(_first_error(_fast("topic"), raw, f"topics[{index}]"))
        assert isinstance(raw, dict)  # the schema says so
        name = raw["name"]
        if not raw["partitions"]:
            raise InvalidSnapshot(
                f"topics[{index}] ('{name}') has no partitions, and a Kafka topic has at least one"
            )
        first = self._seen.setdefault(name, index)
        if first != index:
            raise InvalidSnapshot(f"topic '{name}' appears twice (topics[{first}] and [{index}])")
