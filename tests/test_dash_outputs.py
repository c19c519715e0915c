"""`-` given to an output option: standard output where the command prints nothing else there
(`snapshot -o -`), else one sentence refusing it (the report is printed there, or the option
takes a folder); never a file or folder named `-`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from reconciler.local.state import LocalCluster
from tests.spec_repo import RECONCILER, SpecRepo


def _run(cwd: Path, repo: SpecRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """In `cwd`, so a `-` written by mistake lands there, where the test looks for it."""
    env = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1"}
    return subprocess.run(
        [*RECONCILER, "--repo", str(repo.root), *args], cwd=cwd, capture_output=True,
        text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["plan", "-o", "-"], "-o - cannot write to standard output: the plan is printed there"),
        (["drift", "--snapshot-out", "-"], "the drift report is printed there"),
        (["import", "--out", "-"], "--out -"),  # refused first as outside the topics folder
        (["compile", "--out", "-"], "--out - cannot write to standard output: it takes a folder"),
        (["init", "-", "--bootstrap", "127.0.0.1:1"], "DIR - cannot write to standard output"),
        (
            ["fleet", "drift", "--desired", "d", "--snapshots", "s", "--out", "-"],
            "--out - cannot write to standard output",
        ),
    ],
)
def test_a_dash_where_it_cannot_mean_stdout_is_one_sentence(
    tmp_path: Path, args: list[str], says: str
) -> None:
    repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    repo.topics({"name": "t.a", "partitions": 1})
    cwd = tmp_path / "cwd"
    for folder in ("d", "s"):
        (cwd / folder).mkdir(parents=True)
    proc = _run(cwd, repo, *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "127.0.0.1:1" not in proc.stderr  # refused before any connection
    assert "Traceback" not in proc.stderr
    assert not (cwd / "-").exists() and not (repo.root / "-").exists()


def test_snapshot_dash_writes_the_snapshot_to_stdout(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "specs", kafka1.bootstrap, ns)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = _run(cwd, repo, "snapshot", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cluster"] == "test"
    lines = _run(cwd, repo, "snapshot", "-o", "-", "--format", "jsonl")
    assert lines.returncode == 0, lines.stderr
    assert all(json.loads(line) for line in lines.stdout.splitlines())
    assert not (cwd / "-").exists()
