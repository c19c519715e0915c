"""The specs' digest a saved plan records (spec/digest.py): every file plan reads counts, nothing
else does."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import reconciler.workflow.plan as plan_module
from reconciler.cluster.snapshot import write_snapshot
from reconciler.git_repo import head_commit
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.planning.factories import cluster

CONFIG = (
    'topics: topics/\nclusters:\n  prod:\n    bootstrap: "${KAFKA_BOOTSTRAP:-k:9092}"\n'
    '    client: {sasl.password: "${KAFKA_PASSWORD:-x}"}\n'
)
TOPIC = "topics:\n  - name: a.b\n    partitions: 3\n"


def repository(root: Path) -> Path:
    (root / "topics" / "team").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(CONFIG)
    (root / "topics" / "team" / "a.yaml").write_text(TOPIC)
    (root / "topics" / "b.yaml.j2").write_text("topics:\n  - name: b.{{ cluster }}\n")
    return root


def specs_digest(root: Path) -> str:
    """The digest plan records: of the bytes one command's load of cluster prod read."""
    return Context(root).digest("prod")


Edit = Callable[[Path], object]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


CHANGES: dict[str, Edit] = {
    "a comment in a topic file": lambda r: (r / "topics/team/a.yaml").write_text("# x\n" + TOPIC),
    "a value": lambda r: (r / "topics/team/a.yaml").write_text(TOPIC.replace("3", "4")),
    "reconciler.yaml": lambda r: (r / "reconciler.yaml").write_text(CONFIG + "# note\n"),
    "a template": lambda r: (r / "topics/b.yaml.j2").write_text("topics: []\n"),
    "a new file": lambda r: (r / "topics/c.yaml").write_text("topics: []\n"),
    "a file discovery warns it does not read": lambda r: (r / "topics/c.yml").write_text("x"),
    "a spec in a hidden folder": lambda r: _write(r / "topics/.staging/d.yaml", TOPIC),
    "a file renamed": lambda r: (r / "topics/team/a.yaml").rename(r / "topics/team/z.yaml"),
    "a file removed": lambda r: (r / "topics/b.yaml.j2").unlink(),
}

SAME: dict[str, Edit] = {
    "a file outside topics/": lambda r: (r / "README.md").write_text("hello\n"),
    "a saved plan beside the specs": lambda r: (r / "plan.json").write_text("{}"),
    "a file discovery does not load": lambda r: (r / "topics" / "notes.txt").write_text("x"),
}


@pytest.mark.parametrize("edit", CHANGES.values(), ids=CHANGES.keys())
def test_any_change_to_a_file_plan_reads_changes_the_digest(tmp_path: Path, edit: Edit) -> None:
    root = repository(tmp_path)
    before = specs_digest(root)
    assert before.startswith("sha256:") and len(before) == 7 + 64
    edit(root)
    assert specs_digest(root) != before


@pytest.mark.parametrize("edit", SAME.values(), ids=SAME.keys())
def test_files_plan_does_not_read_leave_the_digest(tmp_path: Path, edit: Edit) -> None:
    root = repository(tmp_path)
    before = specs_digest(root)
    edit(root)
    assert specs_digest(root) == before


def test_the_digest_is_of_the_files_not_of_the_environment_or_the_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plan and apply run with different principals and in different checkouts."""
    one = specs_digest(repository(tmp_path / "one"))
    monkeypatch.setenv("KAFKA_PASSWORD", "the write principal's")
    monkeypatch.setenv("KAFKA_BOOTSTRAP", "elsewhere:9092")
    assert specs_digest(repository(tmp_path / "two")) == one


def test_the_commit_is_git_head_and_none_outside_git(tmp_path: Path) -> None:
    root = repository(tmp_path)
    assert head_commit(root) is None
    git = ["git", "-C", str(root), "-c", "user.name=A", "-c", "user.email=a@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    assert head_commit(root) is None  # no commit yet
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "specs"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert head_commit(root) == head


def test_a_commit_the_caller_read_already_is_not_asked_of_git_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """apply reads the checkout once (its audit record's commit) and hands the commit to the
    plan it makes, so git is not asked for HEAD a second time."""
    root = repository(tmp_path / "repo")
    write_snapshot(tmp_path / "state.json", "prod", cluster())

    def asked(repo: Path) -> str | None:
        raise AssertionError(f"git asked for HEAD of {repo}")

    monkeypatch.setattr(plan_module, "head_commit", asked)
    made = plan_of(Context(root), "prod", snapshot=tmp_path / "state.json", commit="c" * 40)
    assert made.source is not None and made.source.commit == "c" * 40
    assert made.source.specs == specs_digest(root)
    monkeypatch.setattr(plan_module, "head_commit", lambda repo: None)  # outside git: asked
    alone = plan_of(Context(root), "prod", snapshot=tmp_path / "state.json")
    assert alone.source is not None and alone.source.commit is None
