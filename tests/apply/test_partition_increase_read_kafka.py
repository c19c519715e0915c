"""partition_increase_read on real brokers: a live group with auto.offset.reset=latest never
consumes the records written to new partitions before it is assigned them, and the plan's
hazard names that group (read from the evidence plan now reads for grown topics).

Records and the consumer are the test's own confluent-kafka clients; what was consumed is
counted there, never through reconciler.
"""

from __future__ import annotations

import time
from pathlib import Path

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

BEFORE = 60  # records written to the new partitions before the group is assigned them
AFTER = 30  # and after


def _assigned(consumer: Consumer, topic: str) -> set[int]:
    return {tp.partition for tp in consumer.assignment() if tp.topic == topic}


def test_a_latest_consumer_skips_what_new_partitions_get_before_it_rebalances(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    boot = kafka1.bootstrap
    topic, group = f"{ns}.grow", f"{ns}-latest"
    admin = AdminClient({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    wait_for_topics(admin, {topic: 1})
    consumer = Consumer(
        {
            "bootstrap.servers": boot,
            "group.id": group,
            "auto.offset.reset": "latest",
            "enable.auto.commit": False,
            # a refresh in seconds rather than Kafka's 5 minutes, so the test sees the rebalance
            "topic.metadata.refresh.interval.ms": 2000,
        },
        logger=QUIET_LIBRDKAFKA,
    )
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        while _assigned(consumer, topic) != {0}:
            assert time.monotonic() < deadline, "never assigned partition 0"
            consumer.poll(0.2)

        repo = SpecRepo(tmp_path, boot, ns)
        repo.topics({"name": topic, "partitions": 3})
        planned = repo.run("plan", "--cluster", "test", "--format", "json")
        assert planned.code == 1, planned.stdout + planned.stderr  # the hazard needs approval
        [change] = planned.json()["changes"]
        [hazard] = change["hazards"]
        assert hazard["code"] == "partition_increase_read"
        assert f"consumer group(s) {group} read {topic}" in hazard["message"]
        assert "with `latest` every record written to a new partition" in hazard["message"]
        fields = hazard["approve_with"]["partition_increase_read"]
        assert (fields["from"], fields["to"]) == (1, 3) and fields.get("topic_id")

        repo.topics({"name": topic, "partitions": 3, "acknowledge": [hazard["approve_with"]]})
        applied = repo.run("apply", "--cluster", "test", "--auto-approve")
        assert applied.code == 0, applied.stdout + applied.stderr

        # Not polled since the apply, so the consumer has not rebalanced: write now
        assert _assigned(consumer, topic) == {0}
        producer = Producer({"bootstrap.servers": boot, "linger.ms": 0}, logger=QUIET_LIBRDKAFKA)
        for i in range(BEFORE):
            producer.produce(topic, f"before-{i}".encode(), partition=1 + i % 2)
        assert producer.flush(30) == 0

        consumed: list[str] = []
        deadline = time.monotonic() + 90
        while _assigned(consumer, topic) != {0, 1, 2}:
            assert time.monotonic() < deadline, "never assigned the new partitions"
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                consumed.append((message.value() or b"").decode())
        # `latest` is resolved when the consumer first fetches a new partition, some time
        # after the assignment: records written before that are skipped too. So `after-`
        # records are written one by one while polling, until AFTER of them were read (the
        # `before-` ones were all written before the assignment, so skipped whatever the
        # moment of the resolution)
        written = 0
        deadline = time.monotonic() + 60
        while sum(v.startswith("after-") for v in consumed) < AFTER:
            assert time.monotonic() < deadline, f"read {consumed} after the rebalance"
            producer.produce(topic, f"after-{written}".encode(), partition=1 + written % 2)
            producer.poll(0)
            written += 1
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                consumed.append((message.value() or b"").decode())
        producer.flush(30)
    finally:
        consumer.close()
    skipped = BEFORE - sum(v.startswith("before-") for v in consumed)
    # measured: every record the new partitions got before the rebalance was skipped
    assert skipped == BEFORE, consumed
