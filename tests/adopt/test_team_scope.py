"""Adopting a cluster team by team: `import --include` of one team's topics, the ownership scope
`policy.manage` written, and drift is green; another team's out-of-band change leaves it green."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def _set_retention(admin: AdminClient, topic: str, millis: str) -> None:
    entry = ConfigEntry("retention.ms", millis, incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[entry])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    wait_for_config(admin, topic, "retention.ms", millis)


def test_one_team_adopted_is_green(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    teams = [f"{ns}.pay.orders", f"{ns}.pay.refunds", f"{ns}.ship.parcels"]
    for future in admin.create_topics([NewTopic(t, 2, 1) for t in teams]).values():
        future.result()
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    include = f"^{re.escape(ns)}\\.pay\\."
    imported = repo.run("import", "--include", include)
    assert imported.code == 0, imported.stderr
    offer = f"To adopt only these topics, add `manage: ['{include}']` under clusters.test.policy"
    assert offer in imported.stderr
    assert repo.run("drift").code == 2  # the shipping team's topic is unmanaged drift

    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["policy"]["manage"] = [include]  # the scope the offer names
    repo.write("reconciler.yaml", config)
    drift = repo.run("drift", "--format", "json")
    assert drift.code == 0, drift.stdout
    plan = repo.run("plan", "--format", "json", "--prune")
    assert plan.code == 0 and plan.json()["unmanaged"] == [] and plan.json()["changes"] == []

    _set_retention(admin, f"{ns}.ship.parcels", "3600000")  # another team's change
    assert repo.run("drift").code == 0
    _set_retention(admin, f"{ns}.pay.orders", "3600000")  # ours: drift
    assert repo.run("drift").code == 2


def test_a_spec_outside_the_scope_is_not_planned_and_says_why(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns, policy={"manage": [f"^{ns}\\.a"]})
    repo.topics(
        {"name": f"{ns}.a", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.b", "partitions": 1, "replication_factor": 1},
    )
    plan = repo.run("plan", "--format", "json")
    assert plan.code == 0, plan.stderr
    assert [c["topic"] for c in plan.json()["changes"]] == [f"{ns}.a"]
    (warning,) = plan.json()["diagnostics"]
    assert warning["rule"] == "ignored_topic" and warning["topic"] == f"{ns}.b"
    assert "is outside policy.manage" in warning["message"]
