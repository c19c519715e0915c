"""A local cluster sized for its work: `local up --heap SIZE` (or a default derived from the
machine), and a node that ran out of heap reported with the cause from its log, by `local
status` and by the next command that cannot reach it."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.errors import ConfigError
from reconciler.local import cluster as local_cluster
from reconciler.local.distribution import Distribution
from reconciler.local.heap import default_mib, parse_heap
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.kafka_fixtures import own_cluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER

OOM = "java.lang.OutOfMemoryError: Java heap space"


@pytest.mark.parametrize(
    ("nodes", "memory", "expected"),
    [(3, 24_000, 1984), (1, 24_000, 4096), (3, 4_000, 512), (3, None, 512), (9, 64_000, 1728)],
)
def test_the_default_heap_is_a_quarter_of_the_machine_shared(
    nodes: int, memory: int | None, expected: int
) -> None:
    assert default_mib(nodes, memory) == expected


@pytest.mark.parametrize(
    ("text", "mib"), [("2g", 2048), ("1536m", 1536), ("2GiB", 2048), ("768MiB", 768)]
)
def test_heap_sizes_in_the_jvms_units_or_human_ones(text: str, mib: int) -> None:
    assert parse_heap(text) == mib


@pytest.mark.parametrize(
    ("text", "says"),
    [("lots", "give a size per node, e.g. 2g"), ("64m", "64 MiB is too small for a Kafka node")],
)
def test_a_bad_heap_is_one_sentence(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        parse_heap(text)


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*RECONCILER, *args], capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_local_up_gives_each_node_the_heap_asked_for(
    kafka_dist: Distribution, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    try:
        up = _cli("local", "up", "--brokers", "1", "--heap", "200m", "--state-dir", str(state))
        assert up.returncode == 0, up.stderr
        assert "started 1 broker(s) with 200 MiB of heap each" in up.stderr
        pid = next(int(w.split("=")[1]) for w in up.stdout.split() if w.startswith("pid="))
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert b"-Xmx200m" in cmdline and b"-XX:+ExitOnOutOfMemoryError" in cmdline
    finally:
        _cli("local", "down", "--state-dir", str(state))


@pytest.fixture(scope="module")
def starved(
    request: pytest.FixtureRequest,
    kafka_dist: Distribution,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalCluster]:
    """A one-node cluster with a small heap, killed by produce requests larger than its heap
    (the broker reads each request whole into its heap before judging it)."""
    with own_cluster(request, tmp_path_factory, kafka_dist, "starved", 1, heap_mib=256) as cl:
        admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
        admin.create_topics([NewTopic("big", 1, 1)])["big"].result()
        payload = b"x" * (95 * 1024 * 1024)
        producers = [
            Producer(
                {"bootstrap.servers": cl.bootstrap, "message.max.bytes": 200_000_000},
                logger=QUIET_LIBRDKAFKA,
            )
            for _ in range(4)
        ]

        def flood(producer: Producer) -> None:
            for _ in range(3):
                producer.produce("big", payload)
            producer.poll(0)

        floods = [threading.Thread(target=flood, args=(p,), daemon=True) for p in producers]
        for thread in floods:
            thread.start()
        deadline = time.monotonic() + 240  # a safety net only: the node's death ends the wait
        while not local_cluster.down_nodes(cl):
            assert time.monotonic() < deadline, "the node did not run out of heap"
            time.sleep(0.2)
        for thread in floods:
            thread.join(30)
        for producer in producers:  # closed: each would reconnect to the dead node, on the
            producer.purge()  # worker's stderr, for the rest of the run
            producer.close()
        yield cl


def test_status_names_the_error_a_node_died_of(starved: LocalCluster) -> None:
    done = _cli("local", "status", "--state-dir", str(starved.state_dir))
    assert done.returncode == 1
    log = starved.state_dir / "n1" / "kafka.log"
    assert done.stderr.strip() == (
        f"error: no local cluster is running from {starved.state_dir}: local node 1 died of "
        f"{OOM} ({log}): it had 256 MiB of heap; start the cluster with more: `reconciler local "
        "down`, then `reconciler local up --heap 512m`."
    )


def test_the_next_command_says_why_it_cannot_reach_the_local_cluster(
    starved: LocalCluster, tmp_path: Path
) -> None:
    (tmp_path / "topics").mkdir()
    config = {"clusters": {"dev": {"bootstrap": starved.bootstrap}}}
    (tmp_path / "reconciler.yaml").write_text(yaml_text.safe_dump(config))
    env = {"RECONCILER_LOCAL_DIR": str(starved.state_dir)}
    done = _cli("plan", "--repo", str(tmp_path), "--timeout", "3", env=env)
    assert done.returncode == 1
    error, note = done.stderr.strip().splitlines()
    assert error.startswith(f"error: could not describe cluster 'dev' at {starved.bootstrap}")
    assert note.startswith(f"note: local node 1 died of {OOM} (")
    # an error about another cluster says nothing of the local one
    config = {"clusters": {"dev": {"bootstrap": "127.0.0.1:1"}}}
    (tmp_path / "reconciler.yaml").write_text(yaml_text.safe_dump(config))
    other = _cli("plan", "--repo", str(tmp_path), "--timeout", "2", env=env)
    assert other.returncode == 1 and "note:" not in other.stderr
