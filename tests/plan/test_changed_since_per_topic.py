"""`plan --changed-since REF` marks a change as the pull request's own topic by topic: each
topic's spec at REF is compared with its spec now (as loaded: through templates, defaults and
symbolic links), not the files git lists as changed. The marks are read on the whole plan
(`--whole-plan`; by default the plan keeps the `change`s and sets the drift apart). Planned
offline against a snapshot with drift in it (`--state`): what is decided is git's and the
loader's, no broker's."""

from __future__ import annotations

import os
from pathlib import Path

import git

from reconciler.cluster.snapshot import write_snapshot
from tests import yaml_text
from tests.planning.factories import cluster, topic
from tests.spec_repo import SpecRepo

AUTHOR = git.Actor("Test", "test@example.com")


def _commit(root: Path) -> None:
    repository = git.Repo(root)
    repository.git.add("--all")
    repository.index.commit("specs", author=AUTHOR, committer=AUTHOR)


def _causes(repo: SpecRepo, snapshot: Path) -> dict[str, str | None]:
    result = repo.run("plan", "--cluster", "test", "--format", "json", "--state", str(snapshot),
                      "--changed-since", "HEAD", "--whole-plan")  # fmt: skip
    assert result.code in (0, 2), result.stdout + result.stderr
    return {c["topic"]: c.get("cause") for c in result.json()["changes"]}


def _write(path: Path, topics: list[dict[str, object]], comment: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(comment + yaml_text.safe_dump({"topics": topics}, sort_keys=False))


def _snapshot(tmp_path: Path) -> Path:
    """t.a and t.b as first applied; t.b's retention raised out of band (drift)."""
    drifted = topic("t.b", overrides={"retention.ms": "999999"})
    path = tmp_path / "snap.json"
    write_snapshot(path, "test", cluster(topic("t.a"), drifted))
    return path


def test_another_topic_of_an_edited_file_keeps_its_drift_apart(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    file = repo.root / "topics" / "team.yaml"
    _write(file, [{"name": "t.a", "partitions": 1}, {"name": "t.b", "partitions": 1}])
    git.Repo.init(repo.root)
    _commit(repo.root)
    snapshot = _snapshot(tmp_path)
    # A comment and a reordering change no topic: the drift on t.b is not this change's
    _write(file, [{"name": "t.b", "partitions": 1}, {"name": "t.a", "partitions": 1}], "# moved\n")
    assert _causes(repo, snapshot) == {"t.b": "drift"}
    # The pull request grows t.a only: t.b, in the same file, stays drift
    _write(file, [{"name": "t.a", "partitions": 2}, {"name": "t.b", "partitions": 1}])
    assert _causes(repo, snapshot) == {"t.a": "change", "t.b": "drift"}


def test_an_edit_reached_through_a_linked_folder_is_the_changes_own(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    (repo.root / "topics").rmdir()  # made by SpecRepo: a link takes its place
    real = repo.root / "shared" / "team.yaml"
    _write(real, [{"name": "t.a", "partitions": 1}, {"name": "t.b", "partitions": 1}])
    os.symlink("shared", repo.root / "topics")  # git lists shared/team.yaml, the loader topics/
    git.Repo.init(repo.root)
    _commit(repo.root)
    _write(real, [{"name": "t.a", "partitions": 2}, {"name": "t.b", "partitions": 1}])
    assert _causes(repo, _snapshot(tmp_path)) == {"t.a": "change", "t.b": "drift"}
