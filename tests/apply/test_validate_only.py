"""Kafka's validate_only for every request apply sends, against the real three-broker cluster:
a refusal of any of them refuses the whole plan before its first change."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def test_a_config_update_kafka_refuses_stops_the_plan_before_any_create(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    compacted = {"name": f"{ns}.ledger", "partitions": 1, "replication_factor": 1,
                 "config": {"cleanup.policy": "compact"}}  # fmt: skip
    repo.topics(compacted)
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    before = independent_read(kafka3.bootstrap, ns)
    # Each value is valid alone; together Kafka refuses them (min lag above max lag), which
    # only the brokers judge. The new topic sorts first and would be created first.
    conflicting = {**compacted, "config": {"cleanup.policy": "compact",
                   "min.compaction.lag.ms": "2d", "max.compaction.lag.ms": "1d"}}  # fmt: skip
    repo.topics({"name": f"{ns}.audit", "partitions": 1, "replication_factor": 1}, conflicting)
    # plan asks Kafka the same (P135: tests/plan/test_kafka_checked_plan.py); apply, which may
    # run without a reviewed plan, asks again before its first change
    planned = repo.run("plan", "--cluster", "test")
    assert planned.code == 1 and "error[P135]" in planned.stdout, planned.stdout + planned.stderr

    refused = repo.run("apply", "--cluster", "test", "--auto-approve")

    assert refused.code == 1, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stderr
    said = refused.stderr
    assert "validate_only check refused 1 change(s)" in said
    assert f"{ns}.ledger" in said
    assert "min.compaction.lag.ms=172800000" in said  # the key, as sent
    assert "INVALID_CONFIG" in said  # Kafka's own code and message are kept
    assert "Nothing was changed." in said
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    assert f"{ns}.audit" not in admin.list_topics(timeout=10).topics
    assert independent_read(kafka3.bootstrap, ns) == before
