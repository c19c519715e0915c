"""A broker older than the oldest supported Kafka: one sentence naming the missing request.

Kafka 2.3.1 (ZooKeeper mode; its ZooKeeper 3.4 client replaced by 3.5.7, see
reconciler/local/versions.py) answers ApiVersions without ListPartitionReassignments (KIP-455,
Kafka 2.4). Every command that reads the cluster must say so, with the minimum version, and
never blame the network.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.cluster.adapter.compatibility import MINIMUM
from reconciler.local.state import LocalCluster
from tests.compat.conftest import TOO_OLD, start_version
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def too_old(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    yield from start_version(request, tmp_path_factory, TOO_OLD, brokers=1)


COMMANDS = {
    "plan": ("plan",),
    "apply": ("apply", "--auto-approve"),
    "drift": ("drift",),
    "snapshot": ("snapshot", "-o", "snapshot.json"),
    "import": ("import",),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_reading_command_names_the_missing_request(
    too_old: LocalCluster, ns: str, tmp_path: Path, command: str
) -> None:
    repo = SpecRepo(tmp_path, too_old.bootstrap, ns)
    repo.topics({"name": f"{ns}.orders", "partitions": 1, "replication_factor": 1})
    result = repo.run(*COMMANDS[command], "-c", "test")
    assert result.code == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: cluster 'test' at {too_old.bootstrap} runs a Kafka too old for reconciler: "
        "its brokers do not know the ListPartitionReassignments request (KIP-455, added in "
        f"Kafka 2.4); upgrade them to Kafka {MINIMUM} or newer, the oldest reconciler supports."
    ], result.stderr
    assert "reachable" not in result.stderr
