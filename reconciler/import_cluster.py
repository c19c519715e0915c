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
    assignments          only when the placement is not one Kafka's placer would choose
                         (`kafka_would_place`), so rebalanced clusters do not pin every replica

Files: one per name prefix (the leading letters and digits, up to the first '.', '_' or '-'),
topics sorted by name, at most MAX_TOPICS_PER_FILE per file (prefix.yaml, prefix-2.yaml, ...),
never the name of a file that exists. Topics a spec already names (a tombstone included), internal
topics, reconciler's own and policy.ignore'd ones are not imported.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reconciler import __version__
from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.cluster.state import BrokerState, ClusterState, TopicState
from reconciler.errors import InvalidConfigValue
from reconciler.patterns import UserPattern
from reconciler.planning.diff import ignored, settled_replicas
from reconciler.spec import catalog
from reconciler.spec.catalog import ConfigType
from reconciler.spec.units import format_duration_ms, format_size_bytes
from reconciler.spec.yaml_scalars import core_value

MAX_TOPICS_PER_FILE = 1000  # keeps a file reviewable and far below the loader's size cap


@dataclass(frozen=True, slots=True)
class ImportedTopic:
    name: str
    spec: dict[str, Any]  # the topic's entry as it is written (name first)
    notes: tuple[str, ...] = ()  # what could not be said exactly, for the user


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
) -> tuple[list[TopicState], list[str]]:
    """(topics to import, sorted by name; names skipped because a spec already names them).

    The patterns are bounded (reconciler/patterns.py): one that exceeds its bound raises
    PatternTooSlow naming it and the topic."""
    named = set(declared)
    chosen: list[TopicState] = []
    skipped: list[str] = []
    for name in sorted(state.topics):
        topic = state.topics[name]
        if topic.internal or ignored(name, ignore):
            continue
        if include is not None and not include.search(name):
            continue
        if exclude is not None and exclude.search(name):
            continue
        if name in named:
            skipped.append(name)
        else:
            chosen.append(topic)
    return chosen, skipped


def imported_topic(topic: TopicState, state: ClusterState) -> ImportedTopic:
    """The spec entry that describes `topic` exactly as the cluster has it."""
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
    if len(factors) == 1 and not kafka_would_place(replicas, state.brokers):
        spec["assignments"] = [_Flow(r) for r in replicas]
    return ImportedTopic(topic.name, spec, tuple(notes))


def kafka_would_place(replicas: Sequence[tuple[int, ...]], brokers: Sequence[BrokerState]) -> bool:
    """Whether a placement looks like one Kafka's own placer (KRaft's StripedReplicaPlacer)
    makes, so the spec can leave it to Kafka.

    The placer is random, so no exact answer exists; it does promise, per request: each
    partition on as many racks as it can (rackless brokers are one rack), and preferred leaders
    and replicas striped evenly over the brokers. A placement is judged Kafka's when it keeps the
    rack promise and no broker leads or hosts more than one above an even share: topics grown in
    several steps pass, leaders stacked on one broker or replicas crowded on one rack do not.
    """
    if not replicas or not brokers:
        return True
    rack_of = {b.id: b.rack for b in brokers}
    if any(broker not in rack_of for r in replicas for broker in r):
        return False  # on a broker the cluster no longer lists: someone placed it by hand
    racks = len(set(rack_of.values()))
    for r in replicas:
        if len({rack_of[b] for b in r}) < min(len(r), racks):
            return False
    count = len(brokers)
    leaders = Counter(r[0] for r in replicas if r)
    hosted = Counter(b for r in replicas for b in r)
    fair_leaders = math.ceil(len(replicas) / count) + 1
    fair_hosted = math.ceil(sum(hosted.values()) / count) + 1
    return max(leaders.values(), default=0) <= fair_leaders and max(hosted.values()) <= fair_hosted


def spec_value(key: str, value: str) -> Any:
    """How a spec writes canonical `value` of `key`: a human unit where exact (`7d`,
    `512MiB`), a YAML number or boolean where the type is one, else Kafka's string. Each form is
    checked to normalise back to `value`, so the spec means exactly what the cluster has."""
    defn = catalog.lookup(key)
    candidates: list[Any] = []
    if defn is not None:
        number = _int(value)
        special = dict(defn.special_values)
        if defn.unit is not None and number is not None and number > 0 and number not in special:
            human = format_duration_ms(number) if defn.unit == "ms" else format_size_bytes(number)
            if human != value:  # a size no unit divides stays a number
                candidates.append(human)
        if defn.type in (ConfigType.INT, ConfigType.LONG) and number is not None:
            candidates.append(number)
        elif defn.type is ConfigType.BOOLEAN and value in ("true", "false"):
            candidates.append(value == "true")
        elif defn.type is ConfigType.DOUBLE:
            with contextlib.suppress(ValueError):
                candidates.append(float(value))
    for candidate in candidates:
        try:
            if catalog.normalise(key, candidate) == value:
                return candidate
        except InvalidConfigValue:
            continue
    return value


def _int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
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
) -> str:
    """One topic file's text: a modeline, where it came from, then the topics."""
    header = []
    if schema is not None:
        relative = Path(os.path.relpath(schema, at.parent)).as_posix()
        header.append(f"# yaml-language-server: $schema={relative}")
    header.append(
        f"# Imported from cluster '{cluster}' by `reconciler import` (reconciler {__version__})."
    )
    header.append("# Review it (owner, keyed, protect, depends_on are yours to add), then commit.")
    document: dict[str, Any] = {}
    if clusters_field:
        document["defaults"] = {"clusters": _Flow([cluster])}
    document["topics"] = [t.spec for t in topics]
    body = yaml.dump(document, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=100)
    return "\n".join(header) + "\n" + body


class _Flow(list[Any]):
    """A list written inline (`[1, 2, 3]`): replica lists and cluster names read best so."""


class _Dumper(yaml.SafeDumper):
    """Block style with sequences indented under their key, as people write YAML."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _flow(dumper: yaml.SafeDumper, data: _Flow) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """PyYAML quotes what YAML 1.1 would misread; specs are read as YAML 1.2, which misreads
    other plain words (a topic named `08` or `1e5`): quote those too."""
    node = dumper.represent_str(data)
    if core_value(data) != data:
        node.style = "'"
    return node


_Dumper.add_representer(_Flow, _flow)
_Dumper.add_representer(str, _text)
