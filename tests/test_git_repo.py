"""reconciler/git_repo.py: the checkout an apply records, read from a real git repository, as
git itself answers (commit, author, message, the changed and untracked files of the spec
repository only)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import git
import pytest

from reconciler import git_repo
from reconciler.errors import ConfigError

ADA = git.Actor("Ada", "ada@example.com")


def head(root: Path) -> str:
    """HEAD as the git executable answers it."""
    return subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=root, text=True).strip()


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    """A spec repository in a subdirectory of a git repository, one commit."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("x\n")
    root = tmp_path / "specs"
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text("clusters: {}\n")
    (root / "topics" / "a.yaml").write_text("topics: []\n")
    made = git.Repo.init(tmp_path)
    made.git.add("--all")
    made.index.commit("add a\n\nreviewed in #12\n", author=ADA, committer=ADA)
    return root


def test_a_clean_checkout_names_head(specs: Path) -> None:
    found = git_repo.checkout(specs)
    assert found is not None
    assert found.commit == head(specs)
    assert found.to_json() == {
        "commit": found.commit,
        "author": "Ada <ada@example.com>",
        "message": "add a\n\nreviewed in #12",
        "dirty": False,
        "changed_files": [],
    }


def test_changed_and_untracked_files_of_the_spec_repository_only(specs: Path) -> None:
    (specs / "topics" / "a.yaml").write_text("topics: [{name: a}]\n")
    (specs / "topics" / "new.yaml").write_text("topics: []\n")
    (specs.parent / "other" / "x.txt").write_text("changed\n")  # outside the spec repository
    (specs.parent / "other" / "y.txt").write_text("new\n")
    found = git_repo.checkout(specs)
    assert found is not None
    assert found.dirty
    assert found.changed_files == ("topics/a.yaml", "topics/new.yaml")


def test_no_checkout_outside_git_or_before_the_first_commit(tmp_path: Path) -> None:
    assert git_repo.checkout(tmp_path) is None
    git.Repo.init(tmp_path)
    assert git_repo.checkout(tmp_path) is None


def test_changed_since_a_ref(specs: Path) -> None:
    first = head(specs)
    (specs / "topics" / "a.yaml").write_text("topics: [{name: a}]\n")
    (specs / "topics" / "b.yaml").write_text("topics: []\n")
    assert git_repo.changed_files(specs, first) == {"topics/a.yaml", "topics/b.yaml"}
    with pytest.raises(ConfigError, match="'nope' is not a commit"):
        git_repo.changed_files(specs, "nope")


def test_files_at_a_ref_are_copied_out(specs: Path, tmp_path: Path) -> None:
    first = head(specs)
    (specs / "topics" / "a.yaml").write_text("topics: [{name: a}]\n")
    into = tmp_path / "out"
    assert git_repo.copy_at(specs, first, lambda rel: rel.suffix == ".yaml", into)
    assert sorted(p.relative_to(into).as_posix() for p in into.rglob("*.yaml")) == [
        "reconciler.yaml",
        "topics/a.yaml",
    ]
    assert (into / "topics" / "a.yaml").read_text() == "topics: []\n"
