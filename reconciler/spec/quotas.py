"""A cluster's `quotas:` in reconciler.yaml: Kafka's client quotas (`reconciler help access`).

Each entry names one quota entity, a user, a client id or both (`<default>` is Kafka's default
entity of that type), and the quota values it has; planning compares them with what
DescribeClientQuotas answers (planning/quota_changes.py). The values are read after the JSON
Schema pass (types and bounds there); the rules of the spec language about them (R8xx) are an
entity named at all and each entity listed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes, yaml_writer
from reconciler.spec.yaml_reader import JsonPath, YamlDocument

# The quota keys Kafka knows for user and client-id entities (QuotaConfigs), as the spec,
# Kafka's requests and every output spell them
QUOTA_KEYS = (
    "producer_byte_rate",
    "consumer_byte_rate",
    "request_percentage",
    "controller_mutation_rate",
)
# Kafka's name of the default entity of a type (an entity name of null on the wire)
DEFAULT = "<default>"
EntityType = Literal["user", "client-id"]
# The spec's field of each entity type, in Kafka's order of precedence (user before client id)
ENTITY_FIELDS: tuple[tuple[str, EntityType], ...] = (("user", "user"), ("client_id", "client-id"))


@dataclass(frozen=True, slots=True)
class QuotaEntity:
    """A user, a client id or both; None: not part of the entity; DEFAULT: the default one."""

    user: str | None = None
    client_id: str | None = None

    @property
    def parts(self) -> tuple[tuple[EntityType, str | None], ...]:
        """(Kafka's entity type, its name: None for the default), user first."""
        named = ((kind, getattr(self, f)) for f, kind in ENTITY_FIELDS)
        return tuple((kind, None if name == DEFAULT else name) for kind, name in named if name)

    @property
    def order(self) -> tuple[str, str]:
        """Sorted by user, then client id (the entities without one first)."""
        return (self.user or "", self.client_id or "")

    @property
    def text(self) -> str:
        """`user=billing,client-id=<default>`: the one form every output names an entity by."""
        return ",".join(f"{kind}={name or DEFAULT}" for kind, name in self.parts)


@dataclass(frozen=True, slots=True)
class ClientQuota:
    """One entity's quota values, each key once (a key not listed has no quota)."""

    entity: QuotaEntity
    values: tuple[tuple[str, float], ...]  # sorted by key
    location: Location | None = field(default=None, compare=False)


def read_quotas(
    doc: YamlDocument, path: JsonPath, value: object, cluster: str
) -> tuple[tuple[ClientQuota, ...] | None, list[Diagnostic]]:
    """The cluster's `quotas:` at `path`, None when absent (quotas are then neither read nor
    changed), with the R8xx problems found (a shape the schema refused is left out)."""
    if not isinstance(value, list):
        return None, []
    found: list[Diagnostic] = []
    quotas: list[ClientQuota] = []
    first: dict[QuotaEntity, Location] = {}
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            continue
        at: JsonPath = (*path, index)
        names = {f: item.get(f) for f, _ in ENTITY_FIELDS}
        if not any(isinstance(n, str) and n for n in names.values()):
            found.append(
                r_codes.QUOTA_WITHOUT_ENTITY(
                    f"quota #{index + 1} of cluster {cluster} names no entity: write `user:`, "
                    f"`client_id:` or both (`{DEFAULT}` for Kafka's default of that type)",
                    doc.value_at(at),
                )
            )
            continue
        entity = QuotaEntity(*(n if isinstance(n, str) and n else None for n in names.values()))
        values = tuple(
            sorted((k, float(v)) for k, v in item.items() if k in QUOTA_KEYS and _number(v))
        )
        if entity in first:
            found.append(
                r_codes.DUPLICATE_QUOTA_ENTITY(
                    f"quota {entity.text} of cluster {cluster} is listed twice (first at "
                    f"{first[entity]}): merge the two entries into one",
                    doc.value_at(at),
                )
            )
            continue
        first[entity] = doc.value_at(at)
        quotas.append(ClientQuota(entity, values, doc.value_at(at)))
    return tuple(quotas), found


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def value_text(value: float) -> str:
    """A quota value as every output and approval says it: Kafka stores a double, a whole
    one (every byte rate) is written without its `.0`."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def shown_value(value: float | None) -> str:
    """A quota value in a plan or drift line: `(none)` for no quota."""
    return "(none)" if value is None else value_text(value)


def quotas_block(quotas: Sequence[ClientQuota]) -> str:
    """`import --quotas`: these entities' quotas as the `quotas:` entries of reconciler.yaml,
    by entity (user, then client id), a whole value without its `.0` (as `value_text`)."""
    entries = []
    for quota in sorted(quotas, key=lambda q: q.entity.order):
        entry: dict[str, object] = {
            f: getattr(quota.entity, f) for f, _ in ENTITY_FIELDS if getattr(quota.entity, f)
        }
        for key, value in quota.values:
            entry[key] = int(value) if float(value).is_integer() else value
        entries.append(entry)
    return yaml_writer.dump({"quotas": entries})
