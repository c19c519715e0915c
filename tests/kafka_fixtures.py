"""Real Kafka clusters for the tests, started once per run with the code behind `local up`.

- `kafka3`: three brokers in racks rack-a/b/c (node 1 also the controller),
  num.partitions=3 and default.replication.factor=2 so KIP-464 defaults are visible;
- `kafka1`: one combined node, num.partitions=3, default.replication.factor=1.

The JVMs are tied to the pytest process (PR_SET_PDEATHSIG), so they die even when the run is
killed; a normal or failed run stops them in the session teardown. `ns` gives each test its own
topic-name prefix and deletes that test's topics afterwards, so tests never see each other's.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution, ensure_distribution
from tests.librdkafka_log import QUIET_LIBRDKAFKA

_started: list[local_state.LocalCluster] = []
ANNOUNCED = "kafka_announced"  # a worker's lines, in its workeroutput


def _announce(request: pytest.FixtureRequest, line: str) -> None:
    """Write past pytest's capture, so the log shows that real brokers started. A pytest-xdist
    worker has no terminal: its lines go back with its results (tests/conftest.py prints them)."""
    workeroutput = getattr(request.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault(ANNOUNCED, []).append(line)
        return
    capman = request.config.pluginmanager.getplugin("capturemanager")
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    if capman is None or reporter is None:
        return
    with capman.global_and_fixture_disabled():
        reporter.write_line(line)


@pytest.fixture(scope="session")
def kafka_dist() -> Distribution:
    return ensure_distribution()


@contextlib.contextmanager
def own_cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    dist: Distribution,
    name: str,
    brokers: int,
    **options: Any,
) -> Iterator[local_state.LocalCluster]:
    """A cluster started for a fixture, tied to pytest, stopped when the fixture ends.

    Every cluster the tests start goes through here (`with own_cluster(...) as cl: yield cl`
    in a fixture): `options` are `local_cluster.start`'s (overrides, request_log, heap_mib,
    security_mode). Teardown continues frozen (SIGSTOP) nodes, then stops every JVM the state
    file names, so nodes a test stopped or started again are handled too.
    """
    state = tmp_path_factory.mktemp(name)
    began = time.monotonic()
    cl = local_cluster.start(state, dist, brokers=brokers, tie_to_parent=True, **options)
    racks = ", ".join(f"{n.id}:{n.rack or '-'}" for n in cl.nodes)
    _announce(
        request,
        f"\n[kafka] started {name}: {brokers}-broker Apache Kafka {dist.version} "
        f"({cl.metadata}) in {time.monotonic() - began:.1f} s at {cl.bootstrap}; brokers {racks}",
    )
    try:
        yield cl
    finally:
        now = local_cluster.current(cl)
        for node in now.nodes:  # a frozen JVM ignores SIGTERM until continued
            if node.pid and local_state.is_our_jvm(node.pid, now.node_dir(node)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGCONT)
        report = local_cluster.stop(now)
        _announce(request, f"\n[kafka] stopped {name}: {report}")


def _cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    dist: Distribution,
    brokers: int,
) -> Iterator[local_state.LocalCluster]:
    with own_cluster(
        request,
        tmp_path_factory,
        dist,
        f"kafka{brokers}",
        brokers,
        overrides=default_overrides(brokers),
        request_log=True,
    ) as cl:
        _started.append(cl)
        try:
            yield cl
        finally:
            _started.remove(cl)


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
    """A topic-name prefix of this test's own, e.g. `t.test-create-topic.3fa2c1`.

    Afterwards its topics are deleted, and gone from the cluster's metadata before the next
    test starts: a test may then compare a whole shared cluster before and after.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:60]
    prefix = f"t.{slug}.{uuid.uuid4().hex[:6]}"
    yield prefix
    for cl in list(_started):
        admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
        mine = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
        if mine:
            for future in admin.delete_topics(mine, operation_timeout=30).values():
                future.result()
            deadline = time.monotonic() + 30
            while any(t.startswith(prefix) for t in admin.list_topics(timeout=10).topics):
                assert time.monotonic() < deadline, f"topics of {prefix} still listed after 30 s"
                time.sleep(0.05)
