"""Real Kafka clusters for the tests, started once per run with the code behind `local up`.

- `kafka3`: three brokers in racks rack-a/b/c (node 1 also the controller),
  num.partitions=3 and default.replication.factor=2 so KIP-464 defaults are visible;
- `kafka1`: one combined node, num.partitions=3, default.replication.factor=1.

The JVMs are tied to the pytest process (PR_SET_PDEATHSIG), so they die even when the run is
killed; a normal or failed run stops them in the session teardown. `ns` gives each test its own
topic-name prefix and deletes that test's topics afterwards, so tests never see each other's.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.commands import default_overrides
from reconciler.local.distribution import Distribution, ensure_distribution

_started: list[local_state.LocalCluster] = []


def _announce(request: pytest.FixtureRequest, line: str) -> None:
    """Write past pytest's capture, so the log shows that real brokers started."""
    capman = request.config.pluginmanager.getplugin("capturemanager")
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    if capman is None or reporter is None:
        return
    with capman.global_and_fixture_disabled():
        reporter.write_line(line)


@pytest.fixture(scope="session")
def kafka_dist() -> Distribution:
    return ensure_distribution()


def _cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    dist: Distribution,
    brokers: int,
) -> Iterator[local_state.LocalCluster]:
    state = tmp_path_factory.mktemp(f"kafka{brokers}")
    began = time.monotonic()
    cl = local_cluster.start(
        state,
        dist,
        brokers=brokers,
        overrides=default_overrides(brokers),
        tie_to_parent=True,
        request_log=True,
    )
    racks = ", ".join(f"{n.id}:{n.rack or '-'}" for n in cl.nodes)
    _announce(
        request,
        f"\n[kafka] started {brokers}-broker Apache Kafka {dist.version} (KRaft) in "
        f"{time.monotonic() - began:.1f} s at {cl.bootstrap}; brokers {racks}",
    )
    _started.append(cl)
    try:
        yield cl
    finally:
        _started.remove(cl)
        report = local_cluster.stop(cl)
        _announce(request, f"\n[kafka] stopped {brokers}-broker cluster: {report}")


@pytest.fixture(scope="session")
def kafka3(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    yield from _cluster(request, tmp_path_factory, kafka_dist, 3)


@pytest.fixture(scope="session")
def kafka1(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    yield from _cluster(request, tmp_path_factory, kafka_dist, 1)


@pytest.fixture
def ns(request: pytest.FixtureRequest) -> Iterator[str]:
    """A topic-name prefix of this test's own, e.g. `t.test-create-topic.3fa2c1`."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:60]
    prefix = f"t.{slug}.{uuid.uuid4().hex[:6]}"
    yield prefix
    for cl in list(_started):
        admin = AdminClient({"bootstrap.servers": cl.bootstrap})
        mine = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
        if mine:
            for future in admin.delete_topics(mine, operation_timeout=30).values():
                future.result()
