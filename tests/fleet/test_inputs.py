"""Bad input is counted in the summary, never fatal; a later snapshot of a day supersedes an
earlier one; --since prunes dates; a missing directory is a one-line error before Spark starts."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from bench import fleet_gen
from reconciler.cluster import jsonl
from reconciler.errors import ReconcilerError
from reconciler.fleet import inputs, job
from reconciler.fleet.inputs import InputError
from reconciler.fleet.summary import FleetResult
from tests.fleet.conftest import CLEAN, LIGHT_CONF
from tests.spec_repo import run_cli

SHAPE = CLEAN  # the `clean` fixture's fleet (conftest.py)
TINY = dataclasses.replace(CLEAN, clusters=2, dates=2)  # inputs for a CLI run to fail on


def whole(lines: list[str]) -> str:
    """A snapshot file's text: `lines` (its cluster line first, then anything) and the trailer
    that proves them whole, counting every line after the cluster line."""
    header = json.loads(lines[0].lstrip("\ufeff"))
    count = sum(1 for line in lines[1:] if line.strip())
    trailer = {"record": "end", "taken_at": header["taken_at"], "cluster": header["cluster"],
               "cluster_id": header.get("cluster_id"), "topics": count}  # fmt: skip
    return "\n".join([*lines, json.dumps(trailer)]) + "\n"


def with_lines(lines: list[str], extra: list[str]) -> str:
    """A written snapshot's `lines` (trailer last) with `extra` before a trailer counting them."""
    assert json.loads(lines[-1])["record"] == "end"
    return whole([*lines[:-1], *extra])


def drift_rows(spark: SparkSession, out: Path) -> set[tuple[Any, ...]]:
    return {
        (r["cluster"], str(r["date"]), r["topic"], r["field"], r["desired"], r["actual"],
         r["kind"], str(r["first_seen"]))
        for r in spark.read.parquet(str(out / "drift")).collect()
    }  # fmt: skip


BAD_LINES = {
    ("desired", "malformed"): 1,
    ("desired", "duplicate"): 1,
    ("desired", "no cluster line"): 1,
    ("desired", "bad topic name"): 1,
    ("snapshots", "bad topic name"): 3,
    ("snapshots", "malformed"): 2,
    ("snapshots", "unknown record"): 1,
    ("snapshots", "incomplete"): 2,
    ("snapshots", "no cluster line"): 2,  # the stray file's topic, the 2020 topic
    ("snapshots", "duplicate"): 1,
    ("snapshots", "bad date directory"): 3,
    ("snapshots", "cluster mismatch"): 1,
    ("snapshots", "format_version"): 1,
}
ANOTHER_ID = ("snapshots", "cluster id mismatch")


def _spoil_with_bad_lines(root: Path) -> int:
    """Bad lines of every kind in the first cluster's first snapshot and spec, odd files beside
    them, and an earlier run on the last night that a later one supersedes: its line count."""
    first = fleet_gen.cluster_name(0)
    day = SHAPE.start.isoformat()
    snapshot = root / "snapshots" / f"cluster={first}" / f"date={day}" / "snapshot.jsonl"
    lines = snapshot.read_text().splitlines()
    taken = json.loads(lines[0])["taken_at"]
    topic = json.loads(lines[1])
    bad = [
        "not json at all",
        "[1, 2, 3]",
        '{"record": "broker", "taken_at": "x"}',
        json.dumps({**topic, "partitions": "three"}),  # mistyped: incomplete
        json.dumps({"record": "topic", "taken_at": taken}),  # no topic name: incomplete
        json.dumps({**topic, "taken_at": "2020-01-01T00:00:00+00:00"}),  # no such snapshot
        lines[1],  # the same topic twice in one snapshot
        json.dumps({**topic, "topic": "orders\nv2"}),  # no topic Kafka could hold
        json.dumps({**topic, "topic": "orders v2"}),
        json.dumps({**topic, "topic": "o" * 250}),
        "",  # blank lines are not lines
    ]
    snapshot.write_text(with_lines(lines, bad))  # bad lines in a file proven whole
    # A snapshot in a directory that is no date, and one claiming another cluster
    odd = root / "snapshots" / f"cluster={first}" / "date=2026-13-45"
    odd.mkdir()
    (odd / "snapshot.jsonl").write_text("\n".join(lines[:3]) + "\n")
    other = fleet_gen.cluster_name(1)
    claimed = root / "snapshots" / f"cluster={other}" / f"date={day}" / "stray.jsonl"
    header = json.loads(lines[0])
    claimed.write_text(
        json.dumps({**header, "cluster": first, "taken_at": "2026-11-01T01:00:00+00:00"})
        + "\n"
        + json.dumps({**topic, "taken_at": "2026-11-01T01:00:00+00:00"})
        + "\n"
    )
    # A cluster line of another format version, and desired-side garbage
    version = root / "snapshots" / f"cluster={other}" / f"date={day}" / "future.jsonl"
    version.write_text(json.dumps({**header, "format_version": 2, "cluster": other}) + "\n")
    desired = root / "desired" / f"{first}.jsonl"
    spec_lines = desired.read_text().splitlines()
    desired.write_text(
        "\n".join(
            [*spec_lines, "{oops", spec_lines[1],
             json.dumps({**json.loads(spec_lines[1]), "cluster": "nowhere"}),
             json.dumps({**json.loads(spec_lines[1]), "topic": "ordérs"})]
        )
        + "\n"
    )  # fmt: skip

    # An earlier run on the last night saw a topic that is gone by the later run: that whole
    # snapshot is superseded, its lines neither bad nor counted
    generated = next(fleet_gen.clusters(SHAPE))
    last, state = generated.snapshots[-1]
    earlier = dict(state.topics)
    stray = next(t for n, t in earlier.items() if not n.startswith("_"))
    earlier["late.stray"] = dataclasses.replace(stray, name="late.stray")
    morning = fleet_gen.taken_at(last).replace(hour=1)
    jsonl.write(
        root / "snapshots" / f"cluster={first}" / f"date={last}" / "a-morning.jsonl",
        first, dataclasses.replace(state, topics=earlier), morning,
    )  # fmt: skip

    return len(earlier)


@dataclasses.dataclass(frozen=True)
class Spoiled:
    """One copy of the clean fleet spoiled in three ways that each leave the drift the clean
    fleet's (bad lines, maps in another key order, another cluster's snapshot), and one job
    over it: a job on the session costs some 35 to 45 CPU s whatever its rows (docs/testing.md,
    "One job where one does"). Each way is a test of its own below, and each counts or leaves
    out only its own lines, so each test still tells its way apart."""

    out: Path
    result: FleetResult
    superseded_lines: int  # the earlier run on the last night (bad lines)
    another_id_lines: int  # the other cluster's snapshot (another cluster id)


@pytest.fixture(scope="module")
def spoiled(spark: SparkSession, clean: Path, tmp_path_factory: pytest.TempPathFactory) -> Spoiled:
    root = tmp_path_factory.mktemp("spoiled")
    shutil.copytree(clean / "desired", root / "desired")
    shutil.copytree(clean / "snapshots", root / "snapshots")
    _spoil_map_order(root)  # first: it rewrites whole files, which the others then add to
    superseded = _spoil_with_bad_lines(root)
    another = _spoil_with_another_cluster_id(root)
    out = root / "out"
    result = job.run(spark, str(root / "desired"), str(root / "snapshots"), str(out))
    return Spoiled(out, result, superseded, another)


def test_bad_lines_are_counted_by_reason_and_the_rest_is_processed(
    spark: SparkSession, clean: Path, spoiled: Spoiled
) -> None:
    result, out = spoiled.result, spoiled.out
    # the earlier run alone is superseded (the other cluster's later snapshot is not a run)
    assert (result.summary.superseded, result.summary.superseded_lines) == (
        1,
        spoiled.superseded_lines,
    )
    # the rows are the clean fleet's: the duplicate's copy, the bad and superseded lines out
    clean_lines = [
        json.loads(line)
        for path in (clean / "snapshots").rglob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert result.summary.topic_rows == sum(1 for x in clean_lines if x["record"] == "topic")
    counted = {(b.input, b.reason): b.lines for b in result.summary.bad}
    assert {k: v for k, v in counted.items() if k != ANOTHER_ID} == BAD_LINES
    summary = (out / "summary.md").read_text()
    assert f"**{sum(counted.values())} bad input line(s)** were left out" in summary
    assert "| snapshots | bad date directory | 3 | `file:" in summary
    # Everything else went through as if the bad lines and the earlier run were not there
    assert drift_rows(spark, out) == drift_rows(spark, clean / "out")
    assert "late.stray" not in {r[2] for r in drift_rows(spark, out)}


def test_since_reads_only_the_dates_from_then_on(
    spark: SparkSession, clean: Path, tmp_path: Path
) -> None:
    since = (SHAPE.start.replace(day=SHAPE.start.day + 1)).isoformat()
    out = tmp_path / "out"
    result = job.run(spark, str(clean / "desired"), str(clean / "snapshots"), str(out), since)
    assert result.summary.first_date == since
    rows = drift_rows(spark, out)
    assert rows and all(r[1] >= since and r[7] >= since for r in rows)
    # the same differences as the full run on those dates, first_seen cut at the window
    full = {r[:7] for r in drift_rows(spark, clean / "out") if r[1] >= since}
    assert {r[:7] for r in rows} == full


def test_missing_or_empty_inputs_fail_with_one_line_naming_them(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no"):  # checked before Spark is asked
        job.execute(str(tmp_path / "empty"), str(tmp_path), str(tmp_path / "out"))
    # --out beside the inputs: inside --snapshots it would be refused first (fleet/overlap.py)
    cli = run_cli(
        tmp_path, "127.0.0.1:1", "fleet", "drift", "--desired", str(tmp_path / "nope"),
        "--snapshots", str(tmp_path / "empty"), "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert cli.code == 1
    assert cli.stderr.strip().splitlines() == [
        f"error: --desired {tmp_path / 'nope'} is not a directory; write it with "
        "`reconciler compile --all-clusters --out DIR`"
    ]
    bad_date = run_cli(
        tmp_path, "127.0.0.1:1", "fleet", "drift", "--desired", str(tmp_path),
        "--snapshots", str(tmp_path), "--out", str(tmp_path / "out"), "--since", "yesterday",
    )  # fmt: skip
    assert bad_date.code == 1 and "'yesterday' is not a date YYYY-MM-DD" in bad_date.stderr


def _topic_rows(observed: inputs.Observed) -> set[tuple[Any, ...]]:
    return {
        (r["cluster"], r["date"], r["topic"], r["internal"],
         tuple(tuple(p) for p in r["replicas"]), tuple(sorted(r["overrides"].items())),
         r["moving"])
        for r in observed.topics.collect()
    }  # fmt: skip


def _one_snapshot(clean: Path, root: Path) -> tuple[Path, list[str]]:
    """A copy of the clean fleet's snapshots, and the first snapshot file's path and lines."""
    shutil.copytree(clean / "snapshots", root)
    first = fleet_gen.cluster_name(0)
    snapshot = root / f"cluster={first}" / f"date={SHAPE.start.isoformat()}" / "snapshot.jsonl"
    return snapshot, snapshot.read_text().splitlines()


def test_both_parsers_keep_and_count_the_same_lines(
    spark: SparkSession, clean: Path, tmp_path: Path
) -> None:
    """Bad lines that open with `{` and are valid UTF-8 go through the JSON data source: it
    keeps and counts exactly what from_json does, line by line."""
    root = tmp_path / "snapshots"
    snapshot, lines = _one_snapshot(clean, root)
    header, topic = json.loads(lines[0]), json.loads(lines[1])
    taken = header["taken_at"]
    plain = [
        '{"record": "topic", "taken_at"',  # cut short: malformed
        '{"record": "topic", "taken_at": "' + taken + '", "topic": 7}',  # mistyped
        json.dumps({**topic, "partitions": "three"}),
        json.dumps({**topic, "partitions": [{"partition": 0, "replicas": [1, None]}]}),
        json.dumps({**topic, "reassignments": [None]}),
        json.dumps({"record": "topic", "taken_at": taken}),
        '{"record": "broker", "taken_at": "x"}',
        '{"taken_at": "x"}',
        json.dumps({**topic, "topic": "orders v2"}),
        json.dumps({**topic, "topic": "ordérs"}, ensure_ascii=False),  # UTF-8, not ASCII
        json.dumps({**topic, "topic": "ordérs.two"}),  # \u00e9: an escape
        json.dumps({**topic, "topic": "orders.v3"}).replace(".v3", "\\u002ev3"),  # legal
        json.dumps({**topic, "topic": "late", "taken_at": "2020-01-01T00:00:00+00:00"}),
        json.dumps({**topic, "topic": "with.ids", "leader": 1, "isr": [1, 2], "extra": {}}),
        "   ",
    ]
    snapshot.write_text(with_lines(lines, plain))
    other = fleet_gen.cluster_name(1)
    day = root / f"cluster={other}" / "date=2025-01-01"
    day.mkdir()
    at = "2025-01-01T02:00:00+00:00"
    # Its own id, as its own snapshots carry it: a copy of the first cluster's would be a
    # mislabeled folder ("cluster id mismatch")
    ours = next((root / f"cluster={other}").glob("date=*/snapshot.jsonl"))
    other_id = json.loads(ours.read_text().splitlines()[0])["cluster_id"]
    escaped = json.dumps(
        {**header, "cluster": other, "cluster_id": other_id, "taken_at": at}
    ).replace(
        '"record"', '"\\u0072ecord"'
    )  # a cluster line only a parse can tell: found all the same
    (day / "a.jsonl").write_text(
        whole([escaped, json.dumps({**topic, "topic": "escaped.night", "taken_at": at})])
    )
    wrong = root / f"cluster={other}" / "date=2025-01-02"
    wrong.mkdir()
    (wrong / "a.jsonl").write_text(
        json.dumps({**header, "taken_at": at}) + "\n" + json.dumps({**topic, "taken_at": at})
    )  # the header names the first cluster: a mismatch, and its topic has no cluster line
    # No calendar date: every line there is of a bad date directory, but for the lines that
    # are no record at all, which say so first; and a bad date with no cluster line at all
    feb = root / f"cluster={other}" / "date=2025-02-30"
    feb.mkdir()
    at = "2025-02-28T02:00:00+00:00"
    (feb / "a.jsonl").write_text(
        "\n".join([
            json.dumps({**header, "cluster": other, "cluster_id": other_id, "taken_at": at}),
            json.dumps({**topic, "topic": "february", "taken_at": at}),
            json.dumps({**topic, "topic": "february.two", "partitions": "three"}),
            '{"record": "topic", "taken_at"',
            '{"record": "broker", "taken_at": "x"}',
        ]) + "\n"
    )  # fmt: skip
    headless = root / f"cluster={other}" / "date=20250103"
    headless.mkdir()
    (headless / "a.jsonl").write_text(json.dumps({**topic, "topic": "no.header"}) + "\n")

    chosen = inputs.read_snapshots(spark, str(root), None)
    assert chosen.parser == "JSON data source"
    seen = {}
    for source in (True, False):
        observed = inputs.read_snapshots(spark, str(root), None, source=source)
        rows = _topic_rows(observed)
        seen[source] = (rows, observed.counts.get())
    assert seen[True] == seen[False]
    rows, counted = seen[True]
    assert {reason: n for reason, (n, _) in counted.items()} == {
        "malformed": 3,
        "incomplete": 5,
        "unknown record": 2,
        "bad topic name": 3,
        "no cluster line": 2,
        "cluster mismatch": 1,
        "bad date directory": 4,
    }
    topics = {r[2] for r in rows}
    assert {"orders.v3", "with.ids", "escaped.night"} <= topics
    assert not topics & {"orders v2", "late", "ordérs", "ordérs.two", "february", "no.header"}


@pytest.mark.parametrize(
    "odd",
    [
        "[{TOPIC}]",  # the data source would make a row of each object
        "  {TOPIC}",  # does not open with `{`: read as from_json reads it
        "\ufeff{TOPIC}",  # a byte order mark
        "{\u0000TOPIC}",  # a NUL: the data source may take the line for UTF-16
    ],
    ids=["array", "indented", "bom", "nul"],
)
def test_one_odd_line_puts_every_line_through_from_json(
    spark: SparkSession, clean: Path, tmp_path: Path, odd: str
) -> None:
    root = tmp_path / "snapshots"
    snapshot, lines = _one_snapshot(clean, root)
    topic = json.loads(lines[1])
    text = json.dumps({**topic, "topic": "odd.one"})
    line = odd.replace("{TOPIC}", text).replace("{\u0000TOPIC}", "{\u0000" + text[1:])
    snapshot.write_text(with_lines(lines, [line]))
    observed = inputs.read_snapshots(spark, str(root), None)
    assert observed.parser == "from_json"
    rows = _topic_rows(observed)
    counted = {reason: n for reason, (n, _) in observed.counts.get().items()}
    # from_json's reading of each: an indented line is a line; the rest are not JSON objects
    if odd.startswith(" "):
        assert "odd.one" in {r[2] for r in rows} and counted == {}
    else:
        assert "odd.one" not in {r[2] for r in rows} and counted == {"malformed": 1}


def test_a_line_of_invalid_utf8_is_read_as_from_json_reads_it(
    spark: SparkSession, clean: Path, tmp_path: Path
) -> None:
    root = tmp_path / "snapshots"
    snapshot, lines = _one_snapshot(clean, root)
    topic = json.loads(lines[1])
    line = json.dumps({**topic, "topic": "bad.bytes"}).encode().replace(b"bad", b"b\xffd")
    trailer = json.loads(lines[-1])
    trailer["topics"] += 1
    snapshot.write_bytes(
        ("\n".join(lines[:-1]) + "\n").encode() + line + b"\n" + json.dumps(trailer).encode()
    )
    observed = inputs.read_snapshots(spark, str(root), None)
    assert observed.parser == "from_json"
    _topic_rows(observed)  # the pass that counts
    counted = {reason: n for reason, (n, _) in observed.counts.get().items()}
    assert counted == {"bad topic name": 1}  # decoded, the byte is U+FFFD: no Kafka name


def test_a_table_spark_cannot_write_fails_the_job_with_one_line(
    spark: SparkSession, clean: Path, tmp_path: Path
) -> None:
    """The tables are written two at a time: a failure in either is the job's one-line error
    (job.spark_failures, as `fleet drift` raises it; the CLI prints any such error as its one
    line and exits 1: test_missing_or_empty_inputs_fail_with_one_line_naming_them). A `file://`
    URI is Spark's to write (the CLI checks only plain local paths before the job), so the
    failure is Spark's own. On the shared session: the same run as the CLI's in a JVM of its
    own, which test_the_cli_run_of_a_failing_write_ends_with_one_line holds (make compat)."""
    blocked = tmp_path / "out"
    blocked.write_text("a file where the tables' directory should be\n")
    with pytest.raises(ReconcilerError) as raised, job.spark_failures(None):
        job.run(spark, str(clean / "desired"), str(clean / "snapshots"), blocked.as_uri())
    said = str(raised.value)
    assert said.startswith("the Spark job failed: ") and "\n" not in said, said
    assert blocked.read_text() == "a file where the tables' directory should be\n"


@pytest.mark.matrix  # a JVM of its own, some 90 CPU s: make compat (docs/testing.md)
def test_the_cli_run_of_a_failing_write_ends_with_one_line(tmp_path: Path) -> None:
    """The same failure in the CLI's own JVM: exit 1, one line on stderr (no traceback, no
    Java trace), after which the process ends though the other write was under way."""
    fleet_gen.write(TINY, tmp_path / "desired", tmp_path / "snapshots")  # no job: inputs only
    blocked = tmp_path / "out"
    blocked.write_text("a file where the tables' directory should be\n")
    # timeout: a bound on a hang; a cold JVM took over 300 s at load 15 to 22
    cli = run_cli(
        tmp_path, "127.0.0.1:1", "fleet", "drift", "--desired", str(tmp_path / "desired"),
        "--snapshots", str(tmp_path / "snapshots"), "--out", blocked.as_uri(),
        "--master", "local[2]", *LIGHT_CONF, timeout=540,
    )  # fmt: skip
    assert cli.code == 1, cli.stderr
    lines = cli.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the Spark job failed: "), lines
    assert blocked.read_text() == "a file where the tables' directory should be\n"


def consistency_rows(spark: SparkSession, out: Path) -> set[tuple[Any, ...]]:
    return {
        (str(r["date"]), r["topic"], r["field"], r["cluster"], r["desired"], r["actual"],
         r["same"], tuple(r["differs_from"]))
        for r in spark.read.parquet(str(out / "consistency")).collect()
    }  # fmt: skip


def _reversed_maps(path: Path, field: str) -> int:
    """Rewrite each line's `field` map with its keys in reverse order; how many maps of two
    or more keys changed."""
    changed, lines = 0, []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        value = record.get(field)
        if isinstance(value, dict) and len(value) > 1:
            record[field] = dict(reversed(list(value.items())))
            changed += 1
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return changed


def _spoil_map_order(root: Path) -> None:
    """Every spec's config reversed, and the overrides of every other cluster: equal maps now
    meet in two orders, spec against cluster and cluster against cluster."""
    specs = sum(_reversed_maps(p, "config") for p in (root / "desired").glob("*.jsonl"))
    clusters = sorted((root / "snapshots").iterdir())[::2]
    overrides = sum(_reversed_maps(p, "overrides") for c in clusters for p in c.rglob("*.jsonl"))
    assert specs and overrides, (specs, overrides)  # the shape holds maps of several keys


def test_maps_whose_keys_come_in_another_order_compare_as_the_same_maps(
    spark: SparkSession, clean: Path, spoiled: Spoiled
) -> None:
    """The writers order config and override keys, and the job's shortcuts compare the maps
    as stored; maps written in another order give the same drift and consistency tables."""
    expected = drift_rows(spark, clean / "out")
    assert any(r[3].startswith("config.") for r in expected)  # config drift to get right
    assert drift_rows(spark, spoiled.out) == expected
    alike = consistency_rows(spark, clean / "out")
    assert alike  # differences between clusters to get right
    assert consistency_rows(spark, spoiled.out) == alike


def _spoil_with_another_cluster_id(root: Path) -> int:
    """Another cluster entirely (one topic less, an unmanaged one more, its own cluster_id),
    taken later on the first cluster's last day, in that cluster's folder: its line count."""
    first = fleet_gen.cluster_name(0)
    generated = next(fleet_gen.clusters(SHAPE))
    last, state = generated.snapshots[-1]
    assert state.cluster_id is not None
    topics = dict(state.topics)
    gone = next(n for n in topics if not n.startswith("_"))
    stranger = dataclasses.replace(topics.pop(gone), name="stranger.topic")
    topics["stranger.topic"] = stranger
    other = dataclasses.replace(state, cluster_id="another-cluster-id", topics=topics)
    evening = fleet_gen.taken_at(last).replace(hour=23)
    jsonl.write(
        root / "snapshots" / f"cluster={first}" / f"date={last}" / "z-evening.jsonl",
        first, other, evening,
    )  # fmt: skip
    return 1 + len(topics)


def test_a_snapshot_of_another_cluster_id_is_bad_input_not_drift(
    spark: SparkSession, clean: Path, spoiled: Spoiled
) -> None:
    """A folder holding another cluster's snapshot (its cluster_id differs from the one the
    cluster's earlier snapshots carry) is left out whole and counted, however late it was
    taken: it neither supersedes the cluster's own snapshot of that day nor shows as drift."""
    counted = {(b.input, b.reason): b.lines for b in spoiled.result.summary.bad}
    assert counted[ANOTHER_ID] == spoiled.another_id_lines
    # superseded: the earlier run of the bad-lines case alone, not the cluster's own snapshot
    summary = spoiled.result.summary
    assert (summary.superseded, summary.superseded_lines) == (1, spoiled.superseded_lines)
    rows = drift_rows(spark, spoiled.out)
    assert rows == drift_rows(spark, clean / "out")
    assert "stranger.topic" not in {r[2] for r in rows}
