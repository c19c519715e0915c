"""`plan` reaches its cluster through one Cluster: the state, the in-use evidence of a delete and
the check that Kafka hides none of the topics it creates share one librdkafka client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster.adapter import connect
from reconciler.local.state import LocalCluster
from reconciler.planning.changes import Action
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def test_a_plan_that_creates_and_deletes_makes_one_admin_client(
    kafka1: LocalCluster, ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    admin.create_topics([NewTopic(f"{ns}.old", 1, 1)])[f"{ns}.old"].result()
    wait_for_topic(admin, f"{ns}.old")
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"allow_delete": True})
    repo.topics(
        {"name": f"{ns}.new", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.old", "state": "absent"},
    )
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka1.bootstrap)
    made: list[object] = []
    real = AdminClient

    def counted(*args: Any, **kwargs: Any) -> AdminClient:
        made.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(connect, "AdminClient", counted)
    found = plan_of(Context(tmp_path), "test")
    actions = {c.topic: c.action for c in found.changes}
    assert actions == {f"{ns}.new": Action.CREATE, f"{ns}.old": Action.DELETE}
    assert len(made) == 1
