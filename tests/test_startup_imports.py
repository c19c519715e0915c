"""Commands that do not talk to Kafka start without loading a Kafka client or Spark: the
client libraries are most of the start-up time (issue 14 measures it in bench/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("confluent_kafka", "kafka", "pyspark", "jinja2", "jsonschema")

PROBE = """
import sys
from reconciler.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
loaded = sorted(m for m in {heavy!r} if m in sys.modules)
print("LOADED", ",".join(loaded))
"""


def _run(args: list[str], heavy: tuple[str, ...]) -> tuple[str, str]:
    """The command's output, and its last line: LOADED and which of `heavy` it imported."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout + done.stderr, done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["local", "--help"], ["fleet", "drift", "--help"]]
)
def test_no_client_library_is_imported(args: list[str]) -> None:
    _, last = _run(args, HEAVY)
    assert last == "LOADED", (args, last)


VALIDATE_HEAVY = ("confluent_kafka", "kafka", "pyspark", "git", "jsonschema", "reconciler.apply",
                  "reconciler.planning.plan", "reconciler.local.cluster")  # fmt: skip


def test_validate_loads_no_client_git_planner_or_local_tooling(tmp_path: Path) -> None:
    # A valid repository: jsonschema (the package) is loaded only to explain a rejected file.
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  dev: {bootstrap: 127.0.0.1:9092}\n")
    (tmp_path / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 3\n")
    output, last = _run(["--repo", str(tmp_path), "validate", "--cluster", "dev"], VALIDATE_HEAVY)
    assert "ok: 1 topic" in output, output
    assert last == "LOADED", last


def test_plan_against_a_snapshot_loads_no_kafka_python(tmp_path: Path) -> None:
    # kafka-python serves only KIP-455 (reassignments), loaded where those requests are sent:
    # a plan that sends none never pays for importing it.
    from reconciler.cluster.snapshot import write_snapshot
    from tests.planning.factories import cluster, topic

    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  dev: {bootstrap: 127.0.0.1:9092}\n")
    (tmp_path / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 3\n")
    write_snapshot(tmp_path / "snap.json", "dev", cluster(topic("a.b", [[1], [2], [3]])))
    args = [
        "--repo",
        str(tmp_path),
        "plan",
        "--cluster",
        "dev",
        "--state",
        str(tmp_path / "snap.json"),
    ]
    output, last = _run(args, ("kafka",))
    assert "No changes" in output, output
    assert last == "LOADED", last
