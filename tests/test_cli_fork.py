"""tests/cli_fork.py gives what a real `python -m reconciler` subprocess gives: the same output,
exit code, environment, working directory and stdin, and a timeout that ends the child."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import cli_fork

REAL = [sys.executable, "-m", "reconciler"]


def _real(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*REAL, *args], capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["plan", "--no-such-option"],
        ["--repo", "/nonexistent/repo", "plan"],
        ["validate", "--format", "json"],
        ["help", "spec"],
    ],
)
def test_output_and_exit_code_are_a_real_runs(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "reconciler.yaml").write_text("topics: topics/\nclusters: {}\n")
    env = {**os.environ, "NO_COLOR": "1"}
    forked = cli_fork.run(args, env=env, cwd=tmp_path)
    real = _real(args, env=env, cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


def test_the_childs_environment_and_directory_are_the_requested_ones(tmp_path: Path) -> None:
    """A variable the server never had reaches the child; the repository is found from cwd."""
    (tmp_path / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  a:\n    bootstrap: ${CLI_FORK_TEST_BOOTSTRAP}\n"
    )
    (tmp_path / "topics").mkdir()
    without = cli_fork.run(["validate"], env={**os.environ, "NO_COLOR": "1"}, cwd=tmp_path)
    with_it = cli_fork.run(
        ["validate"],
        env={**os.environ, "NO_COLOR": "1", "CLI_FORK_TEST_BOOTSTRAP": "127.0.0.1:9092"},
        cwd=tmp_path,
    )
    assert "CLI_FORK_TEST_BOOTSTRAP" in without.stdout  # validate warns it is unset
    assert with_it.returncode == 0 and "CLI_FORK_TEST_BOOTSTRAP" not in with_it.stdout


def test_stdin_reaches_the_child(tmp_path: Path) -> None:
    """`apply` asks for confirmation on stdin: what the test writes is what it reads."""
    env = {**os.environ, "NO_COLOR": "1"}
    args = ["--repo", str(tmp_path), "apply", "--cluster", "x"]
    (tmp_path / "reconciler.yaml").write_text("topics: topics/\nclusters: {}\n")
    forked = cli_fork.run(args, env=env, input="no\n")
    real = _real(args, env=env, input="no\n")
    assert (forked.returncode, forked.stderr) == (real.returncode, real.stderr)


def test_a_timeout_ends_the_child(tmp_path: Path) -> None:
    """As subprocess.run: TimeoutExpired, and the child does not run on."""
    (tmp_path / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  a:\n    bootstrap: 127.0.0.1:9\n"
    )
    (tmp_path / "topics").mkdir()
    before = _children_of_the_server()
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        cli_fork.run(["--repo", str(tmp_path), "plan", "--cluster", "a"], timeout=0.3)
    assert time.monotonic() - started < 30
    deadline = time.monotonic() + 10
    while _children_of_the_server() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _children_of_the_server() - before


def test_a_startup_variable_gets_a_fresh_interpreter() -> None:
    """PYTHONIOENCODING is read when Python starts: a forked child could not honour it."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii:backslashreplace"}
    forked = cli_fork.run(["--version"], env=env)
    assert forked.returncode == 0
    assert cli_fork._needs_a_fresh_interpreter(env)
    assert not cli_fork._needs_a_fresh_interpreter(dict(os.environ))


def _children_of_the_server() -> set[int]:
    server = cli_fork._Server._proc
    if server is None:
        return set()
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == server.pid:
                found.add(int(pid))
    return found
