"""A seeded generator of synthetic Kafka fleets, for the fleet pipeline's tests and benchmark.

A fleet is clusters in groups (the dev, staging and prod of one set of applications): the
clusters of a group share topic names and mostly their specs, and differ where a "template
variable" (the cluster's env) makes them differ. Each cluster gets its desired state (frozen
TopicSpecs, config values canonical as the loader makes them), its ClusterConfig (KIP-578
limits, policy.ignore) and one ClusterState per snapshot date, generated as the in-sync state
plus drift injected on a schedule: each drifting topic starts on some date and keeps (or
changes, or loses) its difference for a while, so first_seen has runs to find.

Every drift kind is injected (missing, config, partitions both ways, replication_factor,
placement, present, unmanaged), and so is every rule of planning/drift_codes.py (the odd
clusters, `_Cluster.special`, hold the rarer ones: a broker down, unread spec files, an
invalid ignore pattern, the policies and limits, max_deletes, a leftover throttle,
min.insync.replicas above the broker default), besides internal topics, a Python-only
policy.ignore pattern, the `_reconciler_` prefix, throttle overrides, counts a spec leaves to
the broker, a snapshot listing no brokers, a date a cluster was not snapshot, non-canonical
values on the cluster side (`delete,compact`) and keys the catalog does not know.

    clusters(shape)        the fleet, one cluster at a time (states of all its dates)
    write(shape, d, s)     compile lines to d/NAME.jsonl, snapshot lines to
                           s/cluster=NAME/date=YYYY-MM-DD/snapshot.jsonl
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from reconciler import compile as compiler
from reconciler.cluster import jsonl
from reconciler.cluster.state import (
    TOPIC_OVERRIDE,
    BrokerState,
    ClusterState,
    ConfigEntry,
    LeftoverThrottle,
    PartitionState,
    Reassignment,
    TopicState,
)
from reconciler.diagnostics import Location
from reconciler.spec import catalog
from reconciler.spec.model import ClusterConfig, DesiredState, Limits, Policy, Presence, TopicSpec

ENVS = ("dev", "staging", "prod")
PYTHON_ONLY_IGNORE = r"^(?P<team>qa|perf)-sandbox\."  # (?P<...>) is not Java's regex syntax
INVALID_IGNORE = "^(unclosed"  # no regular expression at all: the planner skips it
DRIFT_KINDS = (
    "config_value", "config_value_changes", "config_removed", "config_extra", "config_unknown",
    "throttle", "grow", "above", "rf", "rf_moving", "placement", "missing", "collision",
    "unmanaged", "present",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Shape:
    clusters: int = 20
    topics: int = 100  # topics declared per group (a cluster gets most of them)
    dates: int = 5
    seed: int = 1
    group: int = 3  # clusters per group: dev, staging, prod
    drift_percent: float = 6.0  # topics per cluster with a drift event
    start: date = date(2026, 11, 1)
    inherited: bool = True  # also give topics inherited (non-override) config entries
    edge_cases: bool = True  # the odd clusters (2 brokers, odd broker ids, no ignore, ...)


@dataclass(frozen=True, slots=True)
class GeneratedCluster:
    config: ClusterConfig
    desired: DesiredState
    snapshots: tuple[tuple[str, ClusterState], ...]  # (YYYY-MM-DD, state), ascending


@dataclass(frozen=True, slots=True)
class Written:
    clusters: int
    snapshots: int
    topic_lines: int
    desired_lines: int


def cluster_name(index: int) -> str:
    return f"c{index:03d}-{ENVS[index % 3]}"


def clusters(shape: Shape) -> Iterator[GeneratedCluster]:
    for index in range(shape.clusters):
        yield _cluster(shape, index)


def write(shape: Shape, desired_dir: Path, snapshots_dir: Path) -> Written:
    """Write the whole fleet, one cluster at a time (memory stays one cluster's worth)."""
    count = snapshots = lines = desired_lines = 0
    for generated in clusters(shape):
        name = generated.config.name
        compiler.write(desired_dir, generated.config, generated.desired)
        desired_lines += len(generated.desired.topics) + 1
        for day, state in generated.snapshots:
            where = snapshots_dir / f"cluster={name}" / f"date={day}"
            where.mkdir(parents=True, exist_ok=True)
            jsonl.write(where / "snapshot.jsonl", name, state, taken_at(day))
            snapshots += 1
            lines += len(state.topics) + 1
        count += 1
    return Written(count, snapshots, lines, desired_lines)


def taken_at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(hour=2, tzinfo=UTC)


# ---------------------------------------------------------------------------- one cluster


@dataclass
class _Cluster:
    shape: Shape
    index: int
    rng: random.Random
    name: str = ""
    env: str = ""
    group: int = 0
    broker_ids: tuple[int, ...] = ()
    defaults: dict[str, str] = field(default_factory=dict)
    specs: dict[str, TopicSpec] = field(default_factory=dict)

    @property
    def special(self) -> int:
        """Which odd cluster this is (-1: an ordinary one); the odd ones come first."""
        return self.index if self.shape.edge_cases and self.index < 6 else -1


def _cluster(shape: Shape, index: int) -> GeneratedCluster:
    run = _Cluster(shape, index, random.Random(shape.seed * 1_000_003 + index))
    run.name = cluster_name(index)
    run.env = ENVS[index % len(ENVS)]
    run.group = index // shape.group
    count = run.rng.choice((3, 3, 4, 6))
    if run.special == 1:
        count = 2  # replication factor 3 cannot be placed: those creates are refused
    first = 101 if run.special == 2 else 1  # ids manual assignments (1, 2, 3) do not name
    run.broker_ids = tuple(range(first, first + count))
    run.defaults = {
        "num.partitions": "3",
        "default.replication.factor": str(min(3, count) if run.special != 1 else 3),
        "min.insync.replicas": "1",
    }
    ignore: tuple[str, ...] = ("^_", "^connect-")
    if run.special == 3:
        ignore = ()  # only internal topics and the reserved prefix are out of reach
    elif index % 4 == 0:
        ignore = (*ignore, PYTHON_ONLY_IGNORE)
    if run.special == 1:
        ignore = (*ignore, INVALID_IGNORE)  # skipped, and the plan says so
    limits = Limits(
        max_broker_partitions=run.rng.choice((None, 200, 400, 1000, 4000)),
        max_partitions=run.rng.choice((None, 500, 2000, 20000)),
    )
    # Tombstones: a delete the plan makes where the policy allows it, one it holds back where
    # not (drift reports both)
    policy = Policy(ignore=ignore, allow_delete=index % 2 == 0)
    if run.special == 3:
        # every create breaks each policy: a name pattern no topic matches, one partition a
        # topic, more replicas than any topic has
        policy = replace(
            policy, min_replication_factor=4, max_partitions_per_topic=1, name_pattern="^never\\."
        )
    if run.special == 4:
        policy = replace(policy, max_deletes=0)  # its one planned delete is over the limit
    run.specs = dict(_specs(run))
    # a spec file the loader did not read: the planner holds every delete back
    unread = (("topics/UPPER.YAML", "its extension is not in lower case"),)
    desired = DesiredState(
        run.name, dict(sorted(run.specs.items())), unread=unread if run.special == 0 else ()
    )
    base = _in_sync(run)
    if run.special == 3:
        # at its limits in sync: every create goes over them (the least loaded broker's
        # replicas, the cluster's partitions)
        load: dict[int, int] = dict.fromkeys(run.broker_ids, 0)
        for topic in base.values():
            for partition in topic.partitions:
                for broker in partition.replicas:
                    load[broker] += 1
        partitions = sum(len(t.partitions) for t in base.values())
        limits = Limits(max_broker_partitions=min(load.values()), max_partitions=partitions)
    config = ClusterConfig(
        run.name, "127.0.0.1:9092", limits=limits, policy=policy,
        vars={"env": run.env},
    )  # fmt: skip
    events = _events(run, base)
    days = [shape.start + timedelta(days=d) for d in range(shape.dates)]
    snapshots = []
    for number, day in enumerate(days):
        if run.special == 4 and number == 2 and shape.dates > 3:
            continue  # this cluster was not snapshot that night: runs go on across the gap
        state = _on(run, base, events, number)
        if run.special == 5 and number == 1:
            state = replace(state, brokers=())  # a partial snapshot: no brokers listed
        if run.special == 0 and number == 3:
            state = replace(state, brokers=state.brokers[:-1])  # its last broker is down
        if run.special == 3 and number == 1:
            # a throttle an apply left (its audit record is not in the snapshot file)
            left = LeftoverThrottle("apply-1", None, 1_048_576, (run.broker_ids[0],), ())
            state = replace(state, leftover_throttles=(left,))
        snapshots.append((day.isoformat(), state))
    return GeneratedCluster(config, desired, tuple(snapshots))


def _specs(run: _Cluster) -> Iterator[tuple[str, TopicSpec]]:
    shape = run.shape
    for i in range(shape.topics):
        rng = random.Random((shape.seed * 7_919 + run.group) * 1_000_003 + i)
        name = f"g{run.group:02d}.{rng.choice(('orders', 'payments', 'events', 'users'))}.t{i:05d}"
        if i % 97 == 5 and run.env != "prod":
            continue  # a per-cluster spec: prod only
        partitions: int | None = rng.choice((1, 2, 3, 3, 6, 12))
        rf: int | None = rng.choice((2, 3, 3))
        if i % 10 == 0:
            partitions = None  # left to the broker (KIP-464): never drifts
        if i % 10 == 1:
            rf = None
        if i % 10 == 2 and partitions is not None and run.env == "prod":
            partitions *= 2  # "template variable": prod has more partitions (intended)
        config: dict[str, object] = {}
        if rng.random() < 0.7:
            retention = rng.choice(("7d", "1d", "3600000"))
            if i % 10 == 3:
                retention = "30d" if run.env == "prod" else "1d"  # intended per env
            config["retention.ms"] = retention
        if rng.random() < 0.3:
            config["cleanup.policy"] = rng.choice((["delete"], ["compact"], ["compact", "delete"]))
        if rng.random() < 0.3:
            config["compression.type"] = rng.choice(("lz4", "zstd", "producer"))
        if rng.random() < 0.2 and (rf or 2) >= 2:
            config["min.insync.replicas"] = 2
        if i % 53 == 7:
            config["leader.replication.throttled.replicas"] = "0:1"  # a spec naming a throttle
        assignments = None
        if i % 25 == 9:
            assignments = tuple(
                tuple((p + r) % 3 + 1 for r in range(rf or 2)) for p in range(partitions or 2)
            )
        state = Presence.ABSENT if i % 25 == 11 else Presence.PRESENT
        location = Location(f"topics/g{run.group:02d}/f{i // 50:03d}.yaml", 3 + (i % 50) * 6, 5)
        canonical = tuple(sorted((k, catalog.normalise(k, v)) for k, v in config.items()))
        if state is Presence.ABSENT:
            yield name, TopicSpec(name, location, state=state, protect=i % 100 == 11)
            continue
        yield (
            name,
            TopicSpec(
                name, location, partitions=partitions, replication_factor=rf, config=canonical,
                keyed=i % 3 == 0, assignments=assignments,
            ),
        )  # fmt: skip
    # Specs the planner holds back: a name policy.ignore covers, one for an internal topic
    at = Location("topics/odd.yaml", 1, 5)
    yield "connect-configs", TopicSpec("connect-configs", at, partitions=1, replication_factor=1)
    yield "__consumer_offsets", TopicSpec("__consumer_offsets", at, partitions=50)
    if run.special == 2:  # assignments naming brokers this cluster lacks
        yield "odd.unknown-brokers", TopicSpec("odd.unknown-brokers", at, assignments=((1, 2),))
    if run.special == 1:  # no replication factor: the broker default (3) cannot be placed
        yield "odd.default-rf", TopicSpec("odd.default-rf", at, partitions=2)
    if run.special == 0:  # a replica on every broker: refused while one is down
        every = len(run.broker_ids)
        yield "odd.every-broker", TopicSpec("odd.every-broker", at, replication_factor=every)
    if run.special == 5:  # min.insync.replicas above the broker default replication factor
        insync = (("min.insync.replicas", "4"),)
        yield "odd.insync", TopicSpec("odd.insync", at, partitions=1, config=insync)
    vendor = ((VENDOR_KEY, VENDOR_VALUE),)
    if run.special == 2:  # a vendor's topic config this cluster knows: compared like any
        yield (
            "odd.vendor",
            TopicSpec("odd.vendor", at, partitions=1, replication_factor=1, config=vendor),
        )
    if run.special == 5:  # one it does not know: the create is refused (unknown_topic_config)
        yield (
            "odd.vendor-unknown",
            TopicSpec("odd.vendor-unknown", at, partitions=1, replication_factor=1, config=vendor),
        )


# A Kafka-compatible service's own topic config (spec/vendors.py), as a spec holds it
VENDOR_KEY = "confluent.placement.constraints"
VENDOR_VALUE = '{"version":1,"replicas":[{"count":1,"constraints":{"rack":"rack-0"}}]}'


def _config_keys(run: _Cluster, day: int) -> frozenset[str] | None:
    """The topic configs the cluster's DescribeConfigs lists: Apache Kafka's, the key the
    config_unknown event sets, and on one cluster a vendor's; on one snapshot, not recorded
    (the planner only warns then)."""
    if run.special == 5 and day == 2:
        return None
    vendor = {VENDOR_KEY} if run.special == 2 else set()
    return frozenset({*catalog.CATALOG, "x.custom.key", *vendor})


def _replicas(run: _Cluster, partitions: int, rf: int, offset: int) -> tuple[tuple[int, ...], ...]:
    ids = run.broker_ids
    return tuple(
        tuple(ids[(p + r + offset) % len(ids)] for r in range(rf)) for p in range(partitions)
    )


def _topic(
    run: _Cluster,
    name: str,
    replicas: Sequence[Sequence[int]],
    overrides: dict[str, str],
    internal: bool = False,
) -> TopicState:
    partitions = tuple(
        PartitionState(p, r[0] if r else None, tuple(r), tuple(r)) for p, r in enumerate(replicas)
    )
    configs = {k: ConfigEntry(v, TOPIC_OVERRIDE) for k, v in overrides.items()}
    if run.shape.inherited:
        for key in ("retention.ms", "segment.bytes", "cleanup.policy"):
            configs.setdefault(key, ConfigEntry(catalog.CATALOG[key].default, "DEFAULT_CONFIG"))
    return TopicState(name, internal, partitions, tuple(sorted(configs.items())), f"id-{name}")


def _raw(key: str, value: str) -> str:
    """A value as Kafka might return it: cleanup.policy in another order, still equivalent."""
    if key == "cleanup.policy" and "," in value:
        return ",".join(reversed(value.split(",")))
    return value


def _in_sync(run: _Cluster) -> dict[str, TopicState]:
    """The state a successful apply leaves: every present spec that can be created, plus
    topics outside the specs (internal, ignored, reserved, some unmanaged)."""
    topics: dict[str, TopicState] = {}
    known = set(run.broker_ids)
    for offset, (name, spec) in enumerate(sorted(run.specs.items())):
        if spec.state is Presence.ABSENT or name in ("connect-configs", "__consumer_offsets"):
            continue
        if name in ("odd.every-broker", "odd.vendor-unknown"):
            continue  # never created: refused while a broker is down, or the key unknown
        if spec.assignments:
            if not {b for r in spec.assignments for b in r} <= known:
                continue  # the create is refused: the topic never came to be
            replicas: Sequence[Sequence[int]] = spec.assignments
        else:
            count = spec.partitions or int(run.defaults["num.partitions"])
            rf = spec.replication_factor or int(run.defaults["default.replication.factor"])
            if rf > len(run.broker_ids):
                continue  # refused likewise
            replicas = _replicas(run, count, rf, offset)
        overrides = {k: _raw(k, v) for k, v in spec.config}
        topics[name] = _topic(run, name, replicas, overrides)
    rf = min(3, len(run.broker_ids))
    topics["__consumer_offsets"] = _topic(
        run, "__consumer_offsets", _replicas(run, 10, rf, 0), {"cleanup.policy": "compact"}, True
    )
    for name in ("_schemas", "connect-offsets", "_reconciler_lock", "qa-sandbox.load-test"):
        topics[name] = _topic(run, name, _replicas(run, 1, 1, 0), {})
    # Unmanaged topics: one per cluster, one shared by the group (settings differing by
    # cluster, so consistency compares them under "no spec")
    topics[f"scratch.{run.name}"] = _topic(run, f"scratch.{run.name}", _replicas(run, 1, 1, 0), {})
    shared = f"g{run.group:02d}.shared-unmanaged"
    topics[shared] = _topic(
        run, shared, _replicas(run, 2, 1, 0), {"retention.ms": str(3_600_000 * (1 + run.index % 2))}
    )
    return topics


@dataclass(frozen=True, slots=True)
class _Event:
    kind: str
    topic: str
    start: int  # first date index showing it
    end: int  # first date index no longer showing it


def _events(run: _Cluster, base: dict[str, TopicState]) -> list[_Event]:
    """Which topics drift, how, and over which dates; every kind at least once per cluster."""
    rng = run.rng
    dates = run.shape.dates
    managed = sorted(n for n, s in run.specs.items() if s.state is Presence.PRESENT and n in base)
    events: list[_Event] = []

    def window() -> tuple[int, int]:
        start = rng.randrange(dates)
        return start, min(dates, start + rng.randint(1, dates))

    def pick(fits: Callable[[str], bool] | None = None) -> str | None:
        choices = [n for n in managed if fits is None or fits(n)]
        return rng.choice(choices) if choices else None

    wanted = max(len(DRIFT_KINDS), int(len(managed) * run.shape.drift_percent / 100))
    for number in range(wanted):
        kind = DRIFT_KINDS[number % len(DRIFT_KINDS)] if number < len(DRIFT_KINDS) else None
        kind = kind or rng.choice(DRIFT_KINDS)
        topic: str | None
        if kind == "placement":
            topic = pick(lambda n: bool(run.specs[n].assignments))
        elif kind == "grow":
            topic = pick(lambda n: bool(run.specs[n].partitions) and len(base[n].partitions) > 1)
        elif kind == "above":
            topic = pick(lambda n: run.specs[n].partitions is not None)
        elif kind in ("rf", "rf_moving"):
            topic = pick(lambda n: len(base[n].partitions[0].replicas) >= 2)
        elif kind == "config_removed":
            topic = pick(lambda n: bool(run.specs[n].config))
        elif kind == "present":
            absent = [n for n, s in run.specs.items() if s.state is Presence.ABSENT]
            topic = rng.choice(sorted(absent)) if absent else None
        elif kind == "collision":
            topic = pick(lambda n: "." in n)
        else:
            topic = pick()
        if topic is not None:
            start, end = window()
            events.append(_Event(kind, topic, start, end))
            if rng.random() < 0.2 and end + 1 < dates:  # the same difference comes back later
                events.append(_Event(kind, topic, end + 1, dates))
    if run.special in (0, 4):
        # a tombstone's topic back on every date, one `protect` does not hold: a delete held
        # back for the unread file (0), a delete over max_deletes (4)
        open_ = sorted(
            n for n, s in run.specs.items() if s.state is Presence.ABSENT and not s.protect
        )
        if open_:
            events.append(_Event("present", open_[0], 0, dates))
    return events


def _on(run: _Cluster, base: dict[str, TopicState], events: list[_Event], day: int) -> ClusterState:
    topics = dict(base)
    reassignments: list[Reassignment] = []
    for event in events:
        if not event.start <= day < event.end:
            continue
        name = event.topic
        current = topics.get(name)
        if event.kind == "present":
            topics[name] = _topic(run, name, _replicas(run, 1, 1, 0), {})
            continue
        if event.kind == "unmanaged":
            stray = f"stray.{name}"
            topics[stray] = _topic(run, stray, _replicas(run, 1, 1, 0), {})
            continue
        if current is None:
            continue  # another event removed it today
        overrides = current.overrides
        if event.kind == "missing":
            del topics[name]
        elif event.kind == "collision":
            del topics[name]
            twin = name[::-1].replace(".", "_", 1)[::-1]  # a.b.c -> a.b_c: Kafka refuses a.b.c
            topics[twin] = _topic(run, twin, _replicas(run, 1, 1, 0), {})
        elif event.kind in ("config_value", "config_value_changes"):
            value = "3600000" if overrides.get("retention.ms") != "3600000" else "7200000"
            if event.kind == "config_value_changes" and day > event.start:
                value = "10800000"  # a new difference from the second day on: a new run
            topics[name] = _with_overrides(run, current, {**overrides, "retention.ms": value})
        elif event.kind == "config_removed":
            first = sorted(overrides)[0] if overrides else None
            trimmed = {k: v for k, v in overrides.items() if k != first}
            topics[name] = _with_overrides(run, current, trimmed)
        elif event.kind == "config_extra":
            topics[name] = _with_overrides(run, current, {**overrides, "segment.ms": "600000"})
        elif event.kind == "config_unknown":
            topics[name] = _with_overrides(run, current, {**overrides, "x.custom.key": "Value"})
        elif event.kind == "throttle":
            # a reassignment's throttle: not drift, unless the spec names the key
            extra = {"leader.replication.throttled.replicas": "0:1,1:2",
                     "follower.replication.throttled.replicas": "*"}  # fmt: skip
            topics[name] = _with_overrides(run, current, {**overrides, **extra})
        elif event.kind == "grow":
            topics[name] = replace(current, partitions=current.partitions[:-1] or ())
        elif event.kind == "above":
            extra_partition = _replicas(run, 1, len(current.partitions[0].replicas), day)[0]
            added = PartitionState(
                len(current.partitions), extra_partition[0], extra_partition, extra_partition
            )
            topics[name] = replace(current, partitions=(*current.partitions, added))
        elif event.kind in ("rf", "rf_moving"):
            shrunk = tuple(
                replace(p, replicas=p.replicas[:-1], isr=p.isr[:-1]) for p in current.partitions
            )
            topics[name] = replace(current, partitions=shrunk)
            if event.kind == "rf_moving":  # partition 0 moving back: the planner waits for it
                back = current.partitions[0].replicas[-1]
                moving = (*shrunk[0].replicas, back)
                reassignments.append(Reassignment(name, 0, moving, (back,), ()))
        elif event.kind == "placement":
            swapped = tuple(
                replace(p, replicas=tuple(reversed(p.replicas))) if p.partition == 0 else p
                for p in current.partitions
            )
            topics[name] = replace(current, partitions=swapped)
    return ClusterState(
        cluster_id=f"id-{run.name}",
        controller_id=run.broker_ids[0],
        brokers=tuple(
            BrokerState(b, f"broker-{b}.{run.name}", 9092, f"rack-{b % 3}") for b in run.broker_ids
        ),
        topics=dict(sorted(topics.items())),
        broker_defaults=dict(run.defaults),
        reassignments=tuple(reassignments),
        topic_config_keys=_config_keys(run, day),
    )


def _with_overrides(run: _Cluster, topic: TopicState, overrides: dict[str, str]) -> TopicState:
    inherited = {k: e for k, e in topic.configs if e.source != TOPIC_OVERRIDE}
    configs = {**inherited, **{k: ConfigEntry(v, TOPIC_OVERRIDE) for k, v in overrides.items()}}
    return replace(topic, configs=tuple(sorted(configs.items())))
