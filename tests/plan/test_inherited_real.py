"""What a topic inherits, as Kafka answers it, on a broker whose server.properties sets
log.retention.hours=24 and log.cleanup.policy=compact,delete (a dedicated single node: the
shared clusters keep Kafka's defaults). Plans only: topics are made with the admin client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests.kafka_fixtures import own_cluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

DAY_MS = "86400000"  # log.retention.hours=24, in retention.ms's unit
WEEK_MS = "604800000"


@pytest.fixture(scope="module")
def static24(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[LocalCluster]:
    overrides = {
        **default_overrides(1),
        "log.retention.hours": "24",
        "log.cleanup.policy": "compact,delete",
    }
    with own_cluster(
        request, tmp_path_factory, kafka_dist, "static24", 1, overrides=overrides
    ) as cluster:
        yield cluster


def _create(cl: LocalCluster, name: str, partitions: int, config: dict[str, str]) -> None:
    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics([NewTopic(name, partitions, 1, config=config)]).values():
        future.result()


def _plan(repo: SpecRepo, *extra: str) -> dict[str, Any]:
    result = repo.run("plan", "--cluster", "test", "--format", "json", *extra)
    assert result.code in (0, 1), result.stderr
    plan: dict[str, Any] = json.loads(result.stdout)
    return plan


def _change(plan: dict[str, Any], topic: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [c for c in plan["changes"] if c["topic"] == topic]
    assert len(found) == 1, plan["changes"]
    return found[0]


def test_a_removed_retention_override_falls_back_to_the_brokers_hours(
    static24: LocalCluster, ns: str, tmp_path: Path
) -> None:
    name = f"{ns}.clicks"
    _create(static24, name, 1, {"retention.ms": WEEK_MS, "cleanup.policy": "delete"})
    repo = SpecRepo(tmp_path, static24.bootstrap, ns)
    repo.topics({"name": name, "config": {"cleanup.policy": "delete"}})  # retention.ms removed

    change = _change(_plan(repo), name)

    assert change["config"] == [
        {"key": "retention.ms", "current": WEEK_MS, "desired": None, "inherited": DAY_MS}
    ]
    hazards = {h["code"]: h["message"] for h in change["hazards"]}
    assert set(hazards) == {"retention_decrease"}
    assert f"from {WEEK_MS} (7d) to {DAY_MS} (1d)" in hazards["retention_decrease"]
    text = repo.run("plan", "--cluster", "test")
    assert f"- retention.ms: {WEEK_MS} (7d) (falls back to {DAY_MS} (1d))" in text.stdout


def test_a_removed_cleanup_override_falls_back_to_server_properties_not_kafkas_default(
    static24: LocalCluster, ns: str, tmp_path: Path
) -> None:
    # Kafka lists log.cleanup.policy twice (server.properties, then its built-in default);
    # the fallback is the first, not the default the Kafka client's dict keeps.
    name = f"{ns}.events"
    _create(static24, name, 1, {"cleanup.policy": "delete"})
    repo = SpecRepo(tmp_path, static24.bootstrap, ns)
    repo.topics({"name": name})

    live = _plan(repo)
    change = _change(live, name)

    assert change["config"] == [
        {"key": "cleanup.policy", "current": "delete", "desired": None,
         "inherited": "compact,delete"}
    ]  # fmt: skip
    assert [h["code"] for h in change["hazards"]] == ["cleanup_policy_change"]
    # A snapshot carries what the plan needs: planned offline, the same answer.
    snapshot = tmp_path / "state.json"
    assert repo.run("snapshot", "--cluster", "test", "-o", str(snapshot)).code == 0
    saved = json.loads(snapshot.read_text())
    (topic,) = (t for t in saved["topics"] if t["name"] == name)
    assert topic["configs"]["cleanup.policy"] == [
        "delete", "DYNAMIC_TOPIC_CONFIG", False,
        [["log.cleanup.policy", "compact,delete", "STATIC_BROKER_CONFIG"]],
    ]  # fmt: skip
    offline = _plan(repo, "--state", str(snapshot))
    assert _change(offline, name) == change


@pytest.mark.parametrize(
    ("config", "why"),
    [
        pytest.param({"cleanup.policy": "compact"}, "compacted", id="its own compact override"),
        pytest.param({}, "compacted", id="compact,delete inherited from server.properties"),
    ],
)
def test_a_compacted_topics_partition_increase_is_a_key_reorder(
    static24: LocalCluster, ns: str, tmp_path: Path, config: dict[str, str], why: str
) -> None:
    name = f"{ns}.ledger"
    _create(static24, name, 1, config)
    repo = SpecRepo(tmp_path, static24.bootstrap, ns)
    repo.topics({"name": name, "partitions": 2, **({"config": config} if config else {})})

    plan = _plan(repo)

    change = _change(plan, name)
    assert change["partitions"] == {"current": 1, "desired": 2}
    assert [h["code"] for h in change["hazards"]] == ["key_reorder"]
    assert why in change["hazards"][0]["message"]
    assert plan["applyable"] is False  # unacknowledged: apply refuses it
