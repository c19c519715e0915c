"""Waiting for a cluster: `--timeout SECONDS` bounds it for every command that talks to one, the
wait says it is alive every few seconds whatever the terminal, and apply's confirmation takes
the whole word (`yes`, or the cluster's name where reconciler.yaml says `confirm: name`)."""

from __future__ import annotations

import os
import pty
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from reconciler.cli.heartbeat import Heartbeat
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo

# slow: `make check` leaves it out (waits out --timeout and the heartbeat's silences)
pytestmark = pytest.mark.slow

TALKING = [("plan",), ("apply", "--auto-approve"), ("drift",), ("snapshot",), ("import",)]


@pytest.fixture
def silent() -> Iterator[str]:
    """A bootstrap that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"127.0.0.1:{server.getsockname()[1]}"


def _repo(root: Path, bootstrap: str) -> Path:
    (root / "topics").mkdir(parents=True)
    config = {"clusters": {"prod": {"bootstrap": bootstrap}}}
    (root / "reconciler.yaml").write_text(yaml_text.safe_dump(config))
    return root


def _run(repo: Path, *args: str) -> tuple[int, str, str, float]:
    started = time.monotonic()
    done = subprocess.run(
        [*RECONCILER, *args, "--repo", str(repo)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


@pytest.mark.parametrize("kind", ["refused", "silent", "unresolvable"])
@pytest.mark.parametrize("command", TALKING, ids=" ".join)
def test_timeout_bounds_the_wait_with_one_line(
    tmp_path: Path, silent: str, kind: str, command: tuple[str, ...]
) -> None:
    # The time it takes is measured, not asserted (docs/commands.md, --timeout): a loaded
    # machine must not fail this; one line and exit 1 are what a caller relies on
    bootstrap = {"refused": "127.0.0.1:1", "silent": silent, "unresolvable": "no-such.invalid:9092"}
    code, stdout, stderr, _ = _run(_repo(tmp_path, bootstrap[kind]), *command, "--timeout", "2")
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"error: could not describe cluster 'prod' at {bootstrap[kind]}: ")
    assert "Traceback" not in stderr and stdout == ""


def test_a_long_wait_says_so_every_few_seconds_without_a_terminal(
    tmp_path: Path, silent: str
) -> None:
    code, _, stderr, _ = _run(_repo(tmp_path, silent), "drift", "--timeout", "12")
    assert code == 1
    beats = [line for line in stderr.splitlines() if line.startswith("... still")]
    assert beats[0] == "... still checking cluster 'prod' for drift (5 s)", stderr
    assert stderr.strip().splitlines()[-1].startswith("error: could not describe cluster 'prod'")


def test_heartbeat_speaks_only_after_silence(capsys: pytest.CaptureFixture[str]) -> None:
    with Heartbeat("waiting for Godot", every=0.2) as beat:
        beat.touch()
        deadline = time.monotonic() + 60
        while "still waiting for Godot" not in capsys.readouterr().err:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert capsys.readouterr().err == ""  # nothing once the wait is over


def topic_names(bootstrap: str) -> set[str]:
    from confluent_kafka.admin import AdminClient

    return set(
        AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
        .list_topics(timeout=30)
        .topics
    )


def _apply_on_a_terminal(repo: SpecRepo, typed: str) -> tuple[int, str]:
    """`reconciler apply` with a terminal on stdin (it asks), answering `typed`."""
    leader, follower = pty.openpty()
    env = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [*RECONCILER, "apply", "--repo", str(repo.root)],
        stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True,
    )  # fmt: skip
    os.close(follower)
    os.write(leader, f"{typed}\n".encode())
    output, _ = proc.communicate(timeout=180)
    os.close(leader)
    return proc.returncode, output


def test_apply_asks_for_the_whole_word(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    code, output = _apply_on_a_terminal(repo, "y")
    assert code == 1, output
    assert "Only 'yes' approves" in output
    assert "Apply cancelled (only 'yes' approves); nothing was changed." in output
    assert f"{ns}.a" not in topic_names(kafka1.bootstrap)
    code, output = _apply_on_a_terminal(repo, "yes")
    assert code == 0, output
    assert f"{ns}.a" in topic_names(kafka1.bootstrap)


def test_a_cluster_marked_confirm_name_wants_its_name(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["confirm"] = "name"
    repo.write("reconciler.yaml", config)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    code, output = _apply_on_a_terminal(repo, "yes")
    assert code == 1, output
    assert "Apply cancelled (only 'test' approves); nothing was changed." in output
    assert f"{ns}.a" not in topic_names(kafka1.bootstrap)
    code, output = _apply_on_a_terminal(repo, "test")
    assert code == 0, output
    assert f"{ns}.a" in topic_names(kafka1.bootstrap)
