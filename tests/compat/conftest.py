"""Clusters of other Kafka versions: the ends of the supported range, and one below it.

Each version's cluster is started once per module (the code behind `local up --kafka-version`),
tied to pytest, and stopped by pid in teardown. Two brokers are enough for the journey (a
replication-factor change needs two).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.local import state as local_state
from reconciler.local.commands import default_overrides
from reconciler.local.distribution import ensure_distribution
from tests.kafka_fixtures import own_cluster

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
    with own_cluster(
        request,
        tmp_path_factory,
        dist,
        f"kafka-{version}",
        brokers,
        overrides=default_overrides(brokers),
    ) as cl:
        yield cl
