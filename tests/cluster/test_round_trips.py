"""Reading the state costs a fixed number of round trips, whatever the number of topics.

Counted by the broker, not by us: each node of the fixture cluster logs every request it serves
(tests/request_log.py); the reader uses a client.id of its own.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import yaml
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
)

from reconciler.cluster.adapter import Connection, read_state
from reconciler.cluster.adapter.read import TOPIC_CHUNKS
from reconciler.local.state import LocalCluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo


def _create(cl: LocalCluster, names: list[str]) -> None:
    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
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


# --- every command, at two sizes: no request type grows with the topics ------------------------

# Four times the topics: a request sent per topic (or per few topics) would come four times
# as often, far beyond the one Metadata refresh of slack below.
SIZES = (20, 80)
# Every CHANGED-th topic is changed, changed out of band, or deleted: 10 and 40 topics, both
# above TOPIC_CHUNKS, so a read of just those topics sends as many requests at either size.
CHANGED = 2
# What apply sends to change the cluster: one request per batch, never per topic.
MUTATIONS = ("CREATE_TOPICS", "INCREMENTAL_ALTER_CONFIGS", "CREATE_PARTITIONS", "DELETE_TOPICS")


def _spec(name: str, retention: str) -> dict[str, object]:
    return {"name": name, "partitions": 1, "replication_factor": 1,
            "config": {"retention.ms": retention}}  # fmt: skip


def _counted(
    cl: LocalCluster, repo: SpecRepo, expect: int, *args: str, naming: str | None = None
) -> dict[str, int]:
    """Run one command with a client.id of its own (`expect`: its exit code); the requests the
    brokers served it (with `naming`, those naming one of its topics)."""
    client_id = f"rt-{uuid.uuid4().hex[:8]}"
    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["client"] = {"client.id": client_id}
    repo.write("reconciler.yaml", config)
    result = repo.run(*args, timeout=300)
    assert result.code == expect, (args, result.stdout[-2000:], result.stderr[-2000:])
    return dict(requests_by(cl, client_id, naming=naming))


def _journey(
    cl: LocalCluster, root: Path, prefix: str, size: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Each command the scale issue names, run once over `size` topics of `prefix`: the reads'
    requests, and apply's requests naming the topics (apply also polls its lock and writes its
    audit record for as long as it runs: requests per second, not per topic)."""
    names = [f"{prefix}.t{i:04d}" for i in range(size)]
    changed = set(names[::CHANGED])
    repo = SpecRepo(root / "repo", cl.bootstrap, prefix, policy={"allow_delete": True})
    reads: dict[str, dict[str, int]] = {}
    applies: dict[str, dict[str, int]] = {}
    mine = f"{prefix}."

    repo.topics(*(_spec(n, "1d") for n in names))
    applies["apply: creates"] = _counted(cl, repo, 0, "apply", "--auto-approve", naming=mine)
    reads["plan: no change"] = _counted(cl, repo, 0, "plan", "--detailed-exitcode")

    repo.topics(*(_spec(n, "2d" if n in changed else "1d") for n in names))
    reads["plan: PR comment"] = _counted(cl, repo, 0, "plan", "--format", "markdown")
    applies["apply: config changes"] = _counted(cl, repo, 0, "apply", "--auto-approve", naming=mine)

    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    set_3d = [ConfigEntry("retention.ms", "259200000", incremental_operation=AlterConfigOpType.SET)]
    out_of_band = [ConfigResource(ResourceType.TOPIC, n, incremental_configs=set_3d)
                   for n in sorted(changed)]  # fmt: skip
    for future in admin.incremental_alter_configs(out_of_band).values():
        future.result()
    reads["drift"] = _counted(cl, repo, 2, "drift")
    reads["snapshot"] = _counted(cl, repo, 0, "snapshot", "-o", str(root / "snap.json"))

    adopted = SpecRepo(root / "adopted", cl.bootstrap, prefix)
    reads["import: empty repository"] = _counted(cl, adopted, 0, "import")
    assert list((root / "adopted" / "topics").rglob("*.yaml"))
    reads["import: plan after"] = _counted(cl, adopted, 0, "plan", "--detailed-exitcode")

    repo.topics(
        *({"name": n, "state": "absent"} if n in changed else _spec(n, "3d") for n in names)
    )
    # exit 1: deletes are hazards no reviewer approved yet; their evidence is read all the same
    reads["plan: deletes (in-use evidence)"] = _counted(cl, repo, 1, "plan", "--format", "json")
    return reads, applies


def _but_metadata(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if k != "METADATA"}


def test_no_command_grows_in_requests_per_topic(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """plan, the PR comment, drift, snapshot, import and its round trip and the in-use evidence
    of a plan that deletes send as many requests of each type for 80 topics as for 20; apply
    creates and changes configs in as many requests (batches, not one per topic)."""
    (small, small_apply), (large, large_apply) = (
        _journey(kafka1, tmp_path / f"s{n}", f"{ns}.s{n}", n) for n in SIZES
    )
    for command in [*small, *small_apply]:
        a, b = (
            small.get(command) or small_apply[command],
            large.get(command) or large_apply[command],
        )
        print(f"{command}: {SIZES[0]} topics {a}; {SIZES[1]} topics {b}")
    for command in small:
        # librdkafka may add one Metadata refresh of its own when a connection comes up,
        # depending on timing (measured: 6 or 7 for any size), never per topic
        assert _but_metadata(small[command]) == _but_metadata(large[command]), command
        assert abs(small[command]["METADATA"] - large[command]["METADATA"]) <= 1, command
    assert small["plan: deletes (in-use evidence)"]["LIST_OFFSETS"] >= 1  # the evidence was read
    for command in small_apply:
        for kind in MUTATIONS:
            assert small_apply[command].get(kind) == large_apply[command].get(kind), (command, kind)
        # apply's own reads of its topics (the plan's, the waits for metadata to show them,
        # the final confirmations): as many at either size, one poll more or less (a Metadata
        # and TOPIC_CHUNKS DescribeConfigs) as the brokers take longer to show them
        assert (
            sum(large_apply[command].values())
            <= sum(small_apply[command].values()) + 1 + TOPIC_CHUNKS
        ), command
    assert small_apply["apply: creates"]["CREATE_TOPICS"] <= 2  # validate_only, then the creates
    assert small_apply["apply: config changes"]["INCREMENTAL_ALTER_CONFIGS"] <= 2
