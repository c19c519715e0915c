"""Apply's audit record carries HEAD's commit, author and message; a dirty tree is warned of."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reconciler.local.state import LocalCluster
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
        cwd=root, check=True, capture_output=True,
    )  # fmt: skip


def test_audit_names_the_commit_and_a_dirty_tree_is_warned_of(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "add a\n\nreviewed in #12")

    clean = repo.run("apply", "--cluster", "test", "--auto-approve", "--audit-json", "-")
    assert clean.code == 0, clean.stdout + clean.stderr
    assert "uncommitted" not in clean.stderr
    record = json.loads(clean.stdout[clean.stdout.index("{") :])
    assert record["git"]["author"] == "Ada <ada@example.com>"
    assert record["git"]["message"] == "add a\n\nreviewed in #12"
    assert record["git"]["dirty"] is False

    repo.topics({"name": f"{ns}.a", "partitions": 1}, {"name": f"{ns}.b", "partitions": 1})
    dirty = repo.run("apply", "--cluster", "test", "--auto-approve", "--audit-json", "-")
    assert dirty.code == 0, dirty.stdout + dirty.stderr
    assert "warning: the spec repository has uncommitted changes (topics/main.yaml)" in dirty.stderr
    record = json.loads(dirty.stdout[dirty.stdout.index("{") :])
    assert record["git"]["dirty"] is True
    assert record["git"]["changed_files"] == ["topics/main.yaml"]
