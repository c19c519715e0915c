"""Bad files handed to plan and apply: one clear line naming the file, exit 1, no traceback,
and no cluster contacted (the bootstrap points at a closed port, so any attempt would say so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spec_repo import SpecRepo

BAD_JSON = [
    ("not-json.json", "{plan", "not"),
    ("array.json", "[]", "not"),
    ("wrong-version.json", '{"format_version": 99}', "format_version"),
    ("empty.json", "", "not"),
]


@pytest.fixture
def repo(tmp_path: Path) -> SpecRepo:
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    spec_repo.topics({"name": "t.a", "partitions": 1})
    return spec_repo


@pytest.mark.parametrize(("name", "content", "says"), BAD_JSON)
def test_apply_refuses_a_file_that_is_not_a_saved_plan(
    repo: SpecRepo, tmp_path: Path, name: str, content: str, says: str
) -> None:
    bad = tmp_path / name
    bad.write_text(content)
    result = repo.run("apply", "--cluster", "test", str(bad), "--auto-approve")
    assert result.code == 1
    assert str(bad) in result.stderr and says in result.stderr
    assert "127.0.0.1:1" not in result.stderr  # refused before any connection
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("name", "content", "says"), BAD_JSON)
def test_plan_refuses_a_file_that_is_not_a_snapshot(
    repo: SpecRepo, tmp_path: Path, name: str, content: str, says: str
) -> None:
    bad = tmp_path / name
    bad.write_text(content)
    result = repo.run("plan", "--cluster", "test", "--state", str(bad))
    assert result.code == 1
    assert str(bad) in result.stderr and says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_plan_for_another_cluster_is_refused(repo: SpecRepo, tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    saved.write_text(
        '{"format_version": 1, "cluster": "prod", "based_on": "sha256:0", "applyable": true,'
        ' "summary": {"create": 0, "update": 0, "delete": 0, "errors": 0, "warnings": 0},'
        ' "changes": [], "diagnostics": [], "unmanaged": []}'
    )
    result = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
    assert result.code == 1
    assert "the plan is for cluster 'prod', not 'test'" in result.stderr


def test_bad_throttle_is_refused_before_anything(repo: SpecRepo) -> None:
    result = repo.run("apply", "--cluster", "test", "--auto-approve", "--throttle", "fast")
    assert result.code == 1 and "--throttle 'fast'" in result.stderr


def test_unknown_cluster_names_the_known_ones(repo: SpecRepo) -> None:
    result = repo.run("plan", "--cluster", "nope")
    assert result.code == 1
    assert "unknown cluster 'nope': reconciler.yaml defines test" in result.stderr


BAD_SPECS = {
    # Finding 8: an integer beyond Python's 4,300-digit limit
    "huge partitions": (
        "topics/main.yaml",
        "topics:\n  - name: t.a\n    partitions: " + "9" * 5000,
    ),
    "huge config": (
        "topics/main.yaml",
        "topics:\n  - name: t.a\n    config:\n      retention.ms: '" + "9" * 5000 + "'",
    ),
    # Finding 6: a template that doubles a string
    "template bomb": (
        "topics/bomb.yaml.j2",
        "{% set ns = namespace(s='x') %}topics: []\n"
        "{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}\n",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
@pytest.mark.parametrize("command", ["plan", "apply"])
def test_bad_specs_stop_plan_and_apply_before_any_connection(
    repo: SpecRepo, case: str, command: str
) -> None:
    """Findings 6 and 8: plan and apply (with --prune) exit 1 with the file's diagnostic, no
    internal error, and never reach the cluster."""
    path, text = BAD_SPECS[case]
    repo.write(path, text)
    extra = ["--auto-approve"] if command == "apply" else []
    result = repo.run(command, "--cluster", "test", "--prune", *extra)
    assert result.code == 1, result.stderr
    assert "internal error" not in result.stderr
    assert f"{path}:" in result.stdout + result.stderr
    assert "127.0.0.1:1" not in result.stderr  # refused before any connection


def test_a_dangling_symlinked_directory_stops_prune(repo: SpecRepo) -> None:
    """Finding 1: a directory of topics replaced by a dangling link is not "no topics"."""
    (repo.root / "topics" / "team").symlink_to(repo.root / "elsewhere")
    result = repo.run("plan", "--cluster", "test", "--prune")
    assert result.code == 1
    assert "topics/team:1:1: error[R008]" in result.stdout + result.stderr
