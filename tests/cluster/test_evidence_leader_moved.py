"""The in-use evidence of a partition whose leader just moved is read, not given up on.

librdkafka sends ListOffsets to the leader its metadata cache names, with that leader's epoch,
and does not refresh the cache when the answer says the leader moved: before the fix, every
read through the same client failed with FENCED_LEADER_EPOCH (CI saw NOT_LEADER_FOR_PARTITION
the same way on a topic Kafka had just created), and the gate counted the topic as read."""

from __future__ import annotations

import time
from collections import defaultdict
from concurrent.futures import Future
from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka import TopicPartition as RdTopicPartition
from confluent_kafka.admin import AdminClient
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient

from reconciler.cluster import adapter
from reconciler.cluster.adapter import evidence
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import clients


@pytest.mark.kafka
def test_offsets_are_read_after_the_leaders_moved(kafka3: LocalCluster, ns: str) -> None:
    topic = f"{ns}.moved"
    with clients(kafka3) as k:
        admin = k.admin()
        k.create_topic(topic, assignment=[[1, 2, 3], [2, 3, 1], [3, 1, 2]])
        producer = k.producer()
        for partition, count in enumerate((2, 3, 4)):
            for _ in range(count):
                producer.produce(topic, b"x", partition=partition)
        producer.flush(30)
        connection = adapter.Connection("test", kafka3.bootstrap)
        groups = KafkaAdminClient(bootstrap_servers=kafka3.bootstrap.split(","))
        try:
            before = evidence.read(connection, admin, groups, {topic: 3}).topics[topic]
            assert before.unreadable == () and before.end_offsets == (2, 3, 4)
            # Partitions 0 and 1 led by another broker: `admin`'s cache still names the old
            groups.alter_partition_reassignments(
                {TopicPartition(topic, 0): [2, 3, 1], TopicPartition(topic, 1): [3, 1, 2]}
            )
            deadline = time.monotonic() + 60
            while groups.list_partition_reassignments():
                assert time.monotonic() < deadline, "the reassignment did not finish"
                time.sleep(0.1)
            groups.elect_leaders(0, {topic: [0, 1]})  # type: ignore[attr-defined]
            fresh = k.admin()
            while True:
                shown = fresh.list_topics(topic, timeout=10).topics[topic].partitions
                if (shown[0].leader, shown[1].leader) == (2, 3):
                    break
                assert time.monotonic() < deadline, "the election did not finish"
                time.sleep(0.1)

            after = evidence.read(connection, admin, groups, {topic: 3}).topics[topic]
        finally:
            groups.close()
    assert after.unreadable == ()
    assert after.end_offsets == (2, 3, 4)


def _answer(value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    if isinstance(value, BaseException):
        future.set_exception(value)
    else:
        future.set_result(value)
    return future


class _Offset:
    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.timestamp = -1


class _Admin:
    """Answers each ListOffsets round from a script: partition -> one answer per round."""

    def __init__(self, script: dict[int, list[Any]]) -> None:
        self.script = script
        self.asked: list[list[int]] = []
        self.refreshed = 0

    def list_offsets(self, request: dict[Any, Any], request_timeout: float) -> dict[Any, Any]:
        self.asked.append(sorted(tp.partition for tp in request))
        return {tp: _answer(self.script[tp.partition].pop(0)) for tp in request}

    def list_topics(self, timeout: float) -> None:
        self.refreshed += 1


def _refused(code: int) -> KafkaException:
    return KafkaException(KafkaError(code))


def test_a_refusal_that_passes_is_asked_again_and_one_that_does_not_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mechanism on every shape of answer: a partition refused for a reason that passes is
    asked again after a metadata refresh until it answers; a lasting refusal is a reason even
    while others are asked again; a partition unknown to every answer was deleted. (Its
    pauses between rounds shortened: their 1.5 s of backoff are not what it asserts.)"""
    monkeypatch.setattr(adapter.retry, "FIRST_PAUSE", 0.001)
    script: dict[int, list[Any]] = {
        0: [_refused(KafkaError.FENCED_LEADER_EPOCH), _Offset(7)],
        1: [_refused(KafkaError.TOPIC_AUTHORIZATION_FAILED)],
        2: [
            _refused(KafkaError.NOT_LEADER_FOR_PARTITION),
            _refused(KafkaError.LEADER_NOT_AVAILABLE),
            _Offset(9),
        ],
        3: [_Offset(3)],
        4: [_refused(KafkaError.UNKNOWN_TOPIC_OR_PART)] * 5,
    }
    admin = _Admin(script)
    by_topic: dict[str, list[str]] = defaultdict(list)
    tps = [RdTopicPartition("t", p) for p in range(5)]
    connection = adapter.Connection("test", "127.0.0.1:9")
    found = evidence._offsets(
        connection, cast(AdminClient, admin), tps, evidence._SPEC_LATEST, by_topic
    )
    assert found == {("t", 0): 7, ("t", 2): 9, ("t", 3): 3}
    assert admin.asked == [[0, 1, 2, 3, 4], [0, 2, 4], [2, 4], [4], [4]]
    assert admin.refreshed == 4
    [said] = by_topic["t"]
    assert said.startswith("partition 1's offsets could not be read (TOPIC_AUTHORIZATION_FAILED")


def test_a_refusal_that_lasts_past_the_request_timeout_is_a_reason() -> None:
    admin = _Admin({0: [_refused(KafkaError.NOT_LEADER_FOR_PARTITION)] * 100})
    by_topic: dict[str, list[str]] = defaultdict(list)
    connection = adapter.Connection("test", "127.0.0.1:9", (("request.timeout.ms", "500"),))
    started = time.monotonic()
    evidence._offsets(
        connection,
        cast(AdminClient, admin),
        [RdTopicPartition("t", 0)],
        evidence._SPEC_LATEST,
        by_topic,
    )
    assert time.monotonic() - started < 0.5 + 0.5
    assert len(admin.asked) > 1
    [said] = by_topic["t"]
    assert "NOT_LEADER_FOR_PARTITION" in said
