"""`reconciler local up|status|down` as a user runs them, in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

RECONCILER = [sys.executable, "-m", "reconciler"]


def run(
    *args: str, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RECONCILER, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def kafka_processes(marker: Path) -> list[int]:
    """Pids of every process whose command line mentions marker (our state directory)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if str(marker).encode() in (proc / "cmdline").read_bytes():
                    pids.append(int(proc.name))
            except OSError:
                continue
    return pids


@pytest.mark.kafka
def test_up_status_down_leaves_no_kafka_process(tmp_path: Path, kafka_dist: object) -> None:
    state = tmp_path / "local"
    try:
        up = run("local", "--state-dir", str(state), "up", "--brokers", "3")
        assert up.returncode == 0, up.stderr
        lines = up.stdout.splitlines()
        assert re.fullmatch(r"bootstrap: (127\.0\.0\.1:\d+,){2}127\.0\.0\.1:\d+", lines[0])
        assert re.search(
            r"^  1  127\.0\.0\.1:\d+  rack=rack-a  roles=broker,controller", up.stdout, re.M
        )
        assert re.search(r"^  3  127\.0\.0\.1:\d+  rack=rack-c  roles=broker ", up.stdout, re.M)
        assert len(kafka_processes(state)) == 3

        status = run("local", "--state-dir", str(state), "status")
        assert status.returncode == 0
        assert status.stdout.splitlines()[0] == lines[0]

        again = run("local", "--state-dir", str(state), "up")
        assert again.returncode == 0 and "already running" in again.stderr
    finally:
        down = run("local", "--state-dir", str(state), "down")
    assert down.returncode == 0, down.stderr
    assert "stopped node(s) [1, 2, 3]" in down.stdout
    assert kafka_processes(state) == []
    gone = run("local", "--state-dir", str(state), "status")
    assert gone.returncode == 1
    assert "no local cluster is running" in gone.stderr


def _path_without(tool: str, tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has every tool of this machine's PATH except `tool`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for directory in os.environ["PATH"].split(os.pathsep):
        for name in ("java", "mvn"):
            src = Path(directory) / name
            if name != tool and src.exists() and not (bin_dir / name).exists():
                (bin_dir / name).symlink_to(src)
    return {**os.environ, "PATH": str(bin_dir)}


def test_missing_java_is_one_sentence(tmp_path: Path, kafka_dist: object) -> None:
    result = run(
        "local", "--state-dir", str(tmp_path / "s"), "up", env=_path_without("java", tmp_path)
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error: java was not found on PATH: install Java 17 or newer" in result.stderr


def test_missing_maven_is_one_sentence(tmp_path: Path) -> None:
    env = _path_without("mvn", tmp_path)
    env["RECONCILER_CACHE"] = str(tmp_path / "empty-cache")  # forces a fetch
    result = run("local", "fetch", env=env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "error: mvn (Apache Maven) was not found on PATH: install Maven" in result.stderr


def test_cluster_ids_never_start_with_a_dash() -> None:
    """The storage tool's parser reads `-t -abc...` as a missing argument: ids are made as
    Kafka's Uuid.randomUuid() makes them."""
    import base64

    from reconciler.local.cluster import random_cluster_id

    ids = [random_cluster_id() for _ in range(2000)]  # ~31 would start with '-' by chance
    assert not [i for i in ids if i.startswith("-")]
    assert all(len(base64.urlsafe_b64decode(i + "==")) == 16 for i in ids)
