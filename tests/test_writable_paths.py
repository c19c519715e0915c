"""Every file a command writes is checked before the work it records (reconciler/writable.py):
a path whose folder is missing or is a file is refused in one sentence, exit 1, before the
cluster is read (here it could not be: its bootstrap is a closed port, so any other answer would
be about the cluster). And import's file names stay within the file system's limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.import_cluster import ImportedTopic, layout
from reconciler.writable import check_dir, check_file, name_max
from tests.spec_repo import run_cli

UNREACHABLE = "127.0.0.1:1"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  test: {bootstrap: '${KAFKA_BOOTSTRAP}'}\n"
    )
    (root / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 1\n")
    (tmp_path / "file").write_text("not a folder\n")
    (root / "topics" / "file").write_text("not a folder\n")  # listed as not read, harmless
    return root


CASES = [
    # (command line, option as named, path under tmp_path, why)
    (["drift", "--cluster", "test", "--snapshot-out"], "--snapshot-out", "missing/s.json",
     "its folder {tmp}/missing does not exist"),
    (["drift", "--cluster", "test", "--snapshot-out"], "--snapshot-out", "file/s.json",
     "{tmp}/file is a file, not a folder"),
    (["plan", "--cluster", "test", "-o"], "-o", "file/plan.json",
     "{tmp}/file is a file, not a folder"),
    (["snapshot", "--cluster", "test", "-o"], "-o", "missing/s.json",
     "its folder {tmp}/missing does not exist"),
    (["apply", "--cluster", "test", "--auto-approve", "--audit-json"], "--audit-json",
     "file/a.json", "{tmp}/file is a file, not a folder"),
    # under the topics folder (import writes nowhere else), below a file
    (["import", "--cluster", "test", "--out"], "--out", "repo/topics/file/more",
     "{tmp}/repo/topics/file is a file, not a folder"),
    (["compile", "--cluster", "test", "--out"], "--out", "file/out",
     "{tmp}/file is a file, not a folder"),
    (["init", "--bootstrap", UNREACHABLE], "DIR", "file/new-repo",
     "{tmp}/file is a file, not a folder"),
    (["fleet", "drift", "--desired", "d", "--snapshots", "s", "--out"], "--out", "file/tables",
     "{tmp}/file is a file, not a folder"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "option", "rel", "why"), CASES)
def test_a_bad_output_path_is_refused_before_the_cluster_is_read(
    repo: Path, tmp_path: Path, args: list[str], option: str, rel: str, why: str
) -> None:
    target = tmp_path / rel
    done = run_cli(repo, UNREACHABLE, *args, str(target))
    assert done.code == 1
    assert done.stderr.splitlines() == [
        f"error: cannot write {option} {target}: {why.format(tmp=tmp_path)}; nothing was read "
        "or changed, give a path that can be written"
    ]
    assert not (tmp_path / "missing").exists()


def test_checks_leave_nothing_behind(tmp_path: Path) -> None:
    check_file(tmp_path / "new.json", "-o")
    check_dir(tmp_path / "a" / "b", "--out")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "old.json").write_text("kept")
    check_file(tmp_path / "old.json", "-o")  # opened for appending, never truncated
    assert (tmp_path / "old.json").read_text() == "kept"
    check_file(Path("/dev/null"), "-o")
    check_file(Path("-"), "--audit-json")


def test_import_file_names_fit_the_file_system_and_stay_unique(tmp_path: Path) -> None:
    """A 249-character topic name is its own prefix: `PREFIX.yaml` fits in 255 bytes, but when
    it is taken `PREFIX-2.yaml` would not: the prefix is cut to fit."""
    limit = name_max(tmp_path)
    long = "x" * 249
    topics = [ImportedTopic(long, {"name": long, "partitions": 1}, ())]
    (tmp_path / f"{long}.yaml").write_text("topics: []\n")  # taken: the next name is needed
    files = layout(topics, tmp_path, "test", clusters_field=False, schema=None, name_max=limit)
    [path] = [f.path for f in files]
    assert len(os.fsencode(path.name)) <= limit
    assert path.name == f"{long[: limit - 7]}-2.yaml"
    path.write_text(files[0].text)  # the name the file system takes
    again = layout(topics, tmp_path, "test", clusters_field=False, schema=None, name_max=limit)
    assert again[0].path.name.endswith("-3.yaml")
