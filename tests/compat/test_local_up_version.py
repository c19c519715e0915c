"""`reconciler local up --kafka-version` end to end: a ZooKeeper-mode cluster from the CLI, its
status, and `down` leaving no process behind (ZooKeeper included)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.local import sidecars
from reconciler.local.state import load_state
from tests.compat.conftest import OLDEST
from tests.spec_repo import run_cli

pytestmark = pytest.mark.kafka


def test_up_status_down_of_a_zookeeper_mode_version(tmp_path: Path) -> None:
    state = tmp_path / "state"
    local = ("local", "--state-dir", str(state))
    up = run_cli(tmp_path, "", *local, "up", "--brokers", "1", "--kafka-version", OLDEST,
                 timeout=300)  # fmt: skip
    cl = load_state(state)
    try:
        assert up.code == 0, up.stderr
        assert cl is not None and cl.kafka_version == OLDEST and cl.metadata == "zookeeper"
        zookeeper = cl.sidecar(sidecars.ZOOKEEPER)
        assert zookeeper is not None and zookeeper.running()
        status = run_cli(tmp_path, "", *local, "status")
        assert status.code == 0, status.stderr
        assert f"kafka: {OLDEST}  " in status.stdout
        assert f"controller: node 1 (elected; ZooKeeper at 127.0.0.1:{zookeeper.port})" in (
            status.stdout
        )
        assert f"zookeeper: 127.0.0.1:{zookeeper.port}  pid={zookeeper.pid}\n" in status.stdout
        again = run_cli(tmp_path, "", *local, "up", "--kafka-version", "4.4.0")
        assert again.code == 1
        assert f"runs Kafka {OLDEST}, not 4.4.0" in again.stderr
    finally:
        down = run_cli(tmp_path, "", *local, "down")
    assert down.code == 0, down.stderr
    assert cl is not None and cl.running_pids() == []
    assert not zookeeper.running()
    stopped = load_state(state)
    assert stopped is not None and all(s.pid is None for s in stopped.sidecars)
