"""`plan --changed-since REF`: only topics declared in spec files changed since a git ref.

Planned offline against a snapshot (`--state`), so no broker is needed: which topics are kept
is decided from git and the specs alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import git
import pytest

from reconciler.cluster.snapshot import write_snapshot
from tests.planning.factories import cluster, topic
from tests.spec_repo import SpecRepo

AUTHOR = git.Actor("Test", "test@example.com")


@pytest.fixture
def repo(tmp_path: Path) -> SpecRepo:
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    spec_repo.topics({"name": "t.pay", "partitions": 1}, file="topics/payments.yaml")
    spec_repo.topics({"name": "t.ship", "partitions": 1}, file="topics/shipping.yaml")
    write_snapshot(tmp_path / "snap.json", "test", cluster(topic("t.pay"), topic("t.ship")))
    git_repo = git.Repo.init(tmp_path / "specs")
    git_repo.index.add(["reconciler.yaml", "topics/payments.yaml", "topics/shipping.yaml"])
    git_repo.index.commit("specs", author=AUTHOR, committer=AUTHOR)
    return spec_repo


def plan(repo: SpecRepo, *args: str) -> dict[str, Any]:
    snapshot = str(repo.root.parent / "snap.json")
    result = repo.run("plan", "--cluster", "test", "--format", "json", "--state", snapshot, *args)
    assert result.code == 0, result.stderr
    return dict(result.json())


def test_only_topics_of_changed_files_are_planned(repo: SpecRepo) -> None:
    repo.topics({"name": "t.pay", "partitions": 2}, file="topics/payments.yaml")
    repo.topics({"name": "t.ship", "partitions": 2}, file="topics/shipping.yaml")
    repo.topics({"name": "t.new", "partitions": 1}, file="topics/new.yaml")  # untracked

    full = plan(repo)
    changed = plan(repo, "--changed-since", "HEAD")

    assert sorted(c["topic"] for c in full["changes"]) == ["t.new", "t.pay", "t.ship"]
    assert sorted(c["topic"] for c in changed["changes"]) == ["t.new", "t.pay", "t.ship"]
    git_repo = git.Repo(repo.root)
    git_repo.index.add(["topics/payments.yaml", "topics/new.yaml"])
    first = git_repo.index.commit("pay", author=AUTHOR, committer=AUTHOR)
    assert [c["topic"] for c in plan(repo, "--changed-since", "HEAD")["changes"]] == ["t.ship"]
    since_first = plan(repo, "--changed-since", f"{first.hexsha}~1")
    assert sorted(c["topic"] for c in since_first["changes"]) == ["t.new", "t.pay", "t.ship"]


def test_unknown_ref_is_a_clear_error(repo: SpecRepo) -> None:
    snapshot = str(repo.root.parent / "snap.json")
    result = repo.run(
        "plan", "--cluster", "test", "--state", snapshot, "--changed-since", "no-such-branch"
    )
    assert result.code == 1
    assert "'no-such-branch' is not a commit" in result.stderr


def test_outside_git_is_a_clear_error(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "plain", "127.0.0.1:1", "t")
    repo.topics({"name": "t.a"})
    write_snapshot(tmp_path / "snap.json", "test", cluster())
    result = repo.run(
        "plan",
        "--cluster",
        "test",
        "--state",
        str(tmp_path / "snap.json"),
        "--changed-since",
        "HEAD",
    )
    assert result.code == 1 and "needs a git repository" in result.stderr
