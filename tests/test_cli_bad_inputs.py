"""Bad files and options handed to the CLI: one clear line naming the file or option, exit 1,
no traceback, no hang, and no cluster contacted (the bootstrap points at a closed port, so any
attempt would say so); hostile file names that cannot rewrite the terminal or the comment."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from reconciler import __version__, readable
from reconciler.cluster import client_settings, jsonl
from reconciler.cluster.adapter import client_security
from reconciler.errors import ClusterError, ConfigError
from reconciler.fleet import overlap
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
        ' "changes": [], "diagnostics": [], "unmanaged": [],'
        f' "made_by": {{"reconciler": "{__version__}"}}}}'
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


# --- files that are not regular, or too large: refused unread, never a hang ----------------


def _not_regular(tmp_path: Path, kind: str) -> Path:
    if kind == "fifo":
        path = tmp_path / "plan.fifo"
        os.mkfifo(path)  # opened for reading without a writer, it would block forever
        return path
    if kind == "directory":
        path = tmp_path / "plan.dir"
        path.mkdir()
        return path
    return Path("/dev/zero")  # endless: read whole, it exhausts memory


def _one_sentence(result: Any, path: Path, says: str) -> None:
    assert result.code == 1, result.stderr
    assert str(path) in result.stderr and says in result.stderr, result.stderr
    if "Usage:" not in result.stderr:  # click's own refusal of a directory: usage, then it
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "127.0.0.1:1" not in result.stderr  # refused before any connection


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_apply_refuses_a_saved_plan_that_is_not_a_regular_file(
    repo: SpecRepo, tmp_path: Path, kind: str
) -> None:
    path = _not_regular(tmp_path, kind)
    result = repo.run("apply", "--cluster", "test", str(path), "--auto-approve", timeout=60)
    _one_sentence(result, path, "directory" if kind == "directory" else "not a regular file")


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_plan_refuses_a_state_file_that_is_not_a_regular_file(
    repo: SpecRepo, tmp_path: Path, kind: str
) -> None:
    path = _not_regular(tmp_path, kind)
    result = repo.run("plan", "--cluster", "test", "--state", str(path), timeout=60)
    _one_sentence(result, path, "directory" if kind == "directory" else "not a regular file")


@pytest.mark.parametrize(
    ("command", "cap"),
    [("apply", readable.PLAN_CAP), ("plan", readable.SNAPSHOT_CAP)],
)
def test_a_file_over_its_cap_is_refused_unread(
    repo: SpecRepo, tmp_path: Path, command: str, cap: int
) -> None:
    """A sparse file one byte over the cap: refused by its size, never read (no memory)."""
    path = tmp_path / "huge.json"
    with path.open("wb") as out:
        out.truncate(cap + 1)
    args = [str(path), "--auto-approve"] if command == "apply" else ["--state", str(path)]
    result = repo.run(command, "--cluster", "test", *args, timeout=60)
    _one_sentence(result, path, f"over the {cap // 2**20} MiB limit")


def test_a_snapshot_lines_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    path = _not_regular(tmp_path, "fifo")
    with pytest.raises(ConfigError, match="FIFO"):
        jsonl.load(path)


def test_a_client_certificate_that_is_a_fifo_is_one_sentence(tmp_path: Path) -> None:
    path = _not_regular(tmp_path, "fifo")
    with pytest.raises(ClusterError, match=r"ssl.ca.location .* is a FIFO"):
        client_security._read("prod", "ssl.ca.location", str(path))


# --- numeric options: the range the clients take ------------------------------------------

BAD_SECONDS = ["nan", "inf", "-inf", "-1", "0", "0.5", "86400", "1e309", "ten"]


@pytest.mark.parametrize("value", BAD_SECONDS)
def test_timeout_outside_what_the_clients_take_is_refused(repo: SpecRepo, value: str) -> None:
    result = repo.run("--timeout", value, "plan", "--cluster", "test")
    assert result.code == 1, result.stderr
    assert "--timeout" in result.stderr and "from 1 to 3600" in result.stderr
    assert "127.0.0.1:1" not in result.stderr and "internal error" not in result.stderr


@pytest.mark.parametrize(  # the values: tests/plan/test_sample_window.py; drift samples nothing
    ("command", "value"), [("plan", "5s"), ("apply", "0")]
)
def test_a_sample_window_outside_its_range_is_refused_before_the_cluster(
    repo: SpecRepo, monkeypatch: pytest.MonkeyPatch, command: str, value: str
) -> None:
    monkeypatch.setenv("RECONCILER_SAMPLE_MS", value)
    result = repo.run(command, "--cluster", "test", timeout=60)
    assert result.code == 1, result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr  # one sentence
    assert f"RECONCILER_SAMPLE_MS={value!r}" in result.stderr and "from 100 to 600000" in (
        result.stderr
    )
    assert "internal error" not in result.stderr and "127.0.0.1:1" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["local", "down", "--grace", "nan"],
        ["local", "down", "--grace", "inf"],
        ["local", "start-node", "2", "--timeout", "-1"],
        ["local", "up", "--timeout", "1e400"],
        ["plan", "--cluster", "test", "--max-chars", "99999999999"],
        ["drift", "--cluster", "test", "--max-chars", "10000001"],
        ["apply", "--cluster", "test", "--auto-approve", "--throttle", "9" * 30],
        ["apply", "--cluster", "test", "--auto-approve", "--throttle", "0"],
    ],
    ids=lambda args: " ".join(args)[:40],
)
def test_other_numeric_options_out_of_range_are_refused(repo: SpecRepo, args: list[str]) -> None:
    result = repo.run(*args, timeout=60)
    assert result.code == 1, result.stderr
    assert args[-2] in result.stderr  # the option
    assert "internal error" not in result.stderr and "127.0.0.1:1" not in result.stderr


def test_a_client_request_timeout_librdkafka_refuses_is_one_sentence() -> None:
    for value in ("86400000", "999", "nan", "9" * 5000):
        with pytest.raises(ClusterError, match=r"request\.timeout\.ms"):
            client_settings.check("prod", {"request.timeout.ms": value})
    client_settings.check("prod", {"request.timeout.ms": "30000"})


# --- fleet drift --out overlapping an input -----------------------------------------------


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("{snap}", "is the --snapshots folder"),
        ("{snap}/out", "lies inside --snapshots"),
        ("{snap}/../snapshots/./out", "lies inside --snapshots"),
        ("{link}/out", "lies inside --snapshots"),
        ("{root}", "contains --desired"),
        ("{desired}/tables", "lies inside --desired"),
    ],
)
def test_fleet_out_overlapping_an_input_is_refused_before_spark(
    repo: SpecRepo, tmp_path: Path, out: str, says: str
) -> None:
    snap, desired = tmp_path / "snapshots", tmp_path / "desired"
    snap.mkdir()
    desired.mkdir()
    (tmp_path / "link").symlink_to(snap)
    shown = out.format(snap=snap, desired=desired, link=tmp_path / "link", root=tmp_path)
    args = ["--desired", str(desired), "--snapshots", str(snap), "--out", shown]
    result = repo.run("fleet", "drift", *args, timeout=60)
    assert result.code == 1, result.stderr
    assert says in result.stderr and "running the fleet drift job" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_fleet_remote_paths_compare_as_strings() -> None:
    with pytest.raises(ConfigError, match="lies inside --snapshots"):
        overlap.check("s3a://b/snap/out", {"--snapshots": "s3a://b/snap/"})
    overlap.check("s3a://b/snapshots-out", {"--snapshots": "s3a://b/snapshots"})
    overlap.check("/tmp/snap", {"--snapshots": "s3a://b/tmp/snap"})


# --- hostile file names reach the terminal and the failure comment inert --------------------

HOSTILE_FILE = "x\r\x1b[2J\n\n**Plan: 0 to create, 0 to update, 0 to delete.**\n\n<!--|`.yaml"


def test_a_hostile_spec_file_name_cannot_rewrite_the_terminal_or_the_comment(
    repo: SpecRepo,
) -> None:
    (repo.root / "topics" / HOSTILE_FILE).write_text("topics: [\n")
    text = repo.run("validate", "--cluster", "test")
    assert text.code == 1
    for out in (text.stdout, text.stderr):
        assert "\r" not in out and "\x1b" not in out
        assert not any(line.startswith("**Plan") for line in out.splitlines())
    assert "x\\r\\x1b[2J\\n\\n**Plan" in text.stdout + text.stderr
    comment = repo.run("plan", "--cluster", "test", "--format", "markdown")
    assert comment.code == 1
    assert "<!--" not in comment.stdout and "\r" not in comment.stdout
    rows = [line for line in comment.stdout.splitlines() if line.startswith("|")]
    assert rows and all(
        len(re.findall(r"(?<!\\)\|", row)) == len(re.findall(r"(?<!\\)\|", rows[0])) for row in rows
    )
    assert not any(line.startswith("**Plan") for line in comment.stdout.splitlines())
