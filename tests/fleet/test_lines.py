"""The pipeline's two line formats: `compile` (desired) and snapshot lines, and the PySpark
guard. No Spark here."""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from reconciler.cluster import jsonl
from reconciler.cluster.snapshot import dumps, load_snapshot, write_snapshot
from reconciler.cluster.state import ConfigEntry, Reassignment
from reconciler.errors import ConfigError, EnvironmentProblem
from reconciler.fleet.guard import INSTALL, SUPPORTED, check_version, require_pyspark
from reconciler.spec.loader import load_repo
from tests.cluster.snapshot_access_sample import held_access
from tests.planning.factories import cluster, topic
from tests.spec_repo import run_cli

ROOT = Path(__file__).resolve().parents[2]


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / name).read_text()))


def sample() -> Any:
    secret = dataclasses.replace(
        topic("b.secret", overrides={"retention.ms": "1000"}),
        configs=(
            ("retention.ms", ConfigEntry("1000", "DYNAMIC_TOPIC_CONFIG")),
            ("sasl.jaas.config", ConfigEntry(None, "DYNAMIC_TOPIC_CONFIG", True)),
        ),
    )
    plain = cluster(
        topic("a.one", [[1, 2], [2, 3]], leaders=[2, None], isr=[[2], [2, 3]],
              overrides={"cleanup.policy": "delete,compact", "retention.ms": "604800000",
                         "x.unknown": "Raw"},
              inherited={"segment.bytes": "1073741824"}),
        secret,
        topic("__consumer_offsets", [[1]], internal=True),
        reassignments=[Reassignment("a.one", 1, (2, 3, 1), (1,), ())],
    )  # fmt: skip
    return dataclasses.replace(plain, **held_access())  # as a snapshot reads them back


def test_snapshot_lines_hold_brokers_and_canonical_overrides(tmp_path: Path) -> None:
    state = sample()
    path = tmp_path / "snap.jsonl"
    when = datetime(2026, 11, 1, 2, tzinfo=UTC)
    jsonl.write(path, "prod", state, when)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    check = validator("snapshot-line.schema.json")
    for line in lines:
        check.validate(line)
    header, *topics = (line for line in lines if line["record"] in ("cluster", "topic"))
    assert header["record"] == "cluster" and header["cluster"] == "prod"
    assert [b["id"] for b in header["brokers"]] == [1, 2, 3]
    assert {t["taken_at"] for t in lines} == {"2026-11-01T02:00:00+00:00"}
    one = next(t for t in topics if t["topic"] == "a.one")
    # the planner's canonical form (catalog.canonical); an unknown key keeps its raw value;
    # inherited values and sensitive ones Kafka does not return are left out
    assert one["overrides"] == {
        "cleanup.policy": "compact,delete", "retention.ms": "604800000", "x.unknown": "Raw",
    }  # fmt: skip
    assert one["reassignments"] == [
        {"partition": 1, "replicas": [2, 3, 1], "adding": [1], "removing": []}
    ]
    assert next(t for t in topics if t["topic"] == "b.secret")["overrides"] == {
        "retention.ms": "1000"
    }
    assert "reassignments" not in next(t for t in topics if t["topic"] == "b.secret")
    # read back (the benchmark's Python side): the overrides, canonical, as the planner sees
    name, taken, back = jsonl.load(path)
    assert (name, taken) == ("prod", when)
    assert back.brokers == state.brokers and back.reassignments == state.reassignments
    assert back.topics["a.one"].partitions == state.topics["a.one"].partitions
    assert back.topics["a.one"].overrides == one["overrides"]


def test_write_snapshot_picks_the_form_from_the_name_and_json_stays_as_it_was(
    tmp_path: Path,
) -> None:
    state = sample()
    json_path, lines_path = tmp_path / "s.json", tmp_path / "s.jsonl"
    write_snapshot(json_path, "prod", state)
    write_snapshot(lines_path, "prod", state)
    forced = tmp_path / "forced.txt"
    write_snapshot(forced, "prod", state, "jsonl")
    document = json.loads(json_path.read_text())
    # byte for byte what dumps() writes, taken_at aside
    assert json_path.read_text() == dumps("prod", state).replace(
        json.dumps(json.loads(dumps("prod", state))["taken_at"]),
        json.dumps(document["taken_at"]),
    )
    assert load_snapshot(json_path) == ("prod", state)  # plan --state reads it as before
    assert json.loads(lines_path.read_text().splitlines()[0])["record"] == "cluster"
    assert json.loads(forced.read_text().splitlines()[0])["record"] == "cluster"
    assert not list(tmp_path.glob(".*partial"))
    with pytest.raises(ConfigError, match="cannot write snapshot"):
        write_snapshot(tmp_path / "missing" / "s.jsonl", "prod", state)


def test_a_broken_lines_file_is_a_one_line_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"record": "cluster", "format_version": 1}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:1: not a snapshot line"):
        jsonl.load(path)


def compile_repo(root: Path) -> None:
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(
        "clusters:\n"
        "  dev: {bootstrap: 'x:1', vars: {env: dev}, limits: {max_broker_partitions: 100},"
        " policy: {ignore: ['^_', '^tmp\\.']}}\n"
        "  prod: {bootstrap: 'y:1', vars: {env: prod}}\n"
    )
    (root / "topics" / "a.yaml").write_text(
        "defaults: {owner: team-a, config: {retention.ms: 7d}}\n"
        "topics:\n"
        "  - name: a.orders\n    partitions: 3\n    replication_factor: 2\n"
        "    config: {cleanup.policy: [delete, compact]}\n"
        "  - name: a.gone\n    state: absent\n"
        "  - name: a.placed\n    assignments: [[1, 2], [2, 3]]\n"
    )
    (root / "topics" / "t.yaml.j2").write_text(
        "topics:\n  - name: t.events\n    partitions: {{ 12 if vars.env == 'prod' else 3 }}\n"
    )


def test_compile_writes_each_clusters_desired_state_after_templates_and_defaults(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    compile_repo(repo)
    out = tmp_path / "desired"
    done = run_cli(repo, "x:1", "compile", "--all-clusters", "--out", str(out))
    assert done.code == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["dev.jsonl", "prod.jsonl"]
    assert f"wrote {out / 'dev.jsonl'}: 4 topic(s) of cluster 'dev'" in done.stdout
    check = validator("desired-line.schema.json")
    loaded = load_repo(repo)
    for name in ("dev", "prod"):
        header, *lines = [json.loads(x) for x in (out / f"{name}.jsonl").read_text().splitlines()]
        for line in (header, *lines):
            check.validate(line)
        specs = loaded.desired[name].topics
        assert [t["topic"] for t in lines] == sorted(specs)
        for line in lines:
            spec = specs[line["topic"]]
            assert line["config"] == dict(spec.config)
            assert (line["file"], line["line"], line["column"]) == (
                spec.location.file, spec.location.line, spec.location.column,
            )  # fmt: skip
    first, *rest = [json.loads(x) for x in (out / "dev.jsonl").read_text().splitlines()]
    dev = {line["topic"]: line for line in rest}
    assert first == {
        "record": "cluster", "format_version": 1, "cluster": "dev",
        "limits": {"max_broker_partitions": 100, "max_partitions": None},
        "ignore": ["^_", "^tmp\\."], "allow_delete": False, "unread": [],
    }  # fmt: skip
    # defaults merged, canonical values, tombstones kept, template rendered per cluster
    assert dev["a.orders"]["config"] == {
        "cleanup.policy": "compact,delete", "retention.ms": "604800000",
    }  # fmt: skip
    assert dev["a.gone"]["state"] == "absent"
    assert dev["a.placed"]["assignments"] == [[1, 2], [2, 3]]
    assert dev["a.placed"]["partitions"] is None  # left out in the spec
    assert dev["t.events"]["partitions"] == 3
    prod = (out / "prod.jsonl").read_text()
    assert json.loads(prod.splitlines()[-1])["partitions"] == 12
    # the same specs compile to the same bytes
    again = run_cli(repo, "x:1", "compile", "--cluster", "prod", "--out", str(out))
    assert again.code == 0 and (out / "prod.jsonl").read_text() == prod


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "defines 2 clusters (dev, prod); choose one with --cluster NAME"),
        (("--cluster", "dev", "--all-clusters"), "--cluster NAME or --all-clusters, not both"),
        (("--cluster", "nope"), "unknown cluster 'nope'"),
    ],
)
def test_compile_refuses_unclear_or_unknown_clusters(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    repo = tmp_path / "repo"
    compile_repo(repo)
    done = run_cli(repo, "x:1", "compile", *args, "--out", str(tmp_path / "out"))
    assert done.code == 1 and says in done.stderr
    assert not (tmp_path / "out").exists()


def test_compile_of_invalid_specs_prints_them_and_writes_nothing(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    compile_repo(repo)
    (repo / "topics" / "bad.yaml").write_text("topics:\n  - name: b.bad\n    partitions: 0\n")
    done = run_cli(repo, "x:1", "compile", "--all-clusters", "--out", str(tmp_path / "out"))
    assert done.code == 1
    assert "topics/bad.yaml:3:" in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_guard_says_how_to_install_pyspark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)  # `import pyspark` now fails
    with pytest.raises(EnvironmentProblem) as raised:
        require_pyspark()
    assert INSTALL in str(raised.value) and "Java 17" in str(raised.value)


def test_fleet_drift_without_pyspark_exits_1_with_the_install_command(tmp_path: Path) -> None:
    blocked = (
        "import sys; sys.modules['pyspark'] = None; "  # as if the extra were not installed
        "from reconciler.cli import main; main()"
    )
    (tmp_path / "d").mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", blocked, "fleet", "drift", "--desired", str(tmp_path / "d"),
         "--snapshots", str(tmp_path / "d"), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "error: `reconciler fleet drift` runs on Spark, and PySpark is not installed in this "
        "Python environment; install it with: pip install 'kafka-topic-reconciler[fleet]' "
        "(Spark also needs Java 17 or newer)"
    )


@pytest.mark.parametrize("version", ["4.0.0", "4.3.0", "4.9.1.dev0"])
def test_the_guard_accepts_pyspark_4x(version: str) -> None:
    check_version(version)


@pytest.mark.parametrize("version", ["3.4.4", "3.3.0", "2.4.8", "5.0.0", "10.1", "", "dev"])
def test_the_guard_names_the_installed_and_the_supported_versions(version: str) -> None:
    with pytest.raises(EnvironmentProblem) as raised:
        check_version(version)
    said = str(raised.value)
    assert (version or "of unknown version") in said and SUPPORTED in said and INSTALL in said


@pytest.mark.parametrize("version", ["3.5.0", "3.5.9", "4.0.0", "4.3.0", "4.9.1.dev0"])
def test_the_guard_lets_35_and_4x_through(version: str) -> None:
    check_version(version)  # raises EnvironmentProblem outside 3.5 <= version < 5.0


def test_fleet_drift_on_pyspark_34_exits_1_naming_both_versions(tmp_path: Path) -> None:
    older = (
        "import sys, types; old = types.ModuleType('pyspark'); old.__version__ = '3.4.4'; "
        "sys.modules['pyspark'] = old; "  # as if PySpark 3.4.4 were installed
        "from reconciler.cli import main; main()"
    )
    (tmp_path / "d").mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", older, "fleet", "drift", "--desired", str(tmp_path / "d"),
         "--snapshots", str(tmp_path / "d"), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "error: `reconciler fleet drift` runs on PySpark 3.5 or 4.x (3.5 or later, before 5.0), "
        "and the PySpark installed in this Python environment is 3.4.4; install a supported one "
        "with: pip install 'kafka-topic-reconciler[fleet]' (or `pip install 'pyspark>=3.5,<5'` "
        "pinned to your cluster's Spark)"
    )
    assert not (tmp_path / "o").exists()


# PySpark 3.5's functions that pass an argument to the JVM as it is (annotated Any, so no type
# check sees a column there): given a column, as a lambda's variable is, they fail the job with
# "Column is not iterable"; 4.x takes either. The job calls them through spark_functions.py.
RAW_ON_35 = frozenset(
    {"map_contains_key", "array_position", "array_remove", "array_append", "array_prepend",
     "array_insert"}
)  # fmt: skip


def test_the_job_calls_no_function_that_takes_no_column_on_spark_35() -> None:
    fleet = Path(__file__).resolve().parents[2] / "reconciler" / "fleet"
    found = [
        f"{path.name}:{node.lineno}: F.{node.attr}"
        for path in sorted(fleet.glob("*.py"))
        if path.name != "spark_functions.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in RAW_ON_35
    ]
    assert not found, f"use reconciler/fleet/spark_functions.py instead: {found}"
