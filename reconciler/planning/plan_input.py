"""A saved plan file is untrusted input: its shape and every value in it are checked before the
plan is built from it, so nothing it holds reaches a request unchecked.

`check_document` raises ValueError naming the first problem by its place in the document
(`changes[3].partitions.desired: -5 is less than the minimum of 1`):

- numbers: no fractions anywhere (a plan holds whole numbers only), every integer within
  Kafka's int64 range; partitions, replication factors and broker ids within the int32/int16
  ranges and minimums schemas/plan.schema.json gives them;
- shape: the document satisfies schemas/plan.schema.json (fields, types, which fields each
  action needs);
- config values: every value a change sets is one the catalog accepts for its key (its type
  and range), as a spec's would be.

Whether the plan is the one the specs give is another question, answered at apply
(reconciler.apply.check.verify).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from reconciler.errors import InvalidConfigValue
from reconciler.planning.json_plan import FORMAT_VERSION
from reconciler.planning.targeting import scope_names
from reconciler.resources import schema_text
from reconciler.spec import catalog, vendors

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

Path = Sequence[str | int]


def place(path: Path) -> str:
    """`changes[3].partitions.desired` for ("changes", 3, "partitions", "desired")."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "the document"


def check_document(document: object) -> None:
    """Raise ValueError("<place>: <problem>") for the first problem of a saved plan document."""
    for path, value in _leaves(document, ()):
        if isinstance(value, float):
            raise ValueError(f"{place(path)}: {value!r} is not a whole number; a plan holds none")
        if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"{place(path)}: {value} is outside Kafka's int64 range")
    if isinstance(document, dict) and document.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"format_version: {document.get('format_version')!r} is not supported (this "
            f"reconciler reads {FORMAT_VERSION})"
        )
    errors = list(_validator().iter_errors(document))
    if errors:
        raise ValueError(_schema_message(best_match(errors), document))
    assert isinstance(document, dict)  # the schema requires an object
    if document.get("scoped"):  # a scoped plan's targets are exact names (targeting.py)
        scope_names(document.get("targets", ()))
    for index, change in enumerate(document["changes"]):
        for number, entry in enumerate(change.get("config", ())):
            desired = entry["desired"]
            if desired is None or vendors.vendor_of(entry["key"]) is not None:
                continue  # a vendor's key is the cluster's to judge (planning/cluster_configs)
            try:
                catalog.normalise(entry["key"], desired)
            except InvalidConfigValue as exc:
                raise ValueError(
                    f"{place(('changes', index, 'config', number, 'desired'))}: {exc}"
                ) from exc


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_text("plan.schema.json")))


def _leaves(value: object, path: tuple[str | int, ...]) -> Iterator[tuple[Path, object]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def _schema_message(error: ValidationError, document: object) -> str:
    where: list[Any] = list(error.absolute_path)
    if error.schema is False:  # a field the entry's action does not take
        # jsonschema leaves the field's name out of this error's path: find it by identity
        entry: Any = document
        for part in where:
            entry = entry[part]
        if isinstance(entry, dict):
            where += [k for k, v in entry.items() if v is error.instance][:1]
        return f"{place(where)}: not allowed here (this action does not take it)"
    message = error.message
    if isinstance(error.instance, dict | list):
        # jsonschema quotes the whole value back; the place already says which one it is
        message = message.replace(repr(error.instance), "this entry", 1)
    if len(message) > 200:
        message = message[:200] + "..."
    return f"{place(where)}: {message}"
