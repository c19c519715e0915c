"""`import --refresh` against the real three-broker cluster: drift made with the admin client
is written into the spec lines it comes from, and nothing else changes."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
)

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo, schema_validator

pytestmark = pytest.mark.kafka


def spec(ns: str) -> str:
    return f"""\
# Payments' topics (reviewed by the payments team).
defaults:
  config:
    min.insync.replicas: 1   # one file-wide floor

topics:
  # A: nobody touches it
  - name: {ns}.a
    partitions: 2
    replication_factor: 2

  # B: the ledger; retention agreed with audit
  - name: '{ns}.b'
    partitions: 3
    replication_factor: 2
    config:
      retention.ms: 7d          # a week
      cleanup.policy: delete
      max.message.bytes: 1048588
"""


TEMPLATE = """\
topics:
  - name: "{{ vars.ns }}.t"
    partitions: 1
    config:
      retention.ms: 1d
"""


def alter(admin: AdminClient, topic: str, **values: str | None) -> None:
    entries = [
        ConfigEntry(
            key.replace("_", "."),
            value or "",
            incremental_operation=AlterConfigOpType.DELETE
            if value is None
            else AlterConfigOpType.SET,
        )
        for key, value in values.items()
    ]
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=entries)
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    for key, value in values.items():
        wait_for_config(admin, topic, key.replace("_", "."), value)


def diff(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_refresh_writes_exactly_the_drifted_lines_then_plan_is_empty(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    path = repo.write("topics/pay.yaml", spec(ns))
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr
    before = path.read_bytes()

    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    # On-call's out-of-band changes: retention raised, one override changed, one added, one
    # dropped, and partitions added
    alter(
        admin, f"{ns}.b",
        retention_ms=str(14 * 86_400_000), max_message_bytes="2097152",
        segment_ms="3600000", cleanup_policy=None,
    )  # fmt: skip
    for future in admin.create_partitions([NewPartitions(f"{ns}.b", 5)]).values():
        future.result()
    wait_for_topic(admin, f"{ns}.b", partitions=5)
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code != 0

    refreshed = repo.run("import", "--refresh", "--cluster", "test")
    assert refreshed.code == 0, refreshed.stdout + refreshed.stderr
    assert "Refreshed 5 value(s) of 1 topic(s) in 1 file(s)" in refreshed.stdout
    after = path.read_bytes()
    assert diff(before.decode(), after.decode()) == [
        "-    partitions: 3",
        "+    partitions: 5",
        "-      retention.ms: 7d          # a week",
        "-      cleanup.policy: delete",
        "-      max.message.bytes: 1048588",
        "+      retention.ms: 14d          # a week",
        "+      max.message.bytes: 2097152",
        "+      segment.ms: 1h",
    ]
    plan = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert plan.code == 0, plan.stdout + plan.stderr

    again = repo.run("import", "--refresh", "--cluster", "test", "--format", "json")
    assert again.code == 0, again.stdout + again.stderr
    assert again.json()["files"] == [] and again.json()["complete"] is True
    assert path.read_bytes() == after


def test_values_from_defaults_and_templates_are_named_not_rewritten(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    config = (tmp_path / "reconciler.yaml").read_text()
    repo.write(
        "reconciler.yaml",
        config.replace("    bootstrap:", f"    vars: {{ns: {ns}}}\n    bootstrap:"),
    )
    path = repo.write("topics/pay.yaml", spec(ns))
    template = repo.write("topics/t.yaml.j2", TEMPLATE)
    assert repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300).code == 0
    files = {p: p.read_bytes() for p in (path, template, tmp_path / "reconciler.yaml")}

    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    alter(admin, f"{ns}.a", min_insync_replicas="2")  # from the file's defaults
    alter(admin, f"{ns}.t", retention_ms="172800000")  # from a template
    alter(admin, f"{ns}.b", retention_ms=str(14 * 86_400_000))  # its own line

    left = repo.run("import", "--refresh", "--cluster", "test", "--topic", r"\.(a|t)$")
    assert left.code == 1, left.stdout + left.stderr
    assert {p: p.read_bytes() for p in files} == files  # --topic left b alone
    assert "left: topics/pay.yaml:4: min.insync.replicas of " in left.stderr
    assert "`defaults:`" in left.stderr
    assert f"left: topics/t.yaml.j2:2: '{ns}.t' comes from a template" in left.stderr
    assert "Traceback" not in left.stderr

    document = repo.run("import", "--refresh", "--cluster", "test", "--format", "json")
    assert document.code == 1
    report = document.json()
    schema_validator("import.schema.json").validate(report)
    assert report["mode"] == "refresh" and report["complete"] is False
    assert [c["field"] for f in report["files"] for c in f["changes"]] == ["config.retention.ms"]
    assert sorted(x["topic"] for x in report["left"]) == [f"{ns}.a", f"{ns}.t"]
    assert template.read_bytes() == files[template]
