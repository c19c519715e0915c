"""apply --throttle: a replication-factor increase copying real data under a replication throttle.

Watched from outside while it runs: the brokers' throttle rate and the topic's throttled
replicas appear during the copy, and nothing of them is left once apply has finished.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    NewTopic,
    ResourceType,
)

from reconciler.local.state import LocalCluster
from tests.apply.helpers import THROTTLE_KEYS, dynamic_configs, independent_read
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo

RATE = 256 * 1024


def test_throttled_replication_factor_increase_cleans_up_after_itself(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    topic = f"{ns}.big"
    for future in admin.create_topics(
        [NewTopic(topic, 3, replica_assignment=[[1], [2], [3]])]
    ).values():
        future.result()
    wait_for_topic(admin, topic, 3)
    producer = Producer(
        {"bootstrap.servers": kafka3.bootstrap, "linger.ms": 20}, logger=QUIET_LIBRDKAFKA
    )
    payload = os.urandom(1024)  # incompressible
    for i in range(2048):  # 2 MiB over three partitions
        producer.produce(topic, payload, partition=i % 3)
    assert producer.flush(30) == 0

    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": topic, "partitions": 3, "replication_factor": 3})
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka3.bootstrap, "NO_COLOR": "1"}
    command = [*RECONCILER, "--repo", str(tmp_path), "apply", "--cluster", "test",
               "--auto-approve", "--throttle", "256KiB"]  # fmt: skip
    apply = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rates_seen: set[str] = set()
    throttled_replicas_seen: dict[str, str] = {}
    while apply.poll() is None:
        for broker in ("1", "2", "3"):
            rate = dynamic_configs(admin, ResourceType.BROKER, broker).get(
                "follower.replication.throttled.rate"
            )
            if rate is not None:
                rates_seen.add(rate)
        throttled_replicas_seen |= {
            k: v
            for k, v in dynamic_configs(admin, ResourceType.TOPIC, topic).items()
            if k in THROTTLE_KEYS
        }
        time.sleep(0.2)
    stdout, stderr = (s.decode() for s in apply.communicate())

    assert apply.returncode == 0, stdout + stderr
    assert "throttling replication to 256KiB/s" in stderr
    assert rates_seen == {str(RATE)}
    assert set(throttled_replicas_seen) == THROTTLE_KEYS
    assert sorted(throttled_replicas_seen["leader.replication.throttled.replicas"].split(",")) == [
        "0:1", "1:2", "2:3",
    ]  # fmt: skip
    # Nothing left behind: no broker rate, no throttled replicas on the topic.
    for broker in ("1", "2", "3"):
        assert not {
            k for k in dynamic_configs(admin, ResourceType.BROKER, broker) if "throttled" in k
        }
    assert not THROTTLE_KEYS & set(dynamic_configs(admin, ResourceType.TOPIC, topic))
    seen = independent_read(kafka3.bootstrap, topic)[topic]
    assert [sorted(r) for r in seen["replicas"]] == [[1, 2, 3]] * 3
    assert seen["isr"] == [[1, 2, 3]] * 3
    again = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert again.code == 0, again.stdout
