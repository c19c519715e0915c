"""`reconciler validate` and load_repo end to end: the example repository, many problems in one
run, per-cluster rendering, the JSON output, and an independent JSON Schema implementation."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from reconciler import diagnostics
from reconciler.spec import templates
from reconciler.spec.loader import load_repo
from reconciler.spec.model import Presence
from reconciler.spec.source import read_source
from tests.property_examples import examples
from tests.spec.helpers import run_cli

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE_ENV: dict[str, str | None] = {
    "KAFKA_BOOTSTRAP": None,
    "PROD_KAFKA_BOOTSTRAP": None,
    "PROD_KAFKA_USER": None,
    "PROD_KAFKA_PASSWORD": None,
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


TWO_CLUSTERS = """
    clusters:
      local:
        bootstrap: 127.0.0.1:9092
        vars: {env: dev, replication: 1}
      prod:
        bootstrap: prod:9092
        vars: {env: prod, replication: 3}
"""


# ---------------------------------------------------------------------------- the example


def test_example_repository_validates() -> None:
    code, output = run_cli(["--repo", str(PROJECT), "validate"], env=EXAMPLE_ENV)
    assert code == 0, output
    assert output == "ok: 13 topics in 6 files for 2 clusters (local, prod)\n"


def test_validate_runs_from_the_repository_root_as_make_demo_does() -> None:
    env = {k: v for k, v in os.environ.items() if k not in EXAMPLE_ENV}
    proc = subprocess.run(
        [sys.executable, "-m", "reconciler", "validate"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        "ok: 13 topics in 6 files for 2 clusters (local, prod)\n",
        "",
    )


def test_example_repository_per_cluster() -> None:
    result = load_repo(PROJECT, env={})
    assert result.valid, result.diagnostics
    local, prod = result.desired["local"], result.desired["prod"]
    # The template renders per cluster: more partitions and longer retention in prod.
    assert local.topics["analytics.clickstream.raw.v1"].partitions == 3
    assert prod.topics["analytics.clickstream.raw.v1"].partitions == 12
    assert prod.topics["analytics.clickstream.raw.v1"].config_map["retention.ms"] == "2592000000"
    # `clusters: [prod]` keeps a topic off the local cluster.
    assert "analytics.reports.daily.v1" in prod.topics
    assert "analytics.reports.daily.v1" not in local.topics
    orders = local.topics["payments.orders.v1"]
    assert orders.keyed and orders.protect and orders.replication_factor == 3
    assert orders.config_map == {
        "cleanup.policy": "delete",
        "compression.type": "zstd",
        "min.insync.replicas": "2",  # from the file's defaults
        "retention.ms": "604800000",
    }
    assert local.topics["payments.refunds.v1"].assignments == ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    legacy = local.topics["payments.legacy.v0"]
    assert legacy.state is Presence.ABSENT
    assert legacy.replication_factor is None and legacy.config == ()  # defaults skip tombstones
    # Every topic fits the demo's three brokers and the name pattern of reconciler.yaml.
    pattern = result.config.clusters["local"].policy.name_pattern if result.config else None
    assert pattern is not None
    for state in result.desired.values():
        for spec in state.topics.values():
            assert (spec.replication_factor or 1) <= 3 and (spec.partitions or 1) <= 12
            assert re.fullmatch(pattern, spec.name), spec.name


def test_example_files_name_their_schema() -> None:
    for path in sorted((PROJECT / "topics").rglob("*.yaml*")):
        first = path.read_text().splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("$schema=", 1)[1]).resolve()
        assert target == PROJECT / "schemas" / "topics.schema.json", path


def _check_jsonschema() -> str:
    found = Path(sys.executable).parent / "check-jsonschema"
    if found.exists():
        return str(found)
    which = shutil.which("check-jsonschema")
    if which is None:
        pytest.fail("check-jsonschema (a dev dependency) is not installed")
    return which


@pytest.mark.slow  # check-jsonschema processes (0.4 CPU-s each): `make check` leaves it out
@pytest.mark.parametrize("cluster", ["local", "prod"])
def test_an_independent_validator_accepts_the_examples(cluster: str, tmp_path: Path) -> None:
    """check-jsonschema (another JSON Schema implementation and YAML parser) agrees."""
    files = []
    for path in sorted((PROJECT / "topics").rglob("*.yaml*")):
        if path.name.endswith(".yaml.j2"):
            source, problems = read_source(path, PROJECT)
            assert source is not None, problems
            compiled, problems = templates.compile_template(source)
            assert compiled is not None, problems
            rendered, problems = templates.render(compiled, cluster, _vars(cluster))
            assert rendered is not None, problems
            output = tmp_path / path.name.removesuffix(".j2")
            output.write_text(rendered.text)
            files.append(str(output))
        else:
            files.append(str(path))
    checker = _check_jsonschema()
    for schema, targets in (
        ("topics.schema.json", files),
        ("reconciler.schema.json", [str(PROJECT / "reconciler.yaml")]),
    ):
        proc = subprocess.run(
            [checker, "--schemafile", str(PROJECT / "schemas" / schema), *targets],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow  # check-jsonschema processes (0.4 CPU-s each): `make check` leaves it out
def test_the_independent_validator_also_rejects(tmp_path: Path) -> None:
    """The schema is not vacuous: check-jsonschema refuses what ours refuses."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("topics:\n  - name: a.b\n    partitons: 3\n")
    proc = subprocess.run(
        [
            _check_jsonschema(),
            "--schemafile",
            str(PROJECT / "schemas/topics.schema.json"),
            str(bad),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "partitons" in proc.stdout + proc.stderr


def _vars(cluster: str) -> dict[str, object]:
    result = load_repo(PROJECT, cluster, env={})
    assert result.config is not None
    return result.config.clusters[cluster].vars


# ---------------------------------------------------------------------------- all at once


def test_every_problem_of_a_file_is_reported_in_one_run(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/many.yaml": """
                defaults:
                  owner: team
                topics:
                  - name: good.one
                    partitions: 0
                    config:
                      retention.msx: 7d
                      cleanup.policy: archive
                  - name: bad name
                    replication_factor: 2
                    assignments: [[1, 1], [2]]
                    depends_on: [nowhere.v1]
                  - name: good.two
                    partitons: 3
                    owner: team
                    owner: other
                    clusters: [staging]
                  - name: good_one
                    state: absent
                    protect: true
                """,
        },
    )
    result = load_repo(root, env={})
    found = {(d.code, d.location.line if d.location else 0) for d in result.diagnostics}
    assert found == {
        ("R301", 5),  # partitions: 0
        ("R105", 7),  # retention.msx
        ("R101", 8),  # cleanup.policy: archive
        ("R201", 9),  # 'bad name'
        ("R306", 11),  # broker 1 twice
        ("R305", 11),  # [2] has one replica, RF 2
        ("R402", 12),  # nowhere.v1
        ("R703", 14),  # partitons
        ("R002", 16),  # owner twice
        ("R405", 17),  # staging
        ("R204", 18),  # good_one collides with good.one
        ("R309", 20),  # protect on a tombstone
    }
    code, output = run_cli(["--repo", str(root), "validate"])
    assert code == 1
    assert output.count("error[") == len(found)
    assert output.splitlines()[-1] == f"{len(found)} errors, 0 warnings in 2 files"


def test_problems_in_many_files_and_reconciler_yaml_in_one_run(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": """
                clusters:
                  local:
                    bootstrap: 127.0.0.1:9092
                    policy: {ignore: ['(']}
                """,
            "topics/a.yaml": "topics:\n  - name: a.b\n    partitions: -1\n",
            "topics/b.yaml": "topics: [\n",
            "topics/c.yaml.j2": "topics:\n  - name: {{ nope }}\n",
        },
    )
    codes = sorted(d.code for d in load_repo(root, env={}).diagnostics)
    assert codes == ["R001", "R301", "R503", "R602"]


# ---------------------------------------------------------------------------- clusters


def test_template_errors_name_the_cluster_only_when_some_clusters_fail(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml.j2": """
                topics:
                  - name: a.b
                    replication_factor: {{ vars.replication }}
                    config:
                      min.insync.replicas: 2
                """,
        },
    )
    result = load_repo(root, env={})
    assert [str(d) for d in result.diagnostics] == [
        "topics/t.yaml.j2:5:28: error[R103]: min.insync.replicas of 'a.b' is 2 but the "
        "replication factor is 1: producers with acks=all could never write; lower "
        "min.insync.replicas or raise replication_factor (for cluster local)"
    ]
    assert load_repo(root, "prod", env={}).valid
    assert not load_repo(root, "local", env={}).valid


def test_cluster_selection(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml": "topics:\n  - name: a.b\n  - name: p.q\n    clusters: [prod]\n",
        },
    )
    only_prod = load_repo(root, "prod", env={})
    assert list(only_prod.desired) == ["prod"]
    assert sorted(only_prod.desired["prod"].topics) == ["a.b", "p.q"]
    assert sorted(load_repo(root, "local", env={}).desired["local"].topics) == ["a.b"]
    assert load_repo(root, "nope", env={}).desired == {}
    code, output = run_cli(["--repo", str(root), "validate", "--cluster", "nope"])
    assert code == 1
    assert "error: unknown cluster 'nope': reconciler.yaml defines local, prod" in output
    code, output = run_cli(["--repo", str(root), "validate", "-c", "prod"])
    assert (code, output) == (0, "ok: 2 topics in 2 files for 1 cluster (prod)\n")


def test_defaults_merge(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml": """
                defaults:
                  owner: team
                  partitions: 3
                  clusters: [local]
                  config: {retention.ms: 1d, cleanup.policy: delete}
                topics:
                  - name: a.b
                  - name: a.c
                    partitions: 6
                    owner: other
                    config: {retention.ms: 2d}
                """,
        },
    )
    topics = load_repo(root, env={}).desired["local"].topics
    assert topics["a.b"].partitions == 3 and topics["a.b"].owner == "team"
    assert topics["a.c"].partitions == 6 and topics["a.c"].owner == "other"
    assert topics["a.c"].config == (("cleanup.policy", "delete"), ("retention.ms", "172800000"))
    assert topics["a.b"].clusters == ("local",)


def test_unknown_clusters_in_defaults_point_at_the_name(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml": "defaults:\n  clusters: [local, prd]\ntopics:\n  - name: a.b\n",
        },
    )
    found = load_repo(root, env={}).diagnostics
    assert [(d.code, str(d.location)) for d in found] == [("R405", "topics/t.yaml:2:21")]
    assert "(did you mean 'prod'?)" in found[0].message


# ---------------------------------------------------------------------------- output


def _validate_report_validator() -> Draft202012Validator:
    """schemas/validate.schema.json, whose diagnostics are plan.schema.json's `$defs/diagnostic`."""
    resources = [
        (schema["$id"], Resource.from_contents(schema))
        for schema in (
            json.loads((PROJECT / "schemas" / name).read_text())
            for name in ("validate.schema.json", "plan.schema.json")
        )
    ]
    registry: Registry[Any] = Registry().with_resources(resources)
    return Draft202012Validator(resources[0][1].contents, registry=registry)


def test_json_output(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml": "topics:\n  - name: a.b\n    config: {retention.msx: 1d}\n",
        },
    )
    code, output = run_cli(["--repo", str(root), "validate", "--format", "json"])
    assert code == 1
    report = json.loads(output)
    assert report == {
        "valid": False,
        "files": 2,
        "topics": {"local": 1, "prod": 1},
        "diagnostics": [
            {
                "severity": "error",
                "rule": "unknown_config",
                "code": "R105",
                "topic": "a.b",
                "message": "unknown topic config 'retention.msx' (did you mean 'retention.ms'?)",
                "file": "topics/t.yaml",
                "line": 3,
                "column": 14,
            }
        ],
        "not_read": [],
    }
    # The plan's shape, key order included: one writer (diagnostics.to_json) for both.
    assert list(report["diagnostics"][0]) == list(
        diagnostics.to_json(load_repo(root, env={}).diagnostics[0])
    )
    _validate_report_validator().validate(report)
    assert not _validate_report_validator().is_valid({**report, "diagnostics": [{"code": "R1"}]})


def test_warnings_do_not_fail(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": TWO_CLUSTERS,
            "topics/t.yaml": "topics:\n  - name: a.b\n    state: absent\n    partitions: 3\n",
        },
    )
    code, output = run_cli(["--repo", str(root), "validate"])
    assert code == 0
    assert output.splitlines() == [
        "topics/t.yaml:4:5: warning[R308]: 'partitions' is ignored on 'a.b', which has state: "
        "absent (a tombstone deletes the topic); remove it",
        "ok: 1 topic in 2 files for 2 clusters (local, prod) (1 warning)",
    ]


def test_missing_repository(tmp_path: Path) -> None:
    code, output = run_cli(["--repo", str(tmp_path), "validate"])
    assert code == 1
    assert output.startswith("reconciler.yaml:1:1: error[R501]: no reconciler.yaml in ")
    assert "Traceback" not in output


# ---------------------------------------------------------------------------- robustness


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(content=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_no_input_raises(tmp_path: Path, content: bytes) -> None:
    """Whatever bytes a topic file holds, validation returns diagnostics and never raises."""
    write(tmp_path, {"reconciler.yaml": TWO_CLUSTERS})
    for name in ("topics/t.yaml", "topics/u.yaml.j2"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(content)
    result = load_repo(tmp_path, env={})
    assert all(d.location is not None for d in result.diagnostics)


_FIELDS = ["name", "partitions", "replication_factor", "config", "assignments", "depends_on"]
_FIELDS += ["state", "protect", "clusters", "keyed", "acknowledge", "owner"]
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_TOPIC_FIELDS = st.dictionaries(st.sampled_from(_FIELDS), _VALUES)


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(topics=st.lists(_TOPIC_FIELDS, max_size=4))
def test_no_structure_raises(tmp_path: Path, topics: list[dict[str, object]]) -> None:
    """Well-formed YAML of any shape: every problem is a diagnostic, none an exception."""
    write(tmp_path, {"reconciler.yaml": TWO_CLUSTERS})
    (tmp_path / "topics").mkdir(exist_ok=True)
    (tmp_path / "topics" / "t.yaml").write_text(json.dumps({"topics": topics}))
    load_repo(tmp_path, env={})


def test_dotfiles_the_loader_never_reads_go_unnamed_others_are_listed(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "reconciler.yaml": "clusters:\n  c:\n    bootstrap: 127.0.0.1:9092\n",
            "topics/.gitkeep": "",
            "topics/.DS_Store": "x",
            "topics/.notes/todo.txt": "x",
            "topics/README.md": "# topics\n",
            "topics/.staging/x.yaml": "topics: []\n",  # could hold topics: still a warning
        },
    )
    code, output = run_cli(["--repo", str(root), "validate"])
    assert code == 0, output
    assert ".gitkeep" not in output and ".DS_Store" not in output and ".notes" not in output
    assert "not read: topics/README.md" in output
    assert "topics/.staging/x.yaml" in output and "warning" in output
    code, output = run_cli(["--repo", str(root), "validate", "--format", "json"])
    listed = {n["path"] for n in json.loads(output)["not_read"]}
    assert {"topics/.gitkeep", "topics/.DS_Store", "topics/README.md"} <= listed
