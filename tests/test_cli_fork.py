"""tests/cli_fork.py gives what a real `python -m reconciler` subprocess gives: the same output,
exit code, environment, working directory and stdin, and a timeout that ends the child."""

from __future__ import annotations

import os
import socket
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


def test_a_startup_variable_gets_a_fresh_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTHONIOENCODING is read when Python starts: a forked child could not honour it, so that
    run is a real subprocess, and a run without it is forked."""
    started: list[list[str]] = []
    real_run = subprocess.run

    def recording(command: list[str], **kwargs: object) -> object:
        started.append(command)
        return real_run(command, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", recording)
    plain = cli_fork.run(["--version"], env=dict(os.environ))
    assert plain.returncode == 0 and started == []
    env = {**os.environ, "PYTHONIOENCODING": "ascii:backslashreplace"}
    fresh = cli_fork.run(["--version"], env=env)
    assert (fresh.returncode, fresh.stdout) == (0, plain.stdout)
    assert started == [[sys.executable, "-m", "reconciler", "--version"]]


def test_a_client_gone_mid_request_leaves_the_server_serving() -> None:
    """A test process interrupted while sending its request costs the server nothing."""
    assert cli_fork.run(["--version"]).returncode == 0  # the server is up
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as half:
        half.connect(cli_fork._Server.address())
        half.sendall(b"\0\0\1\0{")  # a length of 256, one byte of it, no descriptors
    done = cli_fork.run(["--version"])
    assert done.returncode == 0 and done.stdout.startswith("reconciler")


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
