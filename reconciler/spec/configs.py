"""A topic file's `config:` map checked against the catalog and turned into canonical values.

Each key is looked up in the catalog of Kafka's topic configs (catalog.py): a key Kafka 4 removed
is R102, a value Kafka would refuse R101. A key outside the catalog under a Kafka-compatible
service's prefix (vendors.py: `confluent.`, `redpanda.`, ...) is R106, a warning: its value is
kept as Kafka's protocol carries it and `plan` asks the cluster whether it has the key
(planning/cluster_configs.py). Any other unknown key is R105, and so is a vendor-prefixed key
close to an Apache key ("confluent.retention.ms" is a typo before it is a vendor config). The
messages are the catalog's own (`unknown_key_message`, and the `InvalidConfigValue` of
`normalise`), so validate, plan and the docs say the same thing about the same key.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.diagnostics import Diagnostic, Location
from reconciler.errors import InvalidConfigValue
from reconciler.spec import catalog, r_codes, vendors
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
        vendor = vendor_key(key)
        if catalog.lookup(key) is None and vendor is None:
            known_once = catalog.removed_reason(key) is not None
            rule = r_codes.REMOVED_CONFIG if known_once else r_codes.UNKNOWN_CONFIG
            found.append(rule(unknown_message(key), doc.key_at((*path, key)), topic))
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
        if vendor is not None:
            key_at = doc.key_at((*path, key))
            found.append(r_codes.VENDOR_CONFIG(vendor_message(key, vendor), key_at, topic))
            entries[key] = ConfigEntry(vendors.kafka_string(value), value_at)
            continue
        try:
            entries[key] = ConfigEntry(catalog.normalise(key, value), value_at)
        except InvalidConfigValue as exc:
            found.append(r_codes.INVALID_CONFIG_VALUE(str(exc), value_at, topic))
    return entries, found


def vendor_key(key: str) -> vendors.VendorPrefix | None:
    """The vendor a key outside the catalog belongs to, if plan should ask the cluster about
    it: under a known prefix, and not a likely misspelling of an Apache key."""
    if catalog.lookup(key) is not None or catalog.suggest(key) is not None:
        return None
    if _apache_twin(key) is not None:
        return None
    return vendors.vendor_of(key)


def _apache_twin(key: str) -> str | None:
    """The Apache key a vendor-prefixed one merely prefixes ("confluent.retention.ms" for
    retention.ms): no vendor documents such a key, so it is a mistake, not a vendor config."""
    vendor = vendors.vendor_of(key)
    rest = key[len(vendor.prefix) :] if vendor is not None else None
    return rest if rest is not None and catalog.lookup(rest) is not None else None


def unknown_message(key: str) -> str:
    """R102/R105's sentence: the catalog's, or for a vendor prefix in front of an Apache key,
    that key, or for a misspelt vendor prefix, the prefix."""
    twin = _apache_twin(key)
    if twin is not None:
        return f"unknown topic config '{key}' (did you mean '{twin}'?)"
    near = vendors.near_prefix(key)
    if near is None or catalog.suggest(key) is not None or catalog.removed_reason(key):
        return catalog.unknown_key_message(key)
    return (
        f"unknown topic config '{key}' (did you mean '{near.prefix}', the prefix of the topic "
        f"configs of {near.vendor}?)"
    )


def vendor_message(key: str, vendor: vendors.VendorPrefix) -> str:
    """R106's sentence."""
    return (
        f"topic config '{key}' is not one of Apache Kafka's: '{vendor.prefix}' prefixes the "
        f"topic configs of {vendor.vendor}, so `reconciler plan` asks the cluster whether it "
        "has this key (an Apache Kafka cluster has none of them)"
    )
