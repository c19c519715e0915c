"""Clusters of other Kafka versions: the ends of the supported range, every line between
(`make compat`), and one below it.

Each version's cluster is started once per module (the code behind `local up --kafka-version`),
tied to pytest, and stopped by pid in teardown. Two brokers are enough for the journey (a
replication-factor change needs two); `--kafka-brokers 3` runs it on three racked brokers.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.local import state as local_state
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import ensure_distribution
from tests.kafka_fixtures import own_cluster

OLDEST = "2.4.1"  # the oldest supported release (ZooKeeper mode): ListPartitionReassignments
NEWEST = "4.4.0"  # the newest release on Maven Central (KRaft)
TOO_OLD = "2.3.1"  # the last release without ListPartitionReassignments (KIP-455)

# The newest patch of every minor line from OLDEST to NEWEST on Maven Central (the
# maven-metadata.xml of org.apache.kafka:kafka_2.13, checked 2026-11-28): `make compat` runs the
# journey on each (`--kafka-versions matrix`); tests/compat/test_matrix.py keeps it whole.
MATRIX = (
    "2.4.1", "2.5.1", "2.6.3", "2.7.2", "2.8.2",
    "3.0.2", "3.1.2", "3.2.3", "3.3.2", "3.4.1", "3.5.2", "3.6.2", "3.7.2", "3.8.1", "3.9.2",
    "4.0.2", "4.1.2", "4.2.2", "4.3.1", "4.4.0",
)  # fmt: skip
ENDS = (OLDEST, NEWEST)  # what `make test` runs the journey on (the pinned 4.1.1: everywhere)


def journey_versions(config: pytest.Config) -> tuple[str, ...]:
    """The releases `--kafka-versions` names: `matrix`, a comma list, or by default the ends."""
    chosen = str(config.getoption("kafka_versions") or "").strip()
    if not chosen:
        return ENDS
    if chosen == "matrix":
        return MATRIX
    return tuple(v.strip() for v in chosen.split(",") if v.strip())


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
