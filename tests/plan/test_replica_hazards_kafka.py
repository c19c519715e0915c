"""The replication factor and min.insync.replicas decreases on real brokers (kafka3: three
racked brokers). Each hazard's `from` is what Kafka reports before (read here with
librdkafka, not through reconciler), apply refuses the decrease until the spec approves exactly
that transition, and an approval left in the spec does not cover a later, different decrease."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from reconciler.local.state import LocalCluster
from reconciler.planning.hazards import entry
from tests.apply.helpers import independent_read
from tests.kafka_helpers import wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

MIN_ISR = "min.insync.replicas"


def _kafkas_min_isr(admin: AdminClient, topic: str) -> tuple[int, int]:
    """(the value in effect, its source) as DescribeConfigs reports them for `topic`."""
    resource = ConfigResource(ResourceType.TOPIC, topic)
    entry = admin.describe_configs([resource])[resource].result()[MIN_ISR]
    return int(entry.value), int(entry.source)


def _hazards(repo: SpecRepo) -> tuple[int, dict[str, dict[str, Any]]]:
    planned = repo.run("plan", "--cluster", "test", "--format", "json")
    assert planned.code in (0, 1), planned.stdout + planned.stderr
    [change] = planned.json()["changes"]
    return planned.code, {h["code"]: h for h in change["hazards"]}


def entry_of(hazard: dict[str, Any]) -> str:
    """The `acknowledge:` item a plan's hazard names, as the refusal writes it."""
    fields = hazard["approve_with"][hazard["code"]]
    return entry(hazard["code"], tuple(fields.items()))


def _replication_factors(bootstrap: str, topic: str) -> set[int]:
    return {len(r) for r in independent_read(bootstrap, topic)[topic]["replicas"]}


def test_replica_decreases_need_their_own_approval(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    boot = kafka3.bootstrap
    topic = f"{ns}.durable"
    admin = AdminClient({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    new = NewTopic(topic, 2, 3, config={MIN_ISR: "2"})
    admin.create_topics([new])[topic].result(30)
    wait_for_topics(admin, {topic: 2})
    before, source = _kafkas_min_isr(admin, topic)
    assert (before, source) == (2, 1)  # DYNAMIC_TOPIC_CONFIG: the topic's own override
    repo = SpecRepo(tmp_path, boot, ns)
    lowered = {"name": topic, "partitions": 2, "replication_factor": 1, "config": {MIN_ISR: 1}}
    repo.topics(lowered)

    code, hazards = _hazards(repo)
    assert code == 1
    rf, isr = hazards["replication_factor_decrease"], hazards["min_insync_replicas_decrease"]
    assert not rf["acknowledged"] and not isr["acknowledged"]
    rf_item = rf["approve_with"]["replication_factor_decrease"]
    isr_item = isr["approve_with"]["min_insync_replicas_decrease"]
    assert (rf_item["from"], rf_item["to"]) == (3, 1)
    assert (isr_item["key"], isr_item["from"], isr_item["to"]) == (MIN_ISR, before, 1)
    assert rf_item["topic_id"] and rf_item["topic_id"] == isr_item["topic_id"]

    refused = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert refused.code == 1, refused.stdout + refused.stderr
    # One sentence naming the item that approves each (what `approve_with` gives)
    assert "error: apply refuses this plan: approve the 2 hazards " in refused.stderr
    for hazard in (rf, isr):
        assert f"`- {entry_of(hazard)}`" in refused.stderr, refused.stderr
    assert refused.stderr.rstrip().endswith("Nothing was changed.")
    assert _replication_factors(boot, topic) == {3}
    assert _kafkas_min_isr(admin, topic) == (2, 1)

    # Approving one of the two is not enough: apply refuses the whole plan
    repo.topics({**lowered, "acknowledge": [rf["approve_with"]]})
    half = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert half.code == 1, half.stdout + half.stderr
    assert "error: apply refuses this plan: approve the hazard " in half.stderr
    assert (
        f"`- {entry_of(isr)}`" in half.stderr and "replication_factor_decrease" not in half.stderr
    )
    assert _replication_factors(boot, topic) == {3}
    assert _kafkas_min_isr(admin, topic) == (2, 1)

    approvals = [rf["approve_with"], isr["approve_with"]]
    repo.topics({**lowered, "acknowledge": approvals})
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr
    assert _replication_factors(boot, topic) == {1}
    assert _kafkas_min_isr(admin, topic) == (1, 1)

    # A later pull request raises both to 3 (no hazard); the next lowers them to 2 and 1 and
    # keeps the old approvals (3 -> 1 and 2 -> 1), which cover neither 3 -> 2 nor 3 -> 1
    repo.topics({**lowered, "replication_factor": 3, "config": {MIN_ISR: 3}})
    assert repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300).code == 0
    assert _replication_factors(boot, topic) == {3}
    assert _kafkas_min_isr(admin, topic) == (3, 1)
    repo.topics({**lowered, "replication_factor": 2, "acknowledge": approvals})
    code, hazards = _hazards(repo)
    assert code == 1
    rf, isr = hazards["replication_factor_decrease"], hazards["min_insync_replicas_decrease"]
    assert not rf["acknowledged"] and not isr["acknowledged"]
    rf_now = rf["approve_with"]["replication_factor_decrease"]
    isr_now = isr["approve_with"]["min_insync_replicas_decrease"]
    assert (rf_now["from"], rf_now["to"], isr_now["from"], isr_now["to"]) == (3, 2, 3, 1)
    text = repo.run("plan", "--cluster", "test").stdout
    assert text.count("approves another change, not this one") == 2, text
    again = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert again.code == 1, again.stdout + again.stderr
    assert _replication_factors(boot, topic) == {3}
    assert _kafkas_min_isr(admin, topic) == (3, 1)
