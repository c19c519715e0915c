"""A topic's `access:`: who may produce to it and who may consume it (`reconciler help access`).

The values planning derives ACL bindings from (planning/acl_derivation.py), read from a topic
file after the JSON Schema pass, and the rules of the spec language about them (R8xx): a
principal is Kafka's `Type:name`, each listed once per role, and a transactional producer is
always idempotent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes
from reconciler.spec.yaml_reader import JsonPath, YamlDocument


@dataclass(frozen=True, slots=True)
class ProducerAccess:
    """One principal that writes the topic."""

    principal: str
    # Java producers are idempotent by default since Kafka 3.0: brokers before 2.8 then need
    # IdempotentWrite on the cluster (`reconciler help access`)
    idempotent: bool = True
    transactional_ids: tuple[str, ...] = ()  # literal TransactionalId resources
    transactional_id_prefixes: tuple[str, ...] = ()  # prefixed TransactionalId resources
    location: Location | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ConsumerAccess:
    """One principal that reads the topic, in the groups named (none: `assign()` only)."""

    principal: str
    groups: tuple[str, ...] = ()  # literal Group resources
    group_prefixes: tuple[str, ...] = ()  # prefixed Group resources
    location: Location | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TopicAccess:
    """A topic's `access:`; present (even empty) means the topic's literal ACLs are managed."""

    producers: tuple[ProducerAccess, ...] = ()
    consumers: tuple[ConsumerAccess, ...] = ()
    location: Location | None = field(default=None, compare=False)

    @property
    def principals(self) -> tuple[str, ...]:
        """Every principal named, in the order written, each once."""
        named = [p.principal for p in self.producers] + [c.principal for c in self.consumers]
        return tuple(dict.fromkeys(named))


def read_access(
    doc: YamlDocument, path: JsonPath, value: object, topic: str | None
) -> tuple[TopicAccess | None, list[Diagnostic]]:
    """The `access:` at `path` (a topic's, or its file's defaults), or None when the schema
    refused its shape (the schema's diagnostic names it); with the R8xx problems found."""
    if not isinstance(value, Mapping):
        return None, []
    found: list[Diagnostic] = []
    producers: list[ProducerAccess] = []
    for index, item in _items(value, "producers"):
        at: JsonPath = (*path, "producers", index)
        principal = _principal(doc, at, item, topic, found)
        if principal is None:
            continue
        ids = _names(item.get("transactional_ids"))
        prefixes = _names(item.get("transactional_id_prefixes"))
        idempotent = item.get("idempotent", True) is not False
        if not idempotent and (ids or prefixes):
            found.append(
                r_codes.TRANSACTIONAL_NOT_IDEMPOTENT(
                    f"producer {principal} of {_whose(topic)} says `idempotent: false` and "
                    "names transactional ids, but a transactional producer is always "
                    "idempotent: remove `idempotent: false`",
                    doc.key_at((*at, "idempotent")),
                    topic,
                )
            )
        producers.append(ProducerAccess(principal, idempotent, ids, prefixes, doc.value_at(at)))
    consumers: list[ConsumerAccess] = []
    for index, item in _items(value, "consumers"):
        at = (*path, "consumers", index)
        principal = _principal(doc, at, item, topic, found)
        if principal is not None:
            groups, prefixes = _names(item.get("groups")), _names(item.get("group_prefixes"))
            consumers.append(ConsumerAccess(principal, groups, prefixes, doc.value_at(at)))
    found += _repeated(doc, path, "producers", producers, topic)
    found += _repeated(doc, path, "consumers", consumers, topic)
    return TopicAccess(tuple(producers), tuple(consumers), doc.key_at(path)), found


def _items(value: Mapping[str, Any], role: str) -> list[tuple[int, Mapping[str, Any]]]:
    items = value.get(role)
    if not isinstance(items, list):
        return []
    return [(i, item) for i, item in enumerate(items) if isinstance(item, Mapping)]


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(dict.fromkeys(v for v in value if isinstance(v, str) and v))


def _whose(topic: str | None) -> str:
    return f"topic '{topic}'" if topic is not None else "the file's defaults"


def _principal(
    doc: YamlDocument,
    at: JsonPath,
    item: Mapping[str, Any],
    topic: str | None,
    found: list[Diagnostic],
) -> str | None:
    """The item's principal when it is Kafka's `Type:name` (KafkaPrincipal's form), else None
    with the problem in `found` (a missing or non-string one is the schema's)."""
    principal = item.get("principal")
    if not isinstance(principal, str) or not principal:
        return None
    if not is_principal(principal):
        found.append(
            r_codes.INVALID_PRINCIPAL(
                f"principal {principal!r} of {_whose(topic)} is not Kafka's `Type:name`: write "
                "the principal the brokers' principal builder produces, e.g. `User:billing` "
                "for a SASL or OAuth login, `User:CN=billing,O=example` for mutual TLS",
                doc.value_at((*at, "principal")),
                topic,
            )
        )
        return None
    return principal


def is_principal(text: str) -> bool:
    """Kafka's `Type:name` (KafkaPrincipal's form): a type without blanks around, a name."""
    kind, colon, name = text.partition(":")
    return bool(colon and kind.strip() and name.strip() and kind == kind.strip())


def _repeated(
    doc: YamlDocument,
    path: JsonPath,
    role: str,
    entries: list[ProducerAccess] | list[ConsumerAccess],
    topic: str | None,
) -> list[Diagnostic]:
    """A principal listed twice in one role: which entry's rights would it hold?"""
    first: dict[str, Location | None] = {}
    found: list[Diagnostic] = []
    for entry in entries:
        if entry.principal in first:
            found.append(
                r_codes.DUPLICATE_PRINCIPAL(
                    f"{entry.principal} is listed twice under access.{role} of "
                    f"{_whose(topic)} (first at {first[entry.principal]}): merge the two "
                    "entries into one",
                    entry.location or doc.value_at(path),
                    topic,
                )
            )
        else:
            first[entry.principal] = entry.location
    return found
