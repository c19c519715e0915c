"""KIP-578 limits against the real three-broker cluster, with broker loads built by real topics.

The session's cluster is shared with other tests, so each test first measures what the brokers
host (internal topics included), then creates topics under its own namespace with manual
replica assignments so the load is uneven, and sets the limits relative to what it measured.
Plans are made the way `reconciler plan` makes them (workflow.plan: load specs, read the live
cluster, plan), and one through the CLI's JSON output.

With the least loaded broker at `m` replicas after loading, the loads are m+6, m+3, m+0 on
brokers 1, 2, 3 and max_broker_partitions is m+8: room for 2, 5 and 8 more replicas.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster import adapter
from reconciler.cluster.state import ClusterState
from reconciler.local.state import LocalCluster
from reconciler.planning.limits import BrokerLoad
from reconciler.planning.placement import replica_load
from reconciler.planning.plan import Plan
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
HEADROOM = {1: 2, 2: 5, 3: 8}  # room per broker once loaded


def stable_state(cl: LocalCluster) -> ClusterState:
    """The live state once two reads 0.3 s apart agree on every broker's load (a previous
    test's topic deletes may still be reaching the brokers' metadata)."""
    connection = adapter.Connection("test", cl.bootstrap, ())
    state = adapter.read_state(connection)
    for _ in range(20):
        time.sleep(0.3)
        again = adapter.read_state(connection)
        if replica_load(again) == replica_load(state):
            return again
        state = again
    raise AssertionError("broker loads kept changing")


class Loaded:
    """A spec repository on the three-broker cluster whose brokers host m+6, m+3 and m."""

    def __init__(self, tmp_path: Path, cl: LocalCluster, ns: str) -> None:
        self.cl, self.ns = cl, ns
        self.repo = SpecRepo(tmp_path, cl.bootstrap, ns)
        baseline = replica_load(stable_state(cl))
        assert sorted(baseline) == [1, 2, 3], baseline
        top = max(baseline.values()) + 1  # every broker gets at least one loading replica
        extra = {1: top + 6 - baseline[1], 2: top + 3 - baseline[2], 3: top - baseline[3]}
        assignment = [[b] for b in (1, 2, 3) for _ in range(extra[b])]
        admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
        topic = f"{ns}.load"
        for future in admin.create_topics(
            [NewTopic(topic, len(assignment), replica_assignment=assignment)]
        ).values():
            future.result()
        wait_for_topic(admin, topic, partitions=len(assignment))
        self.state = stable_state(cl)
        self.loads = replica_load(self.state)
        assert self.loads == {1: top + 6, 2: top + 3, 3: top}, self.loads
        self.limit = top + 8
        self.partitions = sum(len(t.partitions) for t in self.state.topics.values())

    def plan(
        self, *topics: dict[str, Any], max_partitions: int | None = None, broker: bool = True
    ) -> Plan:
        limits: dict[str, int] = {}
        if broker:
            limits["max_broker_partitions"] = self.limit
        if max_partitions is not None:
            limits["max_partitions"] = max_partitions
        config = self.repo.root / "reconciler.yaml"
        data = json.loads(json.dumps(_yaml(config)))
        data["clusters"]["test"]["limits"] = limits
        self.repo.write("reconciler.yaml", data)
        self.repo.topics(*({**t, "name": f"{self.ns}.{t['name']}"} for t in topics))
        plan = plan_of(Context(self.repo.root), "test")
        if broker:
            # The plan read the same loads this test built: nothing else moved meanwhile.
            assert {r.broker: r.current for r in plan.broker_load} == self.loads
        return plan

    def rejected(self, plan: Plan, rule: str = "max_broker_partitions") -> list[str | None]:
        """Topics (None for plan-wide) of the plan's `rule` errors."""
        return [d.topic for d in plan.diagnostics if d.rule == rule and d.is_error]


def _yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text())


def desired(plan: Plan) -> dict[int, int]:
    return {row.broker: row.desired for row in plan.broker_load}


@pytest.fixture
def loaded(
    tmp_path: Path, kafka3: LocalCluster, ns: str, monkeypatch: pytest.MonkeyPatch
) -> Loaded:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka3.bootstrap)
    return Loaded(tmp_path, kafka3, ns)


def test_max_broker_partitions_accepts_exactly_the_plans_that_fit(loaded: Loaded) -> None:
    limit, loads = loaded.limit, loaded.loads

    # Fits exactly: two RF-3 partitions need broker 1's last two slots.
    fits = loaded.plan({"name": "fits", "partitions": 2, "replication_factor": 3})
    assert fits.applyable, fits.diagnostics
    assert desired(fits) == {b: loads[b] + 2 for b in (1, 2, 3)}
    assert desired(fits)[1] == limit
    assert fits.load_near_limit  # broker 1 at 100%: the text plan shows the table

    # One more partition needs a third slot on broker 1.
    over = loaded.plan({"name": "over", "partitions": 3, "replication_factor": 3})
    assert not over.applyable
    [error] = [d for d in over.diagnostics if d.rule == "max_broker_partitions"]
    assert (error.topic, error.broker) == (f"{loaded.ns}.over", 1)
    assert f"limits.max_broker_partitions {limit}" in error.message
    assert f"broker 1 (rack-a) {loads[1]} -> {loads[1] + 3}" in error.message

    # 7 partitions at RF 2 = 14 replicas against room 2 + 5 + 8 = 15: only the placement
    # 2 / 5 / 7 fits (Kafka's round-robin would put 4 or 5 on broker 1).
    tight = loaded.plan({"name": "tight", "partitions": 7, "replication_factor": 2})
    assert tight.applyable, tight.diagnostics
    assert desired(tight) == {1: limit, 2: limit, 3: loads[3] + 7}
    # 8 partitions do not fit however they are placed (16 > 15).
    assert loaded.rejected(
        loaded.plan({"name": "tight", "partitions": 8, "replication_factor": 2})
    ) == [f"{loaded.ns}.tight"]


def test_one_replication_factor_fits_and_a_larger_one_does_not(loaded: Loaded) -> None:
    # Three partitions: RF 2 takes 2 + 3 + 1 or similar within room 2 / 5 / 8; RF 3 needs a
    # replica of each partition on broker 1, which has room for two.
    rf2 = loaded.plan({"name": "rf", "partitions": 3, "replication_factor": 2})
    assert rf2.applyable, rf2.diagnostics
    rf3 = loaded.plan({"name": "rf", "partitions": 3, "replication_factor": 3})
    assert loaded.rejected(rf3) == [f"{loaded.ns}.rf"]

    # The same for a replication-factor increase of an existing topic: its computed
    # reassignment says where the replicas go, and they must fit there. With `grow` on brokers
    # 2, 3, 3 the room is 2 / 4 / 6: RF 2 adds one replica per partition on the least-loaded
    # broker outside it; RF 3 adds one of every partition to broker 1.
    admin = AdminClient({"bootstrap.servers": loaded.cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    name = f"{loaded.ns}.grow"
    for future in admin.create_topics(
        [NewTopic(name, 3, replica_assignment=[[2], [3], [3]])]
    ).values():
        future.result()
    wait_for_topic(admin, name, partitions=3)
    loaded.loads = replica_load(stable_state(loaded.cl))
    assert {b: loaded.limit - n for b, n in loaded.loads.items()} == {1: 2, 2: 4, 3: 6}
    to2 = loaded.plan({"name": "grow", "partitions": 3, "replication_factor": 2})
    assert to2.applyable, to2.diagnostics
    assert sum(desired(to2).values()) == sum(loaded.loads.values()) + 3
    to3 = loaded.plan({"name": "grow", "partitions": 3, "replication_factor": 3})
    [error] = [d for d in to3.diagnostics if d.rule == "max_broker_partitions"]
    assert (error.topic, error.broker) == (name, 1)
    assert f"{name} +3 by its reassignment" in error.message


def test_the_whole_plan_is_checked_and_manual_assignments_count_where_they_say(
    loaded: Loaded,
) -> None:
    ns = loaded.ns
    # Each fits alone; together the second needs a slot on broker 1 that the first took.
    alone = loaded.plan({"name": "a", "partitions": 2, "replication_factor": 3})
    assert alone.applyable
    both = loaded.plan(
        {"name": "a", "partitions": 2, "replication_factor": 3},
        {"name": "b", "partitions": 1, "replication_factor": 3},
    )
    assert loaded.rejected(both) == [f"{ns}.b"]

    # Manual assignments are not moved to where there is room: three replicas on broker 1
    # are one too many, the same partitions on brokers 2 and 3 fit.
    manual = loaded.plan({"name": "m", "assignments": [[1, 2], [1, 3], [1, 2]]})
    [error] = [d for d in manual.diagnostics if d.rule == "max_broker_partitions"]
    assert (error.topic, error.broker, error.is_error) == (f"{ns}.m", 1, True)
    assert f"it hosts {loaded.loads[1]} now and the plan puts 3 there" in error.message
    elsewhere = loaded.plan({"name": "m", "assignments": [[2, 3], [3, 2], [2, 3]]})
    assert elsewhere.applyable, elsewhere.diagnostics


def test_max_partitions_counts_partitions_not_replicas(loaded: Loaded) -> None:
    room = 5
    cap = loaded.partitions + room
    fits = loaded.plan(
        {"name": "p", "partitions": room, "replication_factor": 3},
        max_partitions=cap,
        broker=False,
    )
    assert fits.applyable, fits.diagnostics
    assert not fits.broker_load  # no max_broker_partitions: no load table
    over = loaded.plan(
        {"name": "p", "partitions": room + 1, "replication_factor": 1},
        max_partitions=cap,
        broker=False,
    )
    assert loaded.rejected(over, "max_partitions") == [f"{loaded.ns}.p"]


def test_cli_json_plan_carries_the_rule_and_broker(loaded: Loaded) -> None:
    loaded.plan({"name": "over", "partitions": 3, "replication_factor": 3})  # writes the repo
    result = loaded.repo.run("plan", "--cluster", "test", "--format", "json")
    assert result.code == 1, result.stderr
    data = result.json()
    jsonschema.Draft202012Validator(PLAN_SCHEMA).validate(data)
    [error] = [d for d in data["diagnostics"] if d["rule"] == "max_broker_partitions"]
    assert (error["severity"], error["code"], error["broker"]) == ("error", "P111", 1)
    assert data["applyable"] is False
    rows = {row["broker"]: row for row in data["broker_load"]}
    assert rows[1]["current"] == loaded.loads[1] and rows[1]["limit"] == loaded.limit
    assert BrokerLoad(**rows[1]).near_limit
