"""`reconciler import`: spec files for the topics a live cluster already has.

Pure: from the cluster state `read_state` returned to the texts of new topic files; the
workflow writes them (`init_repo.write_new`, which never overwrites) and plans over them to
prove the result exact. What each topic's spec says, and why:

    partitions           always: the count on the cluster
    replication_factor   the factor every partition has once any reassignment in progress
                         settles; left out when partitions differ in it (any value would plan
                         a reassignment, which import must never cause)
    config               the topic's own overrides (DYNAMIC_TOPIC_CONFIG) only, never a broker
                         or Kafka default; human units where exact (7d, 512MiB); replication
                         throttles left out (operational state a reassignment sets and removes)
    assignments          only with --keep-assignments or when the placement is visibly a
                         person's (`deliberate`): placement Kafka chose stays Kafka's, so a
                         partition increase and a rebalance (Cruise Control) are not fought
    access               only with --access, and only when every ACL on the topic is an
                         ALLOW Read or Write from any host (`access_of`): a producer per Write
                         (its transactional ids and IdempotentWrite as it holds them), a
                         consumer per Read (with the groups it may read in); anything else
                         (a DENY, a host, another operation) would be revoked by the next
                         apply, so the topic's ACLs are then left unmanaged, with a note

Files: one per name prefix (the leading letters and digits, up to the first '.', '_' or '-'),
topics sorted by name, at most MAX_TOPICS_PER_FILE per file (prefix.yaml, prefix-2.yaml, ...),
never the name of a file that exists. Topics a spec already names (a tombstone included), internal
topics, reconciler's own and policy.ignore'd ones are not imported.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler import __version__
from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.state import BrokerState, ClusterState, TopicState
from reconciler.diagnostics import Diagnostic
from reconciler.patterns import UserPattern
from reconciler.planning.diff import ignored, settled_replicas
from reconciler.spec import catalog, yaml_writer
from reconciler.spec.spelling import spec_value
from reconciler.spec.yaml_writer import Flow

MAX_TOPICS_PER_FILE = 1000  # keeps a file reviewable and far below the loader's size cap


@dataclass(frozen=True, slots=True)
class ImportedTopic:
    name: str
    spec: dict[str, Any]  # the topic's entry as it is written (name first)
    notes: tuple[str, ...] = ()  # what could not be said exactly, for the user
    kept: str | None = None  # why the spec pins the placement (`assignments`); None: it does not


@dataclass(frozen=True, slots=True)
class ImportFile:
    path: Path  # where it goes, absolute
    topics: tuple[ImportedTopic, ...]
    text: str


def select(
    state: ClusterState,
    declared: Iterable[str],
    ignore: Sequence[UserPattern],
    include: UserPattern | None = None,
    exclude: UserPattern | None = None,
    left_out: list[tuple[str, str]] | None = None,
) -> tuple[list[TopicState], list[str]]:
    """(topics to import, sorted by name; names skipped because a spec already names them).
    `left_out` gets every other topic not imported, with why: internal, ignored (policy.ignore)
    or not chosen (--include/--exclude).

    The patterns are bounded (reconciler/patterns.py): one that exceeds its bound raises
    PatternTooSlow naming it and the topic."""
    named = set(declared)
    chosen: list[TopicState] = []
    skipped: list[str] = []
    for name in sorted(state.topics):
        topic = state.topics[name]
        why = None
        if topic.internal:
            why = "internal"
        elif ignored(name, ignore):
            why = "ignored"
        elif not chooses(name, include, exclude):
            why = "not chosen"
        if why is not None:
            if left_out is not None:
                left_out.append((name, why))
            continue
        if name in named:
            skipped.append(name)
        else:
            chosen.append(topic)
    return chosen, skipped


def chooses(name: str, include: UserPattern | None, exclude: UserPattern | None) -> bool:
    """--include matches `name` (when given) and --exclude does not."""
    if include is not None and not include.search(name):
        return False
    return exclude is None or not exclude.search(name)


def chosen_bindings(
    bindings: Iterable[AclBinding],
    every: Iterable[AclBinding],
    include: UserPattern | None,
    exclude: UserPattern | None,
) -> list[AclBinding]:
    """The `bindings` `import --access --include/--exclude` writes as `acls:` entries: one on
    a topic resource when the options choose its name (a prefix's own text, `*` as written),
    as `plan --topic` does; a group, transactional-id or cluster one when its principal holds
    such a chosen topic binding among `every` (the cluster's): that principal's access to
    the chosen topics, not every team's. Without either option, all of them."""
    if include is None and exclude is None:
        return list(bindings)
    on_topic = {
        b.resource_name for b in every if b.resource_type == "topic"
    }  # each name searched once, whatever the number of principals on it
    kept = {name for name in on_topic if chooses(name, include, exclude)}
    users = {b.principal for b in every if b.resource_type == "topic" and b.resource_name in kept}
    return [
        b
        for b in bindings
        if (b.resource_name in kept if b.resource_type == "topic" else b.principal in users)
    ]


def imported_topic(
    topic: TopicState,
    state: ClusterState,
    *,
    keep_assignments: bool = False,
    access: bool = False,
) -> ImportedTopic:
    """The spec entry that describes `topic` exactly as the cluster has it; its placement only
    when `keep_assignments` or when it looks deliberate (`deliberate`)."""
    notes: list[str] = []
    spec: dict[str, Any] = {"name": topic.name, "partitions": len(topic.partitions)}
    replicas = settled_replicas(topic, state.reassignments)
    factors = sorted({len(r) for r in replicas})
    if len(factors) == 1:
        spec["replication_factor"] = factors[0]
    else:
        notes.append(
            f"partitions have {' and '.join(map(str, factors))} replicas: replication_factor "
            "is left out (any value would plan a reassignment); set one when you mean to"
        )
    config: dict[str, Any] = {}
    for key, value in sorted(topic.overrides.items()):
        if key in OPERATIONAL_KEYS:
            continue
        reason = catalog.removed_reason(key)
        if reason is not None or catalog.lookup(key) is None:
            why = reason or f"not a topic config of Kafka {catalog.KAFKA_VERSION}"
            notes.append(f"override {key}={value} left out ({why}): a plan will show its removal")
            continue
        config[key] = spec_value(key, catalog.canonical(key, value))
    if config:
        spec["config"] = config
    if access and state.acls is not None:
        said, note = access_of(topic.name, state.acls)
        if said is not None:
            spec["access"] = said
        if note is not None:
            notes.append(note)
    kept = "--keep-assignments" if keep_assignments else deliberate(replicas, state.brokers)
    if len(factors) == 1 and kept is not None:
        spec["assignments"] = [Flow(r) for r in replicas]
    return ImportedTopic(topic.name, spec, tuple(notes), kept if "assignments" in spec else None)


def access_of(topic: str, acls: ClusterAcls) -> tuple[dict[str, Any] | None, str | None]:
    """The topic's `access:` that derives exactly the literal ACLs on it (`help access`), and
    a note when they cannot be said so; (None, None) when it has none (its ACLs stay
    unmanaged, as before)."""
    mine = [b for b in acls.bindings if b.resource_type == "topic" and b.pattern_type ==
            "literal" and b.resource_name == topic]  # fmt: skip
    if not mine:
        return None, None
    odd = [b for b in mine if b.permission != "allow" or b.host != "*" or b.operation not in
           ("Read", "Write")]  # fmt: skip
    if odd:
        return None, (
            f"ACL {odd[0].text} cannot be said in `access:` (only ALLOW Read and Write from any "
            "host can): access left out, the topic's ACLs stay unmanaged"
        )

    def held(who: str, kind: str, pattern: str, operation: str) -> list[str]:
        wanted = (who, kind, pattern, operation, "allow", "*")
        return sorted(
            b.resource_name
            for b in acls.bindings
            if (b.principal, b.resource_type, b.pattern_type, b.operation, b.permission, b.host)
            == wanted
        )

    said: dict[str, Any] = {}
    producers = []
    for who in sorted({b.principal for b in mine if b.operation == "Write"}):
        entry: dict[str, Any] = {"principal": who}
        ids = held(who, "transactional_id", "literal", "Write")
        prefixes = held(who, "transactional_id", "prefixed", "Write")
        if ids:
            entry["transactional_ids"] = ids
        if prefixes:
            entry["transactional_id_prefixes"] = prefixes
        # Before Kafka 2.8 an idempotent producer holds IdempotentWrite: say what it holds
        if (
            acls.idempotent_write
            and not (ids or prefixes)
            and not held(who, "cluster", "literal", "IdempotentWrite")
        ):
            entry["idempotent"] = False
        producers.append(entry)
    consumers = []
    for who in sorted({b.principal for b in mine if b.operation == "Read"}):
        entry = {"principal": who}
        if groups := held(who, "group", "literal", "Read"):
            entry["groups"] = groups
        if prefixes := held(who, "group", "prefixed", "Read"):
            entry["group_prefixes"] = prefixes
        consumers.append(entry)
    if producers:
        said["producers"] = producers
    if consumers:
        said["consumers"] = consumers
    return said, None


def deliberate(replicas: Sequence[tuple[int, ...]], brokers: Sequence[BrokerState]) -> str | None:
    """Why a placement looks chosen by a person rather than by Kafka, or None: then the spec
    leaves placement to Kafka (no `assignments`).

    Kafka's placer is random (the start broker), so no exact test exists. What it never does,
    nor a rack-aware rebalancer (Cruise Control's RackAwareGoal), is what is judged: a
    partition on fewer racks than its replicas could use (rackless brokers count as one rack),
    and one broker leading every partition while the topic's replicas sit on several (Kafka
    stripes preferred leaders over the brokers it places). Evenness across brokers is not
    judged: a cluster that grew, a broker down at creation or a rebalance makes any placement
    uneven, and pinning those would turn every later rebalance into drift.
    """
    rack_of = {b.id: b.rack for b in brokers}
    racks = len(set(rack_of.values()))
    for index, r in enumerate(replicas):
        known = [b for b in r if b in rack_of]  # a broker not listed may just be down
        used = {rack_of[b] for b in known}
        if len(known) == len(r) and len(used) < min(len(r), racks):
            return (
                f"partition {index} has its {len(r)} replicas on {len(used)} rack(s) of "
                f"{racks}, which Kafka's rack-aware placement never does"
            )
    leaders = {r[0] for r in replicas if r}
    hosts = {b for r in replicas for b in r}
    if len(replicas) > 1 and len(leaders) == 1 and len(hosts) > 1:
        return (
            f"broker {next(iter(leaders))} leads every partition, where Kafka stripes leaders "
            "over the brokers it places replicas on"
        )
    return None


def prefix(name: str) -> str:
    """The file a topic goes to: `payments.orders.v1` -> `payments`; `other` if none."""
    match = re.match(r"[A-Za-z0-9]+", name)
    return match.group(0).lower() if match else "other"


def layout(
    topics: Sequence[ImportedTopic],
    out_dir: Path,
    cluster: str,
    *,
    clusters_field: bool,
    schema: Path | None,
    exists: Any = os.path.lexists,
    name_max: int = 255,
) -> tuple[ImportFile, ...]:
    """Group `topics` into new files under `out_dir`, named by prefix, skipping names taken.

    `clusters_field`: the repository has several clusters, so each file says which one its
    topics are for (`defaults: {clusters: [NAME]}`); `schema`: the topics JSON Schema for the
    editor modeline, if the repository has one. `name_max`: the longest file name the folder's
    file system takes (bytes): a prefix is shortened so that every name tried fits.
    """
    groups: Mapping[str, list[ImportedTopic]] = defaultdict(list)
    for topic in sorted(topics, key=lambda t: t.name):
        groups[prefix(topic.name)].append(topic)
    taken: set[Path] = set()
    files = []
    for group, members in sorted(groups.items()):
        for start in range(0, len(members), MAX_TOPICS_PER_FILE):
            chunk = tuple(members[start : start + MAX_TOPICS_PER_FILE])
            path = _free_path(out_dir, group, taken, exists, name_max)
            taken.add(path)
            text = render(chunk, cluster, clusters_field=clusters_field, schema=schema, at=path)
            files.append(ImportFile(path, chunk, text))
    return tuple(files)


def _free_path(
    out_dir: Path, group: str, taken: set[Path], exists: Any, name_max: int = 255
) -> Path:
    for number in range(1, 1_000_000):
        suffix = ".yaml" if number == 1 else f"-{number}.yaml"
        # `group` is ASCII (one byte a character), cut so the name fits; the numbered suffix
        # keeps names unique whatever the cut
        name = group[: max(1, name_max - len(suffix))] + suffix
        path = out_dir / name
        template = out_dir / f"{name}.j2"
        if path not in taken and not exists(path) and not exists(template):
            return path
    raise AssertionError("unreachable: a million files with one prefix")


def render(
    topics: Sequence[ImportedTopic],
    cluster: str,
    *,
    clusters_field: bool,
    schema: Path | None,
    at: Path,
    review: str = "# Review it (owner, keyed, protect, depends_on are yours to add), then commit.",
) -> str:
    """One topic file's text: a modeline, where it came from, then the topics."""
    header = []
    if schema is not None:
        relative = Path(os.path.relpath(schema, at.parent)).as_posix()
        header.append(f"# yaml-language-server: $schema={relative}")
    header.append(
        f"# Imported from cluster '{cluster}' by `reconciler import` (reconciler {__version__})."
    )
    header.append(review)
    document: dict[str, Any] = {}
    if clusters_field:
        document["defaults"] = {"clusters": Flow([cluster])}
    document["topics"] = [t.spec for t in topics]
    body = yaml_writer.dump(document, width=100)
    return "\n".join(header) + "\n" + body


@dataclass(frozen=True, slots=True)
class ImportRun:
    files: tuple[ImportFile, ...]  # written, in order
    skipped: tuple[str, ...]  # topics a spec already names
    # every other topic left out, with why: "internal", "ignored", "not chosen" (--include)
    left_out: tuple[tuple[str, str], ...]
    # Topics whose plan after import is not empty, or diagnostics on the written files: what
    # import could not say exactly (each explained by the topic's notes or the diagnostic)
    inexact: tuple[str, ...]
    problems: tuple[Diagnostic, ...]
    # The cluster id written into reconciler.yaml (the cluster had none); None: not written
    pinned: str | None = None
    unpinned: str | None = None  # the id to pin by hand: reconciler.yaml's layout left no line

    @property
    def topics(self) -> tuple[ImportedTopic, ...]:
        return tuple(t for f in self.files for t in f.topics)


def acl_entries(bindings: Sequence[AclBinding]) -> list[dict[str, Any]]:
    """`acls:` entries saying exactly `bindings`: one per principal, resource pattern,
    permission and host, with its operations (spec/raw_acls.py's defaults left out)."""
    grouped: dict[tuple[str, str, str, str, str, str], list[str]] = defaultdict(list)
    for b in sorted(bindings):
        key = (b.principal, b.resource_type, b.resource_name, b.pattern_type, b.permission, b.host)
        grouped[key].append(b.operation)
    entries = []
    for (principal, kind, name, pattern, permission, host), operations in grouped.items():
        resource: dict[str, Any] = {"type": kind}
        if kind != "cluster":
            resource["name"] = name
        if pattern != "literal":
            resource["pattern"] = pattern
        entry: dict[str, Any] = {"principal": principal, "resource": resource,
                                 "operations": Flow(operations)}  # fmt: skip
        if permission != "allow":
            entry["permission"] = permission
        if host != "*":
            entry["host"] = host
        entries.append(entry)
    return entries


def acls_file(
    bindings: Sequence[AclBinding],
    out_dir: Path,
    cluster: str,
    *,
    clusters_field: bool,
    schema: Path | None,
    exists: Any = os.path.lexists,
) -> ImportFile:
    """A new file (acls.yaml, or acls-2.yaml, ... when taken) with `topics: []` and the
    `acls:` entries of `bindings`; for one cluster of several, each entry says which."""
    path = _free_path(out_dir, "acls", set(), exists)
    review = (
        "# Review it: every ACL of the cluster inside policy.manage is now managed, then commit."
    )
    text = render((), cluster, clusters_field=False, schema=schema, at=path, review=review)
    entries = acl_entries(bindings)
    if clusters_field:
        entries = [{**e, "clusters": Flow([cluster])} for e in entries]
    body = yaml_writer.dump({"acls": entries}, width=100)
    return ImportFile(path, (), text + body)
