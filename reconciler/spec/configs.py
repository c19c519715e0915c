"""A topic file's `config:` map checked against the catalog and turned into canonical values.

Each key is looked up in the catalog of Kafka's topic configs (catalog.py): a key Kafka 4 removed
is R102, any other unknown key R105, a value Kafka would refuse R101. The messages are the
catalog's own (`unknown_key_message`, and the `InvalidConfigValue` of `normalise`), so validate,
plan and the docs say the same thing about the same key.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Location
from reconciler.errors import InvalidConfigValue
from reconciler.spec import catalog, rules
from reconciler.spec.yaml_reader import JsonPath, YamlDocument
from reconciler.spec.yaml_scalars import oversized

_SCALAR = (str, int, float, bool)


@dataclass(frozen=True, slots=True)
class ConfigEntry:
    """One config setting in Kafka's canonical form, and where it was written."""

    value: str
    location: Location


def read_config(
    doc: YamlDocument, path: JsonPath, raw: object, topic: str | None
) -> tuple[dict[str, ConfigEntry], list[Diagnostic]]:
    """The accepted entries of the config map at `path` by key, and the problems of the others.

    `topic` None means the file's defaults. A value that is not a scalar or a list of scalars is
    left out without a word: the JSON Schema pass reports its type.
    """
    if not isinstance(raw, dict):
        return {}, []
    entries: dict[str, ConfigEntry] = {}
    found: list[Diagnostic] = []
    for key, value in raw.items():
        if catalog.lookup(key) is None:
            known_once = catalog.removed_reason(key) is not None
            rule = rules.REMOVED_CONFIG if known_once else rules.UNKNOWN_CONFIG
            found.append(rule(catalog.unknown_key_message(key), doc.key_at((*path, key)), topic))
            continue
        well_typed = isinstance(value, _SCALAR) or (
            isinstance(value, list) and all(isinstance(v, _SCALAR) for v in value)
        )
        if (
            not well_typed
            or oversized(value)
            or (isinstance(value, list) and any(oversized(v) for v in value))
        ):
            continue  # the schema (wrong type) or the reader (R016) said so
        value_at = doc.value_at((*path, key))
        try:
            entries[key] = ConfigEntry(catalog.normalise(key, value), value_at)
        except InvalidConfigValue as exc:
            found.append(rules.INVALID_CONFIG_VALUE(str(exc), value_at, topic))
    return entries, found
