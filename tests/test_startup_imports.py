"""Commands that do not talk to Kafka start without loading a Kafka client or Spark: the
client libraries are most of the start-up time (issue 14 measures it in bench/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reconciler.local.state import LocalCluster
from tests.spec_repo import SpecRepo

# Each test starts a fresh interpreter (what it measures): `make test` runs them, `make check`
# leaves them out
pytestmark = pytest.mark.slow

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


def _run(
    args: list[str], heavy: tuple[str, ...], env: dict[str, str] | None = None
) -> tuple[str, str]:
    """The command's output, and its last line: LOADED and which of `heavy` it imported."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    return done.stdout + done.stderr, done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["local", "--help"], ["fleet", "drift", "--help"]]
)
def test_no_client_library_is_imported(args: list[str]) -> None:
    _, last = _run(args, HEAVY)
    assert last == "LOADED", (args, last)


# Each command's module is imported when that command runs (cli/main.py `_Commands`)
COMMAND_MODULES = (
    *(f"reconciler.cli.{m}_commands" for m in ("repo", "plan", "state", "fleet", "local")),
    "reconciler.cli.help_topics",
)


def test_version_imports_no_command_module() -> None:
    _, last = _run(["--version"], COMMAND_MODULES)
    assert last == "LOADED", last


def test_validate_imports_only_its_own_command_module(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  dev: {bootstrap: 127.0.0.1:9092}\n")
    output, last = _run(["--repo", str(tmp_path), "validate"], COMMAND_MODULES)
    assert last == "LOADED reconciler.cli.repo_commands", (output, last)


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


# What `plan` never uses: Jinja2 without templates, apply's machinery (plan reads only what other
# applies left: apply/leftovers.py), the saved-plan schema check, git without
# --changed-since, the fleet's code and Spark.
PLAN_HEAVY = ("jinja2", "reconciler.spec.templates", "reconciler.apply.run",
              "reconciler.apply.execute.levels", "reconciler.apply.execute.dispatch",
              "reconciler.apply.execute.reassign", "jsonschema", "git", "reconciler.fleet",
              "pyspark", "reconciler.render.markdown", "reconciler.cli.fleet_commands",
              "reconciler.cli.local_commands")  # fmt: skip
# ... nor, without a lock topic or a throttled replica, apply's journal and lock record
NO_LEFTOVERS_HEAVY = ("reconciler.apply.record.journal", "reconciler.apply.lock")


def _snapshot_repo(root: Path) -> list[str]:
    """A repository of one plain topic file and a snapshot it matches; the plan's arguments."""
    from reconciler.cluster.snapshot import write_snapshot
    from tests.planning.factories import cluster, topic

    (root / "topics").mkdir()
    (root / "reconciler.yaml").write_text("clusters:\n  dev: {bootstrap: 127.0.0.1:9092}\n")
    (root / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 3\n")
    write_snapshot(root / "snap.json", "dev", cluster(topic("a.b", [[1], [2], [3]])))
    return ["--repo", str(root), "plan", "--cluster", "dev", "--state", str(root / "snap.json")]


def test_plan_loads_no_template_engine_nor_applys_machinery(tmp_path: Path) -> None:
    # from a snapshot: no Kafka client either
    heavy = (*PLAN_HEAVY, *NO_LEFTOVERS_HEAVY, "confluent_kafka", "kafka")
    output, last = _run(_snapshot_repo(tmp_path), heavy)
    assert "No changes" in output, output
    assert last == "LOADED", last


def test_templates_load_jinja2_when_a_repository_has_them(tmp_path: Path) -> None:
    args = _snapshot_repo(tmp_path)
    (tmp_path / "topics" / "a.yaml").unlink()
    (tmp_path / "topics" / "a.yaml.j2").write_text(
        "topics:\n  - name: a.{{ 'b' }}\n    partitions: 3\n"
    )
    output, last = _run(args, PLAN_HEAVY)
    assert "No changes" in output, output
    assert last == "LOADED jinja2,reconciler.spec.templates", last


def test_a_live_plan_loads_only_what_it_uses(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    output, last = _run(
        ["--repo", str(tmp_path), "plan", "--cluster", "test"],
        PLAN_HEAVY,
        env={"KAFKA_BOOTSTRAP": kafka1.bootstrap, "NO_COLOR": "1"},
    )
    assert f"{ns}.a" in output, output
    assert last == "LOADED", last
