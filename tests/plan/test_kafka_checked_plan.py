"""plan asks Kafka: every create, config update and partition increase of a live plan is sent
validate_only (as apply's pre-flight sends them), so a change Kafka refuses is an error (P135)
in the pull request, not a surprise at apply. On the real session broker `kafka1`: a config
pair Kafka refuses together, and a create with tiered storage the cluster does not have."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


def _overrides(admin: AdminClient, topic: str) -> dict[str, str]:
    future = admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)])
    entries = next(iter(future.values())).result(30)
    return {k: e.value for k, e in entries.items() if not e.is_default}


def test_changes_kafka_refuses_are_errors_in_the_plan(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    lags, tiered, fine = f"{ns}.lags", f"{ns}.tiered", f"{ns}.fine"
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics([NewTopic(lags, 1, 1)]).values():
        future.result(30)
    wait_for_topic(admin, lags)
    before = _overrides(admin, lags)
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    repo.topics(
        # Kafka refuses a minimum compaction lag above the maximum (LogConfig's own check)
        {"name": lags, "partitions": 1, "replication_factor": 1,
         "config": {"cleanup.policy": "compact", "min.compaction.lag.ms": "2h",
                    "max.compaction.lag.ms": "1h"}},
        # the session broker runs without tiered storage
        {"name": tiered, "partitions": 1, "replication_factor": 1,
         "config": {"remote.storage.enable": "true"}},
        {"name": fine, "partitions": 1, "replication_factor": 1},
    )  # fmt: skip
    assert repo.run("validate").code == 0  # each value alone is valid: only Kafka can tell

    plan = repo.run("plan", "--cluster", "test")
    assert plan.code == 1, plan.stdout + plan.stderr
    shown = plan.stdout + plan.stderr
    refused = [line for line in shown.splitlines() if "P135" in line]
    assert len(refused) == 2, shown
    assert any(lags in line and "min.compaction.lag.ms" in line for line in refused), refused
    assert any(tiered in line and "Tiered Storage" in line for line in refused), refused
    assert "P136" not in shown  # the test's principal may send everything: all was checked
    data = repo.run("plan", "--cluster", "test", "--format", "json").json()
    codes = {(d["code"], d.get("topic")) for d in data["diagnostics"]}
    assert {("P135", lags), ("P135", tiered)} <= codes
    assert not data["applyable"]

    # Nothing was changed by asking
    assert _overrides(admin, lags) == before
    assert tiered not in admin.list_topics(timeout=30).topics
    assert fine not in admin.list_topics(timeout=30).topics
