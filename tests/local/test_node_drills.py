"""Stopping and starting single nodes of a local cluster, and how `status`/`up` report it.

Own two-broker cluster (module scope): these tests stop nodes, which must never disturb the
shared kafka1/kafka3.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.distribution import Distribution
from tests.kafka_fixtures import own_cluster
from tests.local.test_local_cli import run
from tests.spec_repo import schema_validator

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def drill(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    with own_cluster(request, tmp_path_factory, kafka_dist, "drill", 2) as cl:
        yield cl


def _cli(cl: local_state.LocalCluster, *args: str) -> tuple[int, str, str]:
    result = run("local", "--state-dir", str(cl.state_dir), *args)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # our child (tie_to_parent start): reap it
        time.sleep(0.05)


def test_stop_node_status_names_it_down_and_exits_1(drill: local_state.LocalCluster) -> None:
    """Finding 9: `local status` on a cluster with a stopped node exits 1 and names it."""
    rc, out, err = _cli(drill, "stop-node", "2")
    assert rc == 0, err
    assert local_cluster.down_nodes(local_cluster.current(drill)) == (2,)
    rc, out, err = _cli(drill, "status")
    assert rc == 1
    assert re.search(r"^  2  127\.0\.0\.1:\d+  rack=rack-b  roles=broker  pid=-  DOWN", out, re.M)
    assert re.search(r"^  1  .*pid=\d+$", out, re.M)  # the live node: no mark
    assert "degraded (2 nodes): node(s) [2] down" in err
    assert "start-node N" in err
    rc, out, err = _cli(drill, "status", "--format", "json")
    assert rc == 1 and "node(s) [2] down" in err
    report = json.loads(out)
    schema_validator("local-status.schema.json").validate(report)
    assert report["running"] is False
    assert [(n["id"], n["state"], n["rack"]) for n in report["nodes"]] == [
        (1, "up", "rack-a"), (2, "down", "rack-b"),
    ]  # fmt: skip

    rc, out, err = _cli(drill, "start-node", "2")
    assert rc == 0, err
    rc, out, err = _cli(drill, "status")
    assert rc == 0, err
    assert "DOWN" not in out
    rc, out, err = _cli(drill, "status", "--format", "json")
    assert rc == 0 and json.loads(out)["running"] is True, err
    assert {b.id for b in local_cluster.current(drill).describe().brokers} == {1, 2}


def test_up_on_cluster_with_a_dead_node_says_so_and_restarts_it(
    drill: local_state.LocalCluster,
) -> None:
    """Finding 9: `local up` with a dead node (killed outside the tool) does not say "already
    running": it names the dead node and starts it again on its ports and data."""
    victim = next(n for n in local_cluster.current(drill).nodes if n.id == 2)
    assert victim.pid
    os.kill(victim.pid, signal.SIGKILL)
    _wait_gone(victim.pid)

    rc, _, err = _cli(drill, "status")
    assert rc == 1 and "node(s) [2] down" in err

    rc, _, err = _cli(drill, "up")
    assert rc == 0, err
    assert "already running" not in err
    assert "degraded (2 nodes): node(s) [2] down; starting them again" in err
    after = local_cluster.current(drill)
    assert local_cluster.down_nodes(after) == ()
    assert next(n for n in after.nodes if n.id == 2).port == victim.port
    assert {b.id for b in after.describe().brokers} == {1, 2}


def test_stop_node_and_start_node_api_keep_the_state_file(
    drill: local_state.LocalCluster,
) -> None:
    """The functions drills use: each returns the updated cluster and records it on disk, so a
    value held from before (like the fixture's) still stops the right processes."""
    stopped = local_cluster.stop_node(drill, 1)
    assert local_cluster.down_nodes(stopped) == (1,)
    assert local_state.load_state(drill.state_dir) == stopped
    started = local_cluster.start_node(drill, 1, tie_to_parent=True)
    assert local_cluster.down_nodes(started) == ()
    assert local_state.load_state(drill.state_dir) == started
    assert local_cluster.start_node(started, 1) == started  # already running: no-op
    with pytest.raises(Exception, match="has no node 7; its nodes are \\[1, 2\\]"):
        local_cluster.stop_node(started, 7)
