"""What `plan -o` says after saving: how to apply an applyable plan, and why apply would refuse
one that is not (never an invitation to run that apply)."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from reconciler import __version__
from reconciler.cluster.snapshot import write_snapshot
from tests.planning.factories import cluster, spread, topic
from tests.spec_repo import SpecRepo

WEEK, DAY = "604800000", "86400000"


@pytest.mark.parametrize(
    ("specs", "says"),
    [
        # P101: a partition count cannot go down
        ([{"name": "t.a", "partitions": 1, "config": {"retention.ms": WEEK}}], "1 error to fix"),
        # retention_decrease, not acknowledged
        (
            [{"name": "t.a", "partitions": 3, "config": {"retention.ms": DAY}}],
            "1 hazard to approve",
        ),
        (
            [{"name": "t.a", "partitions": 1, "config": {"retention.ms": DAY}}],
            "1 error to fix and 1 hazard to approve",
        ),
    ],
)
def test_a_saved_plan_apply_would_refuse_says_why_not_apply_it(
    tmp_path: Path, specs: list[dict[str, Any]], says: str
) -> None:
    repo = SpecRepo(tmp_path / "repo", "127.0.0.1:1", "t")
    repo.topics(*specs)
    snap = tmp_path / "snap.json"
    write_snapshot(
        snap, "test", cluster(topic("t.a", spread(3, 1), overrides={"retention.ms": WEEK}))
    )
    saved = tmp_path / "plan.json"
    result = repo.run("plan", "--state", str(snap), "-o", str(saved))
    assert result.code == 1 and saved.exists()
    assert (
        f"Saved the plan to {saved}, but it cannot be applied yet: apply refuses it while it "
        f"has {says} (the plan names each)" in result.stderr
    )
    assert "apply it with" not in result.stderr


def test_an_applyable_saved_plan_says_how_to_apply_it(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "repo", "127.0.0.1:1", "t")
    repo.topics({"name": "t.a", "partitions": 3, "config": {"retention.ms": "1209600000"}})
    snap = tmp_path / "snap.json"
    write_snapshot(
        snap, "test", cluster(topic("t.a", spread(3, 1), overrides={"retention.ms": WEEK}))
    )
    saved = tmp_path / "plan.json"
    result = repo.run("plan", "--state", str(snap), "-o", str(saved))
    assert result.code == 0, result.stdout + result.stderr
    assert f"apply it with `reconciler apply --cluster test {saved}`" in result.stderr


def test_a_plan_from_a_snapshot_records_the_versions_without_loading_a_client(
    tmp_path: Path,
) -> None:
    """`made_by` of a plan from a snapshot: reconciler's version and the installed client
    distributions; no librdkafka, which such a plan never loads (tests/test_startup_imports.py)."""
    repo = SpecRepo(tmp_path / "repo", "127.0.0.1:1", "t")
    repo.topics({"name": "t.a", "partitions": 3})
    snap = tmp_path / "snap.json"
    write_snapshot(snap, "test", cluster(topic("t.a", spread(3, 1))))
    saved = tmp_path / "plan.json"
    assert repo.run("plan", "--state", str(snap), "-o", str(saved)).code == 0
    assert json.loads(saved.read_text())["made_by"] == {
        "reconciler": __version__,
        "libraries": {
            "confluent-kafka": version("confluent-kafka"),
            "kafka-python": version("kafka-python"),
        },
    }
