"""SIGINT and SIGTERM outside apply (reconciler/cli/signals.py): a command waiting for a cluster's
answer, inside the Kafka client, exits 130 or 143 with one line, never a traceback, "internal
error" or click's "Aborted." (exit 1). The "cluster" is a socket that accepts and never answers,
so the signal is sent once the client is connected and waiting: no timing is guessed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from tests.spec_repo import RECONCILER


@pytest.mark.parametrize(("sig", "code", "line"), [
    (signal.SIGINT, 130, "Interrupted."),
    (signal.SIGTERM, 143, "Terminated."),
])  # fmt: skip
def test_a_signal_while_waiting_for_a_cluster_exits_cleanly(
    tmp_path: Path, sig: signal.Signals, code: int, line: str
) -> None:
    silent = socket.create_server(("127.0.0.1", 0))
    port = silent.getsockname()[1]
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        f"topics: topics/\nclusters:\n  test: {{bootstrap: '127.0.0.1:{port}'}}\n"
    )
    (tmp_path / "topics" / "a.yaml").write_text("topics:\n  - name: a.b\n    partitions: 1\n")
    proc = subprocess.Popen(
        [*RECONCILER, "--repo", str(tmp_path), "plan", "--cluster", "test"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        silent.settimeout(60)
        connection, _ = silent.accept()  # the client is connected and waits for an answer
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
        connection.close()
    finally:
        silent.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert err.strip().splitlines()[-1] == line
    assert "Traceback" not in err and "internal error" not in err
