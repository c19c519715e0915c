"""A topic file's `acls:`: raw ACL bindings, for what a topic's `access:` does not derive
(prefixed patterns, group, cluster and transactional-id resources, DENY rules, a host).

Read after the JSON Schema pass (spec/access_schema.py's `acls_field` gives the shapes), with
the rules of the spec language about them (R8xx): a principal is Kafka's `Type:name`, the
Cluster resource has one name and no prefix, and one binding is written once.
Planning turns each entry into one binding per operation (planning/raw_acl_changes.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reconciler.diagnostics import Diagnostic, Location, did_you_mean
from reconciler.spec import r_codes
from reconciler.spec.access import is_principal
from reconciler.spec.yaml_reader import JsonPath, YamlDocument

CLUSTER_RESOURCE = "kafka-cluster"  # the one name Kafka's Cluster resource has


@dataclass(frozen=True, slots=True)
class RawAcl:
    """One `acls:` entry: `operations` on one resource pattern for one principal."""

    principal: str
    resource_type: str  # topic, group, cluster, transactional_id (the schema's enum)
    resource_name: str
    pattern: str  # literal or prefixed
    operations: tuple[str, ...]
    permission: str = "allow"
    host: str = "*"
    clusters: tuple[str, ...] | None = None  # None: every cluster
    location: Location | None = field(default=None, compare=False)

    def on(self, cluster: str) -> bool:
        return self.clusters is None or cluster in self.clusters


def read_acls(
    doc: YamlDocument, value: object, known_clusters: Collection[str] | None
) -> tuple[tuple[RawAcl, ...] | None, list[Diagnostic]]:
    """The file's `acls:` (None when the file has none), with the R8xx problems found. An entry
    whose shape the schema refused is left out (the schema's diagnostic names it)."""
    if not isinstance(value, list):
        return None, []
    found: list[Diagnostic] = []
    entries: list[RawAcl] = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            continue
        entry = _entry(doc, index, item, known_clusters, found)
        if entry is not None:
            entries.append(entry)
    return tuple(entries), found


def _entry(
    doc: YamlDocument,
    index: int,
    item: Mapping[str, Any],
    known_clusters: Collection[str] | None,
    found: list[Diagnostic],
) -> RawAcl | None:
    at: JsonPath = ("acls", index)
    principal, resource = item.get("principal"), item.get("resource")
    operations = item.get("operations")
    if not isinstance(principal, str) or not isinstance(resource, Mapping):
        return None
    if not isinstance(operations, list) or not operations:
        return None
    kind = resource.get("type")
    name = resource.get("name", CLUSTER_RESOURCE if kind == "cluster" else None)
    pattern = resource.get("pattern", "literal")
    if not isinstance(kind, str) or not isinstance(name, str) or not isinstance(pattern, str):
        return None
    ok = True
    if not is_principal(principal):
        found.append(
            r_codes.INVALID_PRINCIPAL(
                f"principal {principal!r} of acls[{index}] is not Kafka's `Type:name`: "
                "write the principal the brokers' principal builder produces, e.g. "
                "`User:billing` for a SASL or OAuth login",
                doc.value_at((*at, "principal")),
            )
        )
        ok = False
    if kind == "cluster" and (name != CLUSTER_RESOURCE or pattern != "literal"):
        found.append(
            r_codes.CLUSTER_RESOURCE_NAME(
                f"the cluster resource of acls[{index}] is `{name}` ({pattern}), but "
                f"Kafka's Cluster resource has one name, `{CLUSTER_RESOURCE}`, and no prefix: "
                "leave out `name` and `pattern`",
                doc.value_at((*at, "resource")),
            )
        )
        ok = False
    clusters = item.get("clusters")
    names = tuple(c for c in clusters if isinstance(c, str)) if isinstance(clusters, list) else None
    for number, cluster in enumerate(names or ()):
        if known_clusters is not None and cluster not in known_clusters:
            found.append(
                r_codes.UNKNOWN_CLUSTER(
                    f"cluster '{cluster}' is not defined in reconciler.yaml"
                    f"{did_you_mean(cluster, known_clusters)}; known: "
                    f"{', '.join(sorted(known_clusters)) or 'none'}",
                    doc.value_at((*at, "clusters", number)),
                )
            )
            ok = False
    if not ok:
        return None
    return RawAcl(
        principal,
        kind,
        name,
        pattern,
        tuple(dict.fromkeys(o for o in operations if isinstance(o, str))),
        str(item.get("permission", "allow")),
        str(item.get("host", "*")),
        names,
        doc.value_at(at),
    )


def repeated(entries: Sequence[RawAcl]) -> list[Diagnostic]:
    """One binding (principal, resource pattern, operation, permission, host) written twice
    among the entries one cluster gets, in one file or two: which entry would removing it
    remove? (The loader asks per cluster.)"""
    first: dict[tuple[str, ...], RawAcl] = {}
    found: list[Diagnostic] = []
    for entry in entries:
        for operation in entry.operations:
            key = (entry.principal, entry.resource_type, entry.resource_name, entry.pattern,
                   operation, entry.permission, entry.host)  # fmt: skip
            earlier = first.get(key)
            if earlier is None:
                first[key] = entry
            else:
                found.append(
                    r_codes.DUPLICATE_ACL(
                        f"{entry.principal} {entry.permission.upper()} {operation} on "
                        f"{entry.resource_type} {entry.resource_name} ({entry.pattern}) from "
                        f"{entry.host} is written twice in acls: (first at {earlier.location}): "
                        "remove one",
                        entry.location,
                    )
                )
    return found
