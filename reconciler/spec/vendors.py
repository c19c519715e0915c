"""Kafka-compatible services' own topic configs: the key prefixes they document, as data.

Apache Kafka's topic configs are the catalog's (catalog.py). Some Kafka-compatible services add
topic configs of their own under a prefix of their name (`confluent.placement.constraints`,
`redpanda.remote.read`). reconciler cannot know each service's keys, versions and types, so it
does not guess: a key under one of these prefixes is a warning offline (validate's R106) and
the cluster decides at plan time, from the topic configs its own DescribeConfigs answer lists
(planning/cluster_configs.py). A key under no known prefix stays an unknown config (R105):
most are typos of an Apache key.

Each prefix names its source, the vendor's documentation of topic configs under it. Services
whose documentation lists only Apache Kafka's topic configs have no entry (Amazon MSK, Aiven,
Instaclustr, WarpStream: checked in 2026-11); `reconciler help compatibility` says so.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from reconciler.spec.catalog import java_double_str


@dataclass(frozen=True, slots=True)
class VendorPrefix:
    prefix: str  # with its trailing dot
    vendor: str  # who documents topic configs under it, as a phrase
    source: str  # where: the vendor's reference of those topic configs
    example: str  # one documented topic config under the prefix


VENDOR_PREFIXES: tuple[VendorPrefix, ...] = (
    VendorPrefix(
        "confluent.",
        "Confluent Server (Confluent Platform) and Confluent Cloud",
        "https://docs.confluent.io/platform/current/installation/configuration/topic-configs.html",
        "confluent.placement.constraints",
    ),
    VendorPrefix(
        "redpanda.",
        "Redpanda",
        "https://docs.redpanda.com/current/reference/properties/topic-properties/",
        "redpanda.remote.read",
    ),
    VendorPrefix(
        "automq.",
        "AutoMQ",
        "https://www.automq.com/docs/automq/table-topic/table-topic-configuration",
        "automq.table.topic.enable",
    ),
)

_PREFIX_CUTOFF = 0.8  # "confluemt." and "redpnada." pass; "compression." does not


def vendor_of(key: str) -> VendorPrefix | None:
    """The vendor whose documented prefix `key` starts with (exact, case-sensitive like
    Kafka's keys), or None."""
    return next((v for v in VENDOR_PREFIXES if key.startswith(v.prefix)), None)


def near_prefix(key: str) -> VendorPrefix | None:
    """A vendor prefix `key`'s first word is a likely misspelling of ("confluemt.x",
    "Confluent.x"), for "did you mean"; None when it starts with one, or is close to none."""
    head, dot, _ = key.partition(".")
    if not dot or vendor_of(key) is not None:
        return None
    words = {v.prefix[:-1]: v for v in VENDOR_PREFIXES}
    close = difflib.get_close_matches(head.lower(), list(words), n=1, cutoff=_PREFIX_CUTOFF)
    return words[close[0]] if close else None


def kafka_string(value: object) -> str:
    """A vendor config's value from a spec file as the string Kafka's protocol carries: text as
    written, true/false, integers in decimal, lists comma-joined. No unit is converted and no
    spelling normalised, as reconciler does not know the key's type: the cluster compares."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(kafka_string(v) for v in value)
    if isinstance(value, float):
        return java_double_str(value)
    return str(value)
