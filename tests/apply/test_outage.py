"""Apply's reads ride out a short controller outage, saying so on stderr, instead of giving up.

Own two-broker cluster (module scope): the test stops the only controller, which must never
disturb the shared kafka1/kafka3. The request timeout is 3 s, so an outage several times as
long is beyond what one read's own retries (within the request timeout) cover.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.distribution import Distribution
from tests.apply.helpers import independent_read
from tests.kafka_fixtures import own_cluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo

REQUEST_TIMEOUT_MS = 3000


@pytest.fixture(scope="module")
def pair(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    with own_cluster(request, tmp_path_factory, kafka_dist, "outage", 2) as cl:
        yield cl


def test_a_controller_outage_during_a_reassignment_is_ridden_out(
    pair: local_state.LocalCluster, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": pair.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = "outage.big"
    for future in admin.create_topics([NewTopic(topic, 2, replica_assignment=[[1], [2]])]).values():
        future.result()
    wait_for_topic(admin, topic, 2)
    producer = Producer(
        {"bootstrap.servers": pair.bootstrap, "linger.ms": 20}, logger=QUIET_LIBRDKAFKA
    )
    payload = os.urandom(1024)  # incompressible
    for i in range(2048):  # 2 MiB over two partitions: seconds to copy at 128 KiB/s
        producer.produce(topic, payload, partition=i % 2)
    assert producer.flush(30) == 0

    repo = SpecRepo(tmp_path, pair.bootstrap, "outage")
    config = yaml.safe_load((tmp_path / "reconciler.yaml").read_text())
    config["clusters"]["test"]["client"] = {"request.timeout.ms": str(REQUEST_TIMEOUT_MS)}
    repo.write("reconciler.yaml", config)
    repo.topics({"name": topic, "partitions": 2, "replication_factor": 2})
    env = {**os.environ, "KAFKA_BOOTSTRAP": pair.bootstrap, "NO_COLOR": "1"}
    command = [*RECONCILER, "--repo", str(tmp_path), "apply", "--cluster", "test",
               "--auto-approve", "--throttle", "128KiB"]  # fmt: skip
    apply = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert apply.stderr is not None
    said: list[str] = []
    for line in apply.stderr:  # the controller goes once apply follows the reassignments
        said.append(line)
        if "reassignment: " in line:
            break
    local_cluster.stop_node(pair, 1)
    time.sleep(5 * REQUEST_TIMEOUT_MS / 1000)  # the outage itself
    local_cluster.start_node(pair, 1, tie_to_parent=True)
    stdout, rest = apply.communicate(timeout=600)
    stderr = "".join(said) + rest

    assert apply.returncode == 0, stdout + stderr
    assert "the cluster does not answer a read" in stderr
    assert "retrying for up to 120 s" in stderr
    assert "the cluster answers again" in stderr
    assert "Traceback" not in stderr
    seen = independent_read(pair.bootstrap, topic)[topic]
    assert [sorted(r) for r in seen["replicas"]] == [[1, 2], [1, 2]]
