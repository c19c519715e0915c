"""A saved plan is bound to the reconciler version that made it, on the real cluster: `plan -o`
records the versions, apply refuses a plan of another reconciler version (or of none) with one
sentence naming both and changing nothing, and applies one of other client library versions,
saying so."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka.admin import AdminClient

from reconciler import __version__
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

Edit = Callable[[dict[str, Any]], None]


def _saved(repo: SpecRepo, tmp_path: Path) -> Path:
    saved = tmp_path / "plan.json"
    made = repo.run("plan", "--cluster", "test", "-o", str(saved))
    assert made.code == 0, made.stderr
    return saved


def _older(document: dict[str, Any]) -> None:
    document["made_by"]["reconciler"] = "0.1.9"


def _newer(document: dict[str, Any]) -> None:
    document["made_by"]["reconciler"] = __version__ + ".post1"


def _none(document: dict[str, Any]) -> None:
    del document["made_by"]


def test_plan_records_the_versions_that_made_it(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.recorded", "partitions": 1})
    document = json.loads(_saved(repo, tmp_path).read_text())
    assert document["made_by"] == {
        "reconciler": __version__,
        "libraries": {
            "confluent-kafka": version("confluent-kafka"),
            "librdkafka": confluent_kafka.libversion()[0],
            "kafka-python": version("kafka-python"),
        },
    }


@pytest.mark.parametrize(
    ("edit", "theirs"),
    [(_older, "made by reconciler 0.1.9"), (_newer, f"made by reconciler {__version__}.post1"),
     (_none, "does not record the reconciler version that made it")],
    ids=["older", "newer", "none"],
)  # fmt: skip
def test_apply_refuses_a_plan_of_another_reconciler_version(
    kafka1: LocalCluster, ns: str, tmp_path: Path, edit: Edit, theirs: str
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    topic = f"{ns}.versioned"
    repo.topics({"name": topic, "partitions": 1})
    saved = _saved(repo, tmp_path)
    document = json.loads(saved.read_text())
    edit(document)
    saved.write_text(json.dumps(document))

    result = repo.run("apply", "--cluster", "test", str(saved))

    assert result.code == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert theirs in lines[0] and f"this is reconciler {__version__}" in lines[0]
    assert "plan again with this version" in lines[0] and "nothing was changed" in lines[0]
    assert "Traceback" not in result.stderr
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    assert topic not in admin.list_topics(timeout=10).topics  # nothing created


def test_apply_takes_a_plan_of_other_client_library_versions_and_says_so(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    topic = f"{ns}.libraries"
    repo.topics({"name": topic, "partitions": 1})
    saved = _saved(repo, tmp_path)
    document = json.loads(saved.read_text())
    document["made_by"]["libraries"]["librdkafka"] = "2.0.0"
    saved.write_text(json.dumps(document))

    result = repo.run("apply", "--cluster", "test", str(saved))

    assert result.code == 0, result.stdout + result.stderr
    now = confluent_kafka.libversion()[0]
    assert f"warning: the saved plan was made with librdkafka 2.0.0 (now {now})" in (
        result.stderr
    ), result.stderr
    wait_for_topic(
        AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA),
        topic,
        partitions=1,
    )
