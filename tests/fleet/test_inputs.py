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
from reconciler.fleet import job
from reconciler.fleet.inputs import InputError
from tests.spec_repo import run_cli

SHAPE = fleet_gen.Shape(clusters=3, topics=12, dates=3, seed=11, edge_cases=False)


def drift_rows(spark: SparkSession, out: Path) -> set[tuple[Any, ...]]:
    return {
        (r["cluster"], str(r["date"]), r["topic"], r["field"], r["desired"], r["actual"],
         r["kind"], str(r["first_seen"]))
        for r in spark.read.parquet(str(out / "drift")).collect()
    }  # fmt: skip


@pytest.fixture(scope="module")
def clean(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clean")
    fleet_gen.write(SHAPE, root / "desired", root / "snapshots")
    job.run(spark, str(root / "desired"), str(root / "snapshots"), str(root / "out"))
    return root


def test_bad_lines_are_counted_by_reason_and_the_rest_is_processed(
    spark: SparkSession, clean: Path, tmp_path: Path
) -> None:
    root = tmp_path / "fleet"
    shutil.copytree(clean / "desired", root / "desired")
    shutil.copytree(clean / "snapshots", root / "snapshots")
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
    snapshot.write_text("\n".join([*lines, *bad]) + "\n")
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

    out = tmp_path / "out"
    result = job.run(spark, str(root / "desired"), str(root / "snapshots"), str(out))

    assert (result.summary.superseded, result.summary.superseded_lines) == (1, len(earlier))
    counted = {(b.input, b.reason): b.lines for b in result.summary.bad}
    assert counted == {
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
    cli = run_cli(
        tmp_path, "127.0.0.1:1", "fleet", "drift", "--desired", str(tmp_path / "nope"),
        "--snapshots", str(tmp_path), "--out", str(tmp_path / "out"),
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
