"""Clusters of other Kafka versions: the ends of the supported range, and one below it.

Each version's cluster is started once per module (the code behind `local up --kafka-version`),
tied to pytest, and stopped by pid in teardown. Two brokers are enough for the journey (a
replication-factor change needs two).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.commands import default_overrides
from reconciler.local.distribution import ensure_distribution

OLDEST = "2.4.1"  # the oldest supported release (ZooKeeper mode): ListPartitionReassignments
NEWEST = "4.4.0"  # the newest release on Maven Central (KRaft)
TOO_OLD = "2.3.1"  # the last release without ListPartitionReassignments (KIP-455)


def start_version(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    version: str,
    brokers: int,
) -> Iterator[local_state.LocalCluster]:
    dist = ensure_distribution(version=version)
    state = tmp_path_factory.mktemp(f"kafka-{version}")
    began = time.monotonic()
    cl = local_cluster.start(
        state, dist, brokers=brokers, overrides=default_overrides(brokers), tie_to_parent=True
    )
    _announce(
        request,
        f"\n[kafka] started {brokers}-broker Apache Kafka {version} ({cl.metadata}) in "
        f"{time.monotonic() - began:.1f} s at {cl.bootstrap}",
    )
    try:
        yield cl
    finally:
        local_cluster.stop(cl)


def _announce(request: pytest.FixtureRequest, line: str) -> None:
    capman = request.config.pluginmanager.getplugin("capturemanager")
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    if capman is not None and reporter is not None:
        with capman.global_and_fixture_disabled():
            reporter.write_line(line)
