"""The Spark job against the Python planner on a generated fleet, row for row.

20 clusters x 5 dates, every drift kind injected along with every rule of the planner's list of
rules that hold a change back or mark drift (planning/drift_codes.py; bench/fleet_gen.py). For
each cluster and date, the job's drift rows must equal what `reconciler.planning.drift.drift`
reports over `make_plan` for that cluster's desired state and that date's state, in the same
words (blocked items included): what `reconciler drift` prints, less the blocked items of the
rules the job leaves to the planner (fleet/drift_columns.py PLANNER_ONLY). first_seen, the broker
load and the consistency table are checked against plain-Python computations over the same fleet.
"""

from __future__ import annotations

import datetime
import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from bench import fleet_gen
from reconciler import compile as compiler
from reconciler.cluster import jsonl
from reconciler.cluster.overrides import OPERATIONAL_KEYS
from reconciler.cluster.state import TopicState
from reconciler.fleet import job
from reconciler.fleet.drift_columns import PLANNER_ONLY
from reconciler.patterns import UserPattern, problem
from reconciler.planning import p_codes, placement
from reconciler.planning.diff import ignored
from reconciler.planning.drift import KINDS, drift
from reconciler.planning.drift_codes import DRIFT_RULES
from reconciler.planning.plan import make_plan
from reconciler.spec import catalog
from reconciler.spec.model import Presence

SHAPE = fleet_gen.Shape(clusters=20, topics=40, dates=5, seed=7)

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Fleet:
    generated: tuple[fleet_gen.GeneratedCluster, ...]
    out: Path  # Path() where the tables are rows of a shared job (tables_of)
    tables: dict[str, list[dict[str, Any]]]
    summary: str


def tables_of(
    tables: dict[str, list[dict[str, Any]]], generated: Iterable[fleet_gen.GeneratedCluster]
) -> dict[str, list[dict[str, Any]]]:
    """The rows of `generated`'s clusters in each of the job's tables."""
    names = {g.config.name for g in generated}
    return {name: [r for r in rows if r["cluster"] in names] for name, rows in tables.items()}


@pytest.fixture(scope="module")
def fleet(together: OneJob) -> Fleet:
    """SHAPE's clusters and their rows of the one job (the `together` fixture, below)."""
    generated = tuple(fleet_gen.clusters(SHAPE))
    return Fleet(generated, Path(), tables_of(together.tables, generated), together.summary)


def python_drift(fleet: Fleet) -> dict[tuple[str, str], set[Row]]:
    """(cluster, date) -> the planner's drift items, as the table's columns, less the blocked
    items of the rules the job leaves to the planner (their reasons: fleet/drift_columns.py)."""
    found: dict[tuple[str, str], set[Row]] = {}
    for g in fleet.generated:
        for day, state in g.snapshots:
            report = drift(make_plan(g.desired, state, g.config, based_on=""), g.desired, state)
            found[(g.config.name, day)] = {
                (i.topic, i.field, i.desired, i.current, i.kind,
                 *((i.location.file, i.location.line, i.location.column) if i.location
                   else (None, None, None)))
                for i in report.items
                if i.kind != "blocked" or i.field not in PLANNER_ONLY
            }  # fmt: skip
    return found


@pytest.fixture(scope="module")
def planned(fleet: Fleet) -> dict[tuple[str, str], set[Row]]:
    """python_drift(fleet), computed once for the tests that compare with it."""
    return python_drift(fleet)


def spark_drift(fleet: Fleet) -> dict[tuple[str, str], set[Row]]:
    found: dict[tuple[str, str], set[Row]] = defaultdict(set)
    for r in fleet.tables["drift"]:
        found[(r["cluster"], str(r["date"]))].add(
            (r["topic"], r["field"], r["desired"], r["actual"], r["kind"], r["file"], r["line"],
             r["column"])
        )  # fmt: skip
    return found


def unexercised(generated: Iterable[fleet_gen.GeneratedCluster]) -> list[str]:
    """The listed rules (planning/drift_codes.py) of which the planner's output over the fleet
    shows no case: a diagnostic of the rule, and where the rule shows in drift, an item of
    that kind (blocked: with the rule's name as its field)."""
    rules_seen: Counter[str] = Counter()
    shown: set[tuple[str, str]] = set()
    for g in generated:
        for _, state in g.snapshots:
            plan = make_plan(g.desired, state, g.config, based_on="")
            rules_seen.update(d.rule for d in plan.diagnostics)
            shown |= {(i.kind, i.field) for i in drift(plan, g.desired, state).items}
    missing = []
    for entry in DRIFT_RULES:
        name = entry.rule.name
        if entry.shows == "blocked":
            found = ("blocked", name) in shown
        elif entry.shows is not None:
            found = rules_seen[name] > 0 and any(kind == entry.shows for kind, _ in shown)
        else:
            found = rules_seen[name] > 0
        if not found:
            missing.append(name)
    return missing


def test_the_fleet_exercises_every_kind_and_every_listed_rule(
    fleet: Fleet, planned: dict[tuple[str, str], set[Row]]
) -> None:
    assert len(fleet.generated) >= 20
    assert all(len(g.snapshots) >= 4 for g in fleet.generated)
    assert sum(len(g.snapshots) == SHAPE.dates for g in fleet.generated) >= 19
    kinds = Counter(item[4] for items in planned.values() for item in items)
    assert set(kinds) == set(KINDS), kinds
    assert unexercised(fleet.generated) == []
    # the job's own table holds a blocked row of each rule it computes
    blocked = {r["field"] for r in fleet.tables["drift"] if r["kind"] == "blocked"}
    computed = {e.rule.name for e in DRIFT_RULES if e.shows == "blocked"} - set(PLANNER_ONLY)
    assert blocked == computed, (computed - blocked, blocked - computed)


def test_drift_rows_equal_the_python_planner_for_every_cluster_and_date(
    fleet: Fleet, planned: dict[tuple[str, str], set[Row]]
) -> None:
    expected = planned
    got = spark_drift(fleet)
    assert set(got) <= set(expected), set(got) - set(expected)
    differences = {
        key: (sorted(expected[key] - got.get(key, set()), key=str),
              sorted(got.get(key, set()) - expected[key], key=str))
        for key in expected
        if expected[key] != got.get(key, set())
    }  # fmt: skip
    assert not differences, f"(python only, spark only) per (cluster, date): {differences}"
    assert sum(len(v) for v in expected.values()) > 500  # a fleet with plenty of drift


def test_first_seen_is_the_start_of_the_unbroken_run_of_snapshots(
    fleet: Fleet, planned: dict[tuple[str, str], set[Row]]
) -> None:
    expected = planned
    first_seen: dict[tuple[str, str, Row], tuple[str, bool]] = {}
    for g in fleet.generated:
        days = [day for day, _ in g.snapshots]
        for index, day in enumerate(days):
            for item in expected[(g.config.name, day)]:
                start = index
                while start > 0 and item in expected[(g.config.name, days[start - 1])]:
                    start -= 1
                first_seen[(g.config.name, day, item[:5])] = (days[start], start == 0)
    got = {
        (r["cluster"], str(r["date"]),
         (r["topic"], r["field"], r["desired"], r["actual"], r["kind"])):
        (str(r["first_seen"]), r["from_first_snapshot"])
        for r in fleet.tables["drift"]
    }  # fmt: skip
    assert got == first_seen
    # runs that start after the first date, and runs that break and start again, are there
    later = [k for k, (seen, _) in got.items() if seen != k[1] and seen != str(SHAPE.start)]
    assert later
    assert any(first == str(SHAPE.start) for first, _ in got.values())


def test_unmanaged_table_lists_the_unmanaged_drift_rows_with_their_shape(fleet: Fleet) -> None:
    rows = fleet.tables["unmanaged"]
    from_drift = {
        (r["cluster"], r["date"], r["topic"], r["first_seen"])
        for r in fleet.tables["drift"]
        if r["kind"] == "unmanaged"
    }
    assert {(r["cluster"], r["date"], r["topic"], r["first_seen"]) for r in rows} == from_drift
    states = {(g.config.name, day): s for g in fleet.generated for day, s in g.snapshots}
    for r in rows:
        topic = states[(r["cluster"], str(r["date"]))].topics[r["topic"]]
        assert (r["partitions"], r["replication_factor"]) == (
            len(topic.partitions),
            topic.replication_factor,
        )


def test_broker_load_counts_every_replica_as_the_planner_does(fleet: Fleet) -> None:
    expected: dict[tuple[str, str, int], int] = {}
    partitions: dict[tuple[str, str], int] = {}
    limits: dict[str, tuple[int | None, int | None]] = {}
    for g in fleet.generated:
        limits[g.config.name] = (g.config.limits.max_broker_partitions,
                                 g.config.limits.max_partitions)  # fmt: skip
        for day, state in g.snapshots:
            for broker, count in placement.replica_load(state).items():
                expected[(g.config.name, day, broker)] = count
            partitions[(g.config.name, day)] = sum(len(t.partitions) for t in state.topics.values())
    rows = fleet.tables["broker_load"]
    got = {(r["cluster"], str(r["date"]), r["broker"]): r["replicas"] for r in rows}
    assert got == expected
    for r in rows:
        assert r["cluster_partitions"] == partitions[(r["cluster"], str(r["date"]))]
        assert (r["max_broker_partitions"], r["max_partitions"]) == limits[r["cluster"]]
        if r["max_broker_partitions"]:  # Spark rounds half up
            share = Decimal(r["replicas"] * 100) / Decimal(r["max_broker_partitions"])
            assert r["broker_percent"] == float(share.quantize(Decimal("0.1"), ROUND_HALF_UP))
    # the trend: a change from the previous snapshot on every row but each broker's first
    by_broker: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_broker[(r["cluster"], r["broker"])].append(r)
    for history in by_broker.values():
        history.sort(key=lambda r: r["date"])
        assert history[0]["replicas_change"] is None
        for before, after in itertools.pairwise(history):
            assert after["replicas_change"] == after["replicas"] - before["replicas"]


def said(managed: bool, value: object) -> str:
    """What the specs say about a field, as the consistency groups compare it."""
    if not managed:
        return "no spec"
    return "unset" if value is None else f"={value}"


def python_consistency(fleet: Fleet) -> set[Row]:
    """The consistency rule in plain Python: group each (date, topic, field) by what the specs
    say, report every member whose actual value some member of its group does not share."""
    values: dict[tuple[str, str, str], list[tuple[str, str, str | None]]] = defaultdict(list)
    for g in fleet.generated:
        # a pattern that is no regular expression is skipped, as the planner skips it
        patterns = [
            UserPattern(p, "policy.ignore") for p in g.config.policy.ignore if problem(p) is None
        ]
        for day, state in g.snapshots:
            for name, topic in state.topics.items():
                spec = g.desired.topics.get(name)
                if topic.internal or ignored(name, patterns):
                    continue
                if spec is not None and spec.state is Presence.ABSENT:
                    continue
                wanted = dict(spec.config) if spec is not None else {}
                overrides = {
                    k: catalog.canonical(k, v)
                    for k, v in topic.overrides.items()
                    if k in wanted or k not in OPERATIONAL_KEYS
                }
                manual = spec.assignments if spec is not None else None
                want_count = (
                    (spec.partitions or (len(manual) if manual else None)) if spec else None
                )
                want_rf = (spec.replication_factor or (len(manual[0]) if manual else None)
                           if spec else None)  # fmt: skip

                managed = spec is not None
                fields: dict[str, tuple[str, str | None]] = {
                    "partitions": (said(managed, want_count), str(len(topic.partitions))),
                    "replication_factor": (said(managed, want_rf), str(topic.replication_factor)),
                }
                for k in wanted.keys() | overrides.keys():
                    fields[f"config.{k}"] = (said(managed, wanted.get(k)), overrides.get(k))
                for field, (says, actual) in fields.items():
                    values[(day, name, field)].append((g.config.name, says, actual))
    # a config key one member lacks entirely: that member holds no override and no spec value
    found: set[Row] = set()
    present: dict[tuple[str, str], list[str]] = defaultdict(list)
    for (day, name, field), members in values.items():
        if field == "partitions":
            present[(day, name)] = [m[0] for m in members]
    for (day, name, field), members in list(values.items()):
        if not field.startswith("config."):
            continue
        have = {m[0] for m in members}
        for g in fleet.generated:
            cluster = g.config.name
            if cluster in present[(day, name)] and cluster not in have:
                spec = g.desired.topics.get(name)
                members.append((cluster, "no spec" if spec is None else "unset", None))
    for (day, name, field), members in values.items():
        if len(present[(day, name)]) < 2:
            continue
        for cluster, says, value in members:
            group = [m for m in members if m[1] == says]
            if any(m[2] != value for m in group):
                found.add((day, name, field, cluster, value))
    return found


def test_consistency_reports_differences_the_specs_do_not_intend(fleet: Fleet) -> None:
    got = {
        (str(r["date"]), r["topic"], r["field"], r["cluster"], r["actual"])
        for r in fleet.tables["consistency"]
    }
    expected = python_consistency(fleet)
    assert got == expected, (sorted(expected - got)[:10], sorted(got - expected)[:10])
    assert len(got) > 20
    for r in fleet.tables["consistency"]:
        assert r["same"] < r["clusters"] and r["differs_from"]
        assert r["cluster"] not in r["differs_from"]

    # An intended difference (prod's doubled partitions, a template variable's doing) is
    # never reported between prod and the others, though their partition counts do differ.
    def prod(cluster: str) -> bool:
        return cluster.endswith("-prod")

    doubled = [
        r for r in fleet.tables["consistency"]
        if r["field"] == "partitions" and int(r["topic"].rsplit(".t", 1)[1]) % 10 == 2
    ]  # fmt: skip
    assert all(prod(o) == prod(r["cluster"]) for r in doubled for o in r["differs_from"])
    counts = {
        (g.config.name, day, name): len(t.partitions)
        for g in fleet.generated
        for day, state in g.snapshots
        for name, t in state.topics.items()
        if ".t" in name and int(name.rsplit(".t", 1)[1]) % 10 == 2
    }
    assert any(
        n != m
        for (a, day, name), n in counts.items()
        for (b, other_day, other), m in counts.items()
        if prod(a) and not prod(b) and (day, name) == (other_day, other)
    )


def test_summary_counts_each_clusters_drift_on_its_latest_snapshot(
    fleet: Fleet, planned: dict[tuple[str, str], set[Row]]
) -> None:
    expected = planned
    for g in fleet.generated:
        day, _ = g.snapshots[-1]
        items = expected[(g.config.name, day)]
        assert f"| {g.config.name} | {day} | {len(items):,} | " in fleet.summary
    assert "Bad input lines: none." in fleet.summary


# The three cases below are clusters of their own in the job over SHAPE's fleet (the
# `together` fixture): the job's drift rows of a cluster are computed from that cluster's
# inputs alone, which each test's comparison with the planner would show otherwise. Each
# case's dates are its own (SHAPE's are November's), so that no cluster meets another
# case's, or SHAPE's, in a group of the consistency table.
SIZES = fleet_gen.Shape(
    clusters=1, topics=150, dates=2, seed=11, edge_cases=False, start=datetime.date(2026, 10, 1)
)
TWICE = fleet_gen.Shape(
    clusters=1, topics=60, dates=1, seed=11, edge_cases=False, start=datetime.date(2026, 10, 10)
)
# A longer history than one word of bits holds (drift.prepare keeps the snapshots each topic
# was seen in as bits, 63 to a long): 70 dates, with drift on the later ones; all in the past,
# since the job counts a date after its own run as a bad input
LONG = fleet_gen.Shape(
    clusters=3, topics=30, dates=70, seed=4, drift_percent=40.0, start=datetime.date(2026, 1, 1)
)


def renamed(g: fleet_gen.GeneratedCluster, name: str) -> fleet_gen.GeneratedCluster:
    """`g` under another cluster name and id: SHAPE, SIZES, TWICE and LONG all generate
    c000-dev."""
    states = tuple((day, replace(state, cluster_id=f"id-{name}")) for day, state in g.snapshots)
    return replace(g, config=replace(g.config, name=name), snapshots=states)


def write_cluster(root: Path, g: fleet_gen.GeneratedCluster) -> None:
    """`g`'s desired state and every snapshot of it, as fleet_gen.write writes a fleet's."""
    compiler.write(root / "desired", g.config, g.desired)
    for when, snapshot in g.snapshots:
        where = root / "snapshots" / f"cluster={g.config.name}" / f"date={when}"
        where.mkdir(parents=True)
        jsonl.write(where / "snapshot.jsonl", g.config.name, snapshot, fleet_gen.taken_at(when))


@dataclass(frozen=True)
class Sizes:
    """Partitions of differing sizes: the cluster as read, and the topics made uneven."""

    cluster: fleet_gen.GeneratedCluster
    counted: list[str]
    manual: list[str]


def uneven_sizes(root: Path) -> Sizes:
    """Partitions of one topic with differing replica counts: the generator never makes them,
    so here they are made, on a topic with a replication factor in its spec and on two with
    manual assignments (one also grown past them)."""
    (g,) = fleet_gen.clusters(SIZES)
    g = renamed(g, "sizes-dev")
    day, state = g.snapshots[-1]
    specs = g.desired.topics

    def fits(name: str, manual: bool) -> bool:
        spec, topic = specs.get(name), state.topics.get(name)
        return (
            spec is not None and topic is not None and len(topic.partitions) >= 2
            and len(topic.partitions[1].replicas) >= 2
            and (bool(spec.assignments) if manual else spec.replication_factor is not None
                 and not spec.assignments)
        )  # fmt: skip

    counted = [n for n in sorted(state.topics) if fits(n, manual=False)][:1]
    manual = [n for n in sorted(state.topics) if fits(n, manual=True)][:2]
    assert len(counted) == 1 and len(manual) == 2, (counted, manual)

    def uneven(topic: TopicState, grown: bool) -> TopicState:
        first, second, *rest = topic.partitions
        second = replace(second, replicas=second.replicas[:-1], isr=second.isr[:-1])
        if not grown:
            return replace(topic, partitions=(first, second, *rest))
        # a partition beyond the assignments as well: the ones they cover, compared for
        # placement, then hold one replica fewer than the partitions' most
        added = replace(rest[-1] if rest else first, partition=len(topic.partitions))
        return replace(topic, partitions=(first, second, *rest, added))

    topics = dict(state.topics)
    for name, grown in ((counted[0], False), (manual[0], False), (manual[1], True)):
        topics[name] = uneven(topics[name], grown)
    changed = replace(g, snapshots=(*g.snapshots[:-1], (day, replace(state, topics=topics))))
    write_cluster(root, changed)
    return Sizes(changed, counted, manual)


@dataclass(frozen=True)
class Twice:
    """A key named twice: the cluster as the planner reads the edited file, the topics
    edited, and the state before the edit."""

    cluster: fleet_gen.GeneratedCluster
    edited: dict[str, str]
    before: fleet_gen.GeneratedCluster


def named_twice(root: Path) -> Twice:
    """A snapshot line naming a key twice: an override key twice in its object, a partition
    twice among a topic's reassignments. Each first value is chosen to change the outcome."""
    (g,) = fleet_gen.clusters(TWICE)
    g = renamed(g, "twice-dev")
    day, _ = g.snapshots[-1]
    write_cluster(root, g)
    path = root / "snapshots" / f"cluster={g.config.name}" / f"date={day}" / "snapshot.jsonl"

    specs = g.desired.topics
    lines = path.read_text().splitlines()
    twice = {"overrides": "", "reassignments": ""}
    for n, line in enumerate(lines):
        record = json.loads(line)
        spec = specs.get(record.get("topic", ""))
        if record.get("record") != "topic" or spec is None:
            continue
        if not twice["overrides"] and record["overrides"]:
            key, value = next(iter(record["overrides"].items()))
            head = json.dumps({key: f"{value}-first"})[:-1]  # '{"key": "value-first"'
            text = json.dumps(record["overrides"])
            lines[n] = json.dumps(record).replace(text, f"{head}, {text[1:]}", 1)
            twice["overrides"] = record["topic"]
        elif not twice["reassignments"] and spec.replication_factor == len(
            record["partitions"][0]["replicas"]
        ):
            replicas = record["partitions"][0]["replicas"]
            grown = [*replicas, max(replicas) + 1000]  # settles one replica over the spec
            record["reassignments"] = [
                {"partition": 0, "replicas": grown, "adding": grown[-1:], "removing": []},
                {"partition": 0, "replicas": replicas, "adding": [], "removing": []},
            ]
            lines[n] = json.dumps(record)
            twice["reassignments"] = record["topic"]
    assert all(twice.values()), twice
    path.write_text("\n".join(lines) + "\n")
    _, _, state = jsonl.load(path)  # the planner's reading of the same file
    return Twice(replace(g, snapshots=((day, state),)), twice, g)


@dataclass(frozen=True)
class Cases:
    sizes: Sizes
    twice: Twice
    long: tuple[fleet_gen.GeneratedCluster, ...]
    drift: list[dict[str, Any]]  # the one job's drift table, every case's clusters

    def fleet(self, generated: Iterable[fleet_gen.GeneratedCluster]) -> Fleet:
        """The job's drift rows of `generated`'s clusters, as a Fleet of their own."""
        clusters = tuple(generated)
        return Fleet(clusters, Path(), tables_of({"drift": self.drift}, clusters), "")


@dataclass(frozen=True)
class OneJob:
    """The job's tables (as rows) and summary.md over SHAPE's fleet and the three cases."""

    tables: dict[str, list[dict[str, Any]]]
    summary: str
    cases: Cases


@pytest.fixture(scope="module")
def together(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> OneJob:
    """SHAPE's fleet and the three cases' clusters, one job over them all: a job on the
    session costs some 35 to 45 CPU s of planning and compiling whatever its rows
    (docs/testing.md, "One job where one does"). The cases' clusters have names and dates of
    their own, so no (date, topic) group of the consistency table mixes them with SHAPE's
    clusters, and each test reads its own clusters' rows."""
    root = tmp_path_factory.mktemp("fleet")
    fleet_gen.write(SHAPE, root / "desired", root / "snapshots")
    sizes, twice = uneven_sizes(root), named_twice(root)
    long = tuple(renamed(g, f"long-{g.config.name}") for g in fleet_gen.clusters(LONG))
    for g in long:
        write_cluster(root, g)
    out = root / "out"
    job.run(spark, str(root / "desired"), str(root / "snapshots"), str(out))
    tables = {
        name: [r.asDict() for r in spark.read.parquet(str(out / name)).collect()]
        for name in job.TABLES
    }
    cases = Cases(sizes, twice, long, tables["drift"])
    return OneJob(tables, (out / "summary.md").read_text(), cases)


@pytest.fixture(scope="module")
def cases(together: OneJob) -> Cases:
    return together.cases


def test_partitions_of_differing_sizes_drift_as_the_planner_says(cases: Cases) -> None:
    """The job tells partitions of differing sizes apart without a lambda per partition
    (drift._count_items) and compares placement on the listed partitions
    (drift._placement_item): both must say what the planner says."""
    sizes = cases.sizes
    g = sizes.cluster
    day, _ = g.snapshots[-1]
    fleet = cases.fleet((g,))
    expected, got = python_drift(fleet), spark_drift(fleet)
    assert got == expected
    on_day = {(item[0], item[4]) for item in expected[(g.config.name, day)]}
    assert (sizes.counted[0], "replication_factor") in on_day, on_day
    assert {name for name, _ in on_day} >= set(sizes.manual), on_day


def test_a_key_named_twice_in_a_snapshot_is_read_as_the_planner_reads_it(cases: Cases) -> None:
    """A snapshot line naming a key twice. Kafka never answers so, a hand-edited or foreign
    file may; the planner's dicts keep the last, and so must the job (Spark's default fails
    the whole job on the first such map: DUPLICATED_MAP_KEY). A job keeping the first value,
    or failing, fails this."""
    twice = cases.twice
    edited = twice.edited
    before = twice.before.snapshots[-1][1]
    state = twice.cluster.snapshots[-1][1]
    assert (
        state.topics[edited["overrides"]].overrides == before.topics[edited["overrides"]].overrides
    )
    fleet = cases.fleet((twice.cluster,))
    assert spark_drift(fleet) == python_drift(fleet)
    # the last values won: the edited topics drift no more than they did before the edit
    drifting = {r["topic"] for r in fleet.tables["drift"]} & set(edited.values())
    g = twice.before
    unedited = drift(make_plan(g.desired, before, g.config, based_on=""), g.desired, before)
    assert drifting == {i.topic for i in unedited.items} & set(edited.values())


def test_a_history_of_over_63_snapshots_matches_the_planner_on_every_date(cases: Cases) -> None:
    long = cases.fleet(cases.long)
    expected = {key: items for key, items in python_drift(long).items() if items}
    assert dict(spark_drift(long)) == expected
    # the later dates, past the first word, hold what the bits decide: missing topics, and
    # creates refused for a '.'/'_' collision with a topic the cluster holds
    late = {
        (g.config.name, day): make_plan(g.desired, state, g.config, based_on="")
        for g in long.generated
        for day, state in g.snapshots[63:]
    }
    assert any(item[4] == "missing" for key in late for item in expected.get(key, ()))
    assert any(
        d.rule == p_codes.TOPIC_COLLISION.name for plan in late.values() for d in plan.diagnostics
    )
