"""A delete's approval names the topic's id (real brokers): after a tombstone's approved delete,
a topic re-created by hand under the same name is another topic, which the old approval does
not cover; the plan gives the item that would, and apply leaves the topic and its records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from reconciler.planning.hazards import entry
from tests.kafka_helpers import KEEPS_OLD_RECORDS, record_count, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def _create_with_a_record(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    deadline = time.monotonic() + 60
    while True:  # a name just deleted may still be on its way out of the metadata
        [future] = admin.create_topics([NewTopic(topic, 1, 1, config=KEEPS_OLD_RECORDS)]).values()
        try:
            future.result()
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    wait_for_topic(admin, topic)
    producer = Producer({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    # Written long ago: the in-use gate (test_in_use_kafka.py) leaves this delete to its approval
    producer.produce(topic, b"kept", timestamp=int(time.time() * 1000) - 30 * 24 * 3600 * 1000)
    assert producer.flush(30) == 0


def _delete_hazard(repo: SpecRepo) -> tuple[int, dict[str, Any]]:
    planned = repo.run("plan", "--cluster", "test", "--format", "json")
    [change] = planned.json()["changes"]
    [hazard] = change["hazards"]
    assert hazard["code"] == "delete"
    return planned.code, hazard


def test_a_delete_approval_does_not_cover_a_topic_recreated_under_the_name(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    name = f"{ns}.old"
    _create_with_a_record(kafka1.bootstrap, name)
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, {"allow_delete": True})
    repo.topics({"name": name, "state": "absent"})
    code, hazard = _delete_hazard(repo)
    assert code == 1 and not hazard["acknowledged"]
    approval = hazard["approve_with"]
    assert set(approval) == {"delete"} and approval["delete"] != name  # the topic's id
    repo.topics({"name": name, "state": "absent", "acknowledge": [approval]})
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    deadline = time.monotonic() + 30
    while name in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, f"{name} was not deleted"
        time.sleep(0.2)

    _create_with_a_record(kafka1.bootstrap, name)  # out of band, under the same name

    code, hazard = _delete_hazard(repo)
    assert code == 1 and not hazard["acknowledged"]
    assert hazard["approve_with"] != approval
    shown = repo.run("plan", "--cluster", "test")
    assert "approves it with `- {delete: " in shown.stdout, shown.stdout
    assert "approves another change, not this one" in shown.stdout
    assert "warning[P133]" in shown.stdout  # the old approval is stale
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr
    # One sentence, naming the item that would approve this delete (the new topic's id)
    assert "error: apply refuses this plan: approve the hazard " in applied.stderr
    item = entry("delete", hazard["approve_with"]["delete"])  # quoted when YAML needs it
    assert f"({name}: `- {item}`)" in applied.stderr
    wait_for_topic(admin, name)
    assert record_count(kafka1.bootstrap, name) == 1
