"""Reading the state costs a fixed number of round trips, whatever the number of topics.

Counted by the broker, not by us: each node of the fixture cluster logs every request it serves
(tests/request_log.py); the reader uses a client.id of its own.
"""

from __future__ import annotations

import time
import uuid

from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster.adapter import Connection, read_state
from reconciler.cluster.adapter.read import TOPIC_CHUNKS
from reconciler.local.state import LocalCluster
from tests.request_log import requests_by


def _create(cl: LocalCluster, names: list[str]) -> None:
    admin = AdminClient({"bootstrap.servers": cl.bootstrap})
    for start in range(0, len(names), 500):  # a few batched CreateTopics, not one per topic
        batch = [NewTopic(n, 1, 1) for n in names[start : start + 500]]
        for future in admin.create_topics(batch, operation_timeout=60).values():
            future.result()
    deadline = time.monotonic() + 60
    wanted = set(names)
    while not wanted <= set(admin.list_topics(timeout=10).topics):
        assert time.monotonic() < deadline, "created topics did not show in metadata"
        time.sleep(0.5)


def _read(cl: LocalCluster, expect: int, prefix: str) -> dict[str, int]:
    client_id = f"rt-{uuid.uuid4().hex[:8]}"
    state = read_state(Connection("test", cl.bootstrap, (("client.id", client_id),)))
    assert sum(name.startswith(prefix) for name in state.topics) == expect
    return dict(requests_by(cl, client_id))


def test_reading_10_or_2000_topics_costs_the_same_round_trips(
    kafka1: LocalCluster, ns: str
) -> None:
    names = [f"{ns}.{i:04d}" for i in range(2000)]
    _create(kafka1, names[:10])
    small = _read(kafka1, 10, ns)
    _create(kafka1, names[10:])
    large = _read(kafka1, 2000, ns)

    print(f"round trips reading 10 topics: {small}; 2,000 topics: {large}")
    # What the reader asks for is identical; librdkafka may add one Metadata refresh of its own
    # when a connection comes up, depending on timing (measured: 6 or 7), whatever the topics.
    assert {k: v for k, v in small.items() if k != "METADATA"} == {
        k: v for k, v in large.items() if k != "METADATA"
    }
    assert abs(small["METADATA"] - large["METADATA"]) <= 1
    # The topics' configs in TOPIC_CHUNKS requests (as many for 10 topics as for 2,000), the
    # broker defaults in one.
    assert small["DESCRIBE_CONFIGS"] == TOPIC_CHUNKS + 1
    assert small["LIST_PARTITION_REASSIGNMENTS"] == 1
    # Measured with all topics in one request: 13 or 14; the chunks add TOPIC_CHUNKS - 1.
    assert sum(large.values()) <= 16 + TOPIC_CHUNKS - 1
