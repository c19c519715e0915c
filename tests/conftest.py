from __future__ import annotations

import pytest

from tests.kafka_fixtures import ANNOUNCED, kafka1, kafka3, kafka_dist, ns

__all__ = ["kafka1", "kafka3", "kafka_dist", "ns"]

# Fixtures that start a JVM: a test using one (directly or through another fixture) is marked, so
# `make check` can leave out everything that waits for Kafka or Spark (`-m "not kafka and not
# spark"`) without each module remembering to say so.
_KAFKA = frozenset({"kafka_dist", "kafka1", "kafka3"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & _KAFKA:
            item.add_marker(pytest.mark.kafka)
        if "spark" in names:
            item.add_marker(pytest.mark.spark)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):  # `make test` runs on workers
        from tests.worker_groups import WorkerGroups

        config.pluginmanager.register(WorkerGroups(ANNOUNCED), "worker_groups")
