"""The topics' configs, read in a few DescribeConfigs requests: the same values, sources, order
and failures as one request gave, with the garbage collector paused meanwhile.

A fake admin client answers with confluent-kafka's own ConfigEntry objects, built as its C code
builds them (the source a plain number); the real-broker check is in the last test.
"""

from __future__ import annotations

import gc
import sys
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import Future

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic, ResourceType
from confluent_kafka.admin import ConfigEntry as KafkaConfigEntry

from reconciler.cluster.adapter import Connection, read
from reconciler.cluster.adapter.cluster import Cluster
from reconciler.cluster.state import ConfigEntry, Synonym
from reconciler.errors import ClusterError
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA

CONNECTION = Connection("test", "127.0.0.1:1", (("request.timeout.ms", "2000"),))
TOPIC, DEFAULT = ConfigSource.DYNAMIC_TOPIC_CONFIG.value, ConfigSource.DEFAULT_CONFIG.value
STATIC = ConfigSource.STATIC_BROKER_CONFIG.value

Answer = dict[str, KafkaConfigEntry] | KafkaException


def _entries(*items: tuple[str, str | None, object, bool]) -> dict[str, KafkaConfigEntry]:
    """librdkafka's answer for one topic, in the broker's (unsorted) order."""
    return {
        key: KafkaConfigEntry(key, value, source=source, is_sensitive=sensitive)  # type: ignore[arg-type]
        for key, value, source, sensitive in items
    }


def _broker_order(retention: str | None = None) -> dict[str, KafkaConfigEntry]:
    return _entries(
        ("segment.bytes", "1073741824", DEFAULT, False),
        ("retention.ms", retention or "604800000", TOPIC if retention else DEFAULT, False),
        ("min.insync.replicas", "1", STATIC, False),
        ("cleanup.policy", "delete", DEFAULT, False),
        ("sasl.secret", None, TOPIC, True),
    )


class Answered(Future[dict[str, KafkaConfigEntry]]):
    """A resource's future that tells its admin when its request's answer is read."""

    def __init__(self, admin: FakeAdmin, request: int) -> None:
        super().__init__()
        self.admin, self.request = admin, request

    def result(self, timeout: float | None = None) -> dict[str, KafkaConfigEntry]:
        self.admin.read.add(self.request)
        return super().result(timeout)


class FakeAdmin:
    """Answers DescribeConfigs from `answers`; records each request's topics, whether the
    garbage collector ran while it was sent, and how many requests' answers were unread then."""

    def __init__(self, answers: Mapping[str, Answer]) -> None:
        self.answers = answers
        self.requests: list[list[str]] = []
        self.collecting: list[bool] = []
        self.read: set[int] = set()
        self.unread: list[int] = []

    def describe_configs(
        self, resources: Sequence[ConfigResource], request_timeout: float
    ) -> dict[ConfigResource, Future[dict[str, KafkaConfigEntry]]]:
        assert request_timeout > 0
        self.unread.append(len(self.requests) - len(self.read))
        self.requests.append([r.name for r in resources])
        self.collecting.append(gc.isenabled())
        futures: dict[ConfigResource, Future[dict[str, KafkaConfigEntry]]] = {}
        for resource in resources:
            future = Answered(self, len(self.requests) - 1)
            answer = self.answers[resource.name]
            if isinstance(answer, KafkaException):
                future.set_exception(answer)
            else:
                future.set_result(answer)
            futures[resource] = future
        return futures


def _expected(entries: dict[str, KafkaConfigEntry]) -> read.Configs:
    """What one DescribeConfigs answer always read as: every key, sorted, with its value, the
    source's name and the sensitive flag; an override also with the synonyms listed after it."""
    return tuple(
        (
            key,
            ConfigEntry(
                e.value,
                ConfigSource(read.source_of(e)).name,
                e.is_sensitive,
                _after_own(e)
                if read.source_of(e) == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
                else (),
            ),
        )
        for key, e in sorted(entries.items())
    )


def _after_own(entry: KafkaConfigEntry) -> tuple[Synonym, ...]:
    listed = [
        (s.name, s.value, ConfigSource(read.source_of(s)).name) for s in entry.synonyms.values()
    ]
    return tuple(Synonym(*s) for s in listed if s[2] != "DYNAMIC_TOPIC_CONFIG")


def _configs(admin: FakeAdmin, names: list[str]) -> dict[str, read.Configs]:
    return read.topic_configs(CONNECTION, admin, names, None)  # type: ignore[arg-type]


def _failure(code: int) -> KafkaException:
    return KafkaException(KafkaError(code))


def test_configs_are_sorted_with_their_sources_whatever_the_chunks() -> None:
    names = [f"t{i:02d}" for i in range(11)]
    answers: dict[str, Answer] = {n: _broker_order() for n in names}
    answers["t03"] = _broker_order(retention="3600000")  # an override
    answers["t05"] = dict(reversed(list(_broker_order().items())))  # another order of keys
    answers["t07"] = _entries(("retention.ms", "1", ConfigSource.DYNAMIC_TOPIC_CONFIG, False))
    answers["t08"] = {}
    admin = FakeAdmin(answers)

    found = _configs(admin, names)

    assert found == {n: _expected(e) for n, e in answers.items() if isinstance(e, dict)}
    assert list(found) == names
    assert len(admin.requests) == read.TOPIC_CHUNKS
    assert [n for request in admin.requests for n in request] == names
    # IN_FLIGHT sent before any answer is read, then one more as each is read: each has the
    # whole timeout, as the one request had, and no more than IN_FLIGHT answers are alive.
    first = list(range(read.IN_FLIGHT))
    assert admin.unread == first + [read.IN_FLIGHT - 1] * (read.TOPIC_CHUNKS - read.IN_FLIGHT)
    assert found["t03"][2] == ("retention.ms", ConfigEntry("3600000", "DYNAMIC_TOPIC_CONFIG"))
    assert found["t00"][3] == ("sasl.secret", ConfigEntry(None, "DYNAMIC_TOPIC_CONFIG", True))
    assert found["t07"] == (("retention.ms", ConfigEntry("1", "DYNAMIC_TOPIC_CONFIG")),)
    # Equal entries are one object (10,000 topics share a few hundred), keys interned.
    assert found["t00"][0][1] is found["t10"][0][1]
    assert found["t00"][0][0] is found["t05"][0][0] is sys.intern("cleanup.policy")


@pytest.mark.parametrize("count", [0, 1, 2])
def test_fewer_topics_than_chunks_send_fewer_requests(count: int) -> None:
    names = [f"t{i}" for i in range(count)]
    admin = FakeAdmin({n: _broker_order() for n in names})
    assert list(_configs(admin, names)) == names
    assert admin.requests == [[n] for n in names]


def test_a_topic_deleted_since_it_was_listed_is_left_out() -> None:
    names = [f"t{i}" for i in range(6)]
    answers: dict[str, Answer] = {n: _broker_order() for n in names}
    answers["t4"] = _failure(KafkaError.UNKNOWN_TOPIC_OR_PART)
    assert list(_configs(FakeAdmin(answers), names)) == ["t0", "t1", "t2", "t3", "t5"]


def test_another_failure_names_the_first_topic_that_failed() -> None:
    names = [f"t{i}" for i in range(8)]
    answers: dict[str, Answer] = {n: _broker_order() for n in names}
    answers["t6"] = _failure(KafkaError.POLICY_VIOLATION)
    answers["t3"] = _failure(KafkaError.REQUEST_TIMED_OUT)
    with pytest.raises(
        ClusterError, match="describe the configs of t3 on cluster 'test'"
    ) as caught:
        _configs(FakeAdmin(answers), names)
    assert caught.value.__cause__ is answers["t3"]


@pytest.mark.parametrize("running", [True, False])
def test_the_garbage_collector_is_paused_while_reading_and_left_as_it_was(running: bool) -> None:
    names = [f"t{i}" for i in range(5)]
    admin = FakeAdmin({n: _broker_order() for n in names})
    was = gc.isenabled()
    try:
        (gc.enable if running else gc.disable)()
        _configs(admin, names)
        assert gc.isenabled() is running
        failing = FakeAdmin({n: _failure(KafkaError.REQUEST_TIMED_OUT) for n in names})
        with pytest.raises(ClusterError):
            _configs(failing, names)
        assert gc.isenabled() is running
    finally:
        (gc.enable if was else gc.disable)()
    assert admin.collecting == [False] * len(admin.requests)


def test_describe_configs_is_still_one_request_of_librdkafka_entries() -> None:
    """lock_topic.py and replication_throttle.py read single resources' raw entries through it."""
    answers: dict[str, Answer] = {"a": _broker_order(), "b": _broker_order("5")}
    answers["gone"] = _failure(KafkaError.UNKNOWN_TOPIC_OR_PART)
    admin = FakeAdmin(answers)
    found = read.describe_configs(CONNECTION, admin, ResourceType.TOPIC, ["a", "gone", "b"])  # type: ignore[arg-type]
    assert admin.requests == [["a", "gone", "b"]]
    assert found == {"a": answers["a"], "b": answers["b"]}


def test_a_real_brokers_configs_read_in_chunks_equal_one_requests(
    kafka3: LocalCluster, ns: str
) -> None:
    """Against the three-broker cluster: Cluster.topics's configs, in TOPIC_CHUNKS requests,
    equal one plain DescribeConfigs of the same topics read the way it always was."""
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    overrides: list[dict[str, str]] = [
        {},
        {"retention.ms": "3600000"},
        {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1"},
        {"max.message.bytes": "2000000", "retention.bytes": "1048576"},
        {"segment.ms": "600000"},
        {"retention.ms": "3600000"},
        {},
    ]
    names = [f"{ns}.{i}" for i in range(len(overrides))]
    topics = [NewTopic(n, 1, 2, config=o) for n, o in zip(names, overrides, strict=True)]
    for future in admin.create_topics(topics).values():
        future.result()
    for n in names:
        wait_for_topic(admin, n)

    connection = Connection("test", kafka3.bootstrap, (("client.id", f"t-{uuid.uuid4().hex}"),))
    with Cluster(connection) as cluster:
        chunked = cluster.topics(names, configs=True)
    plain = read.describe_configs(connection, admin, ResourceType.TOPIC, names)

    assert sorted(chunked) == sorted(names)
    assert {n: t.configs for n, t in chunked.items()} == {n: _expected(plain[n]) for n in names}
    for name, wanted in zip(names, overrides, strict=True):
        assert chunked[name].overrides == wanted
