"""Re-running a saved plan on the real cluster: a finished apply re-runs cleanly.

A plan with a create, a config change and a delete, applied twice: the second run asks Kafka
nothing about finished work (the deleted topic's permissions above all: a cluster without an
authorizer answers for a missing topic as if it were denied), says the plan is already applied
and exits 0. "Resuming" and "interrupted" are said only when an apply of the plan died, which its
unfinished audit record shows.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read, wait_until
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, SpecRepo


def _repo(cl: LocalCluster, ns: str, root: Path) -> tuple[SpecRepo, Path]:
    """Topics `keep` (gets a config) and `old` (deleted) made behind reconciler's back; specs
    that also create `new`; the plan saved."""
    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics(
        [NewTopic(f"{ns}.keep", 1, 1), NewTopic(f"{ns}.old", 1, 1)]
    ).values():
        future.result()
    wait_for_topic(admin, f"{ns}.keep", 1)
    wait_for_topic(admin, f"{ns}.old", 1)
    repo = SpecRepo(root, cl.bootstrap, ns, policy={"allow_delete": True})
    specs: list[dict[str, Any]] = [
        {"name": f"{ns}.new", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.keep", "partitions": 1, "replication_factor": 1,
         "config": {"retention.ms": "14d"}},
        {"name": f"{ns}.old", "state": "absent"},
    ]  # fmt: skip
    repo.topics(*specs)
    # the delete is approved by the item the plan gives (the topic's id), as a reviewer would
    planned = repo.run("plan", "--cluster", "test", "--format", "json").json()
    [approval] = [
        h["approve_with"]
        for c in planned["changes"]
        if c["topic"] == f"{ns}.old"
        for h in c["hazards"]
        if h["code"] == "delete"
    ]
    repo.topics(*specs[:2], {**specs[2], "acknowledge": [approval]})
    saved = root / "plan.json"
    made = repo.run("plan", "--cluster", "test", "-o", str(saved))
    assert made.code == 0, made.stdout + made.stderr
    return repo, saved


def _converged(cl: LocalCluster, ns: str) -> None:
    seen = independent_read(cl.bootstrap, ns)
    assert set(seen) == {f"{ns}.new", f"{ns}.keep"}
    assert seen[f"{ns}.keep"]["overrides"] == {"retention.ms": "1209600000"}


def test_a_saved_plan_applied_twice_is_already_applied(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo, saved = _repo(kafka1, ns, tmp_path)
    first = repo.run("apply", "--cluster", "test", str(saved))
    assert first.code == 0, first.stdout + first.stderr
    _converged(kafka1, ns)

    again = repo.run("apply", "--cluster", "test", str(saved))
    assert again.code == 0, again.stdout + again.stderr
    assert "Already applied" in again.stdout
    assert "lacks" not in again.stderr  # no permission asked of the deleted topic
    assert "resuming" not in again.stderr and "interrupted" not in again.stderr
    _converged(kafka1, ns)


def test_an_apply_killed_between_levels_converges_then_is_already_applied(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo, saved = _repo(kafka1, ns, tmp_path)
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka1.bootstrap, "NO_COLOR": "1"}
    run = subprocess.Popen(
        [*RECONCILER, "--repo", str(repo.root), "apply", "--cluster", "test", str(saved)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    # The create level is the first: once its topic shows, the apply is between levels or in a
    # later one
    wait_until(lambda: f"{ns}.new" in admin.list_topics(timeout=10).topics)
    run.kill()
    run.wait(timeout=30)

    resumed = repo.run("apply", "--cluster", "test", str(saved))
    assert resumed.code == 0, resumed.stdout + resumed.stderr
    assert "its process is gone" in resumed.stderr  # the dead apply's lock was broken
    # Its audit record is unfinished: this is the one case "resuming" is said
    assert "resuming" in resumed.stderr
    assert "lacks" not in resumed.stderr
    _converged(kafka1, ns)
    resource = ConfigResource(ResourceType.TOPIC, f"{ns}.keep")
    assert admin.describe_configs([resource])[resource].result()["retention.ms"].value == (
        "1209600000"
    )

    again = repo.run("apply", "--cluster", "test", str(saved))
    assert again.code == 0, again.stdout + again.stderr
    assert "Already applied" in again.stdout
    assert "resuming" not in again.stderr
