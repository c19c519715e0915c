"""How the state read splits the topics' DescribeConfigs and Metadata (cluster/adapter/read.py):
a constant number of requests up to a size, then one more per CHUNK_TOPICS (METADATA_TOPICS)
topics, with at most IN_FLIGHT outstanding, so the answers alive at once, and the memory, stay
bounded. The requests a real broker serves are counted in test_round_trips.py."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest

from reconciler.cluster.adapter.read import (
    CHUNK_TOPICS,
    IN_FLIGHT,
    TOPIC_CHUNKS,
    Pipeline,
    chunk_bounds,
)


@pytest.mark.parametrize(
    ("count", "parts"),
    [(0, 0), (1, 1), (5, 5), (TOPIC_CHUNKS, TOPIC_CHUNKS), (1000, TOPIC_CHUNKS),
     (TOPIC_CHUNKS * CHUNK_TOPICS, TOPIC_CHUNKS), (TOPIC_CHUNKS * CHUNK_TOPICS + 1, 9),
     (100_000, 40), (100_001, 41)],
)  # fmt: skip
def test_chunks_are_a_constant_count_until_a_chunk_would_exceed_its_size(
    count: int, parts: int
) -> None:
    bounds = chunk_bounds(count)
    assert len(bounds) == (parts + 1 if parts else 0)
    if count:
        assert bounds[0] == 0 and bounds[-1] == count
        sizes = [b - a for a, b in pairwise(bounds)]
        assert all(1 <= size <= CHUNK_TOPICS for size in sizes), sizes
        assert max(sizes) - min(sizes) <= 1  # even parts


@pytest.mark.parametrize("in_flight", [1, 2, 3, 9])
def test_the_pipeline_keeps_in_flight_requests_outstanding_and_sends_each_part_once(
    in_flight: int,
) -> None:
    """No more than `in_flight` answers alive at once, counting the one being read (taken
    before the next popleft), and every part sent once, in order."""
    names = [f"t{i}" for i in range(10)]
    sent: list[Sequence[str]] = []

    def send(part: Sequence[str]) -> tuple[str, ...]:
        sent.append(part)
        return tuple(part)

    pipeline = Pipeline(names, [0, 2, 4, 6, 8, 10], send, in_flight)
    assert len(sent) == min(in_flight, 5)  # sent before anything is read
    taken = []
    while pipeline:
        taken.append(pipeline.popleft())
        assert len(sent) - (len(taken) - 1) <= in_flight  # the one just taken is being read
    assert taken == [("t0", "t1"), ("t2", "t3"), ("t4", "t5"), ("t6", "t7"), ("t8", "t9")]
    assert len(sent) == 5


def test_in_flight_is_at_least_one() -> None:
    assert IN_FLIGHT >= 1
