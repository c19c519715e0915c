"""Text output against a real broker, through the CLI: `plan` at COLUMNS=80 wraps (no line
wider but an unbreakable word), JSON never does, the state hash shows only under -v, and a
refused plan is refused in one sentence by plan and by apply, saved plan or not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from reconciler.planning.hazards import entry
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

WORD = re.compile(r"(?:`[^`]*`|[^ `]|`)+")  # a `quoted` span is one word: it never breaks
LONG = "settlement.reconciliation.cross-border.eu-west-1.ledger-entries.compacted-snapshots.v12"


def fits(line: str, width: int) -> bool:
    return len(line) <= width or len(WORD.findall(line)) == 1


def partitions(bootstrap: str, name: str) -> int:
    metadata = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA).list_topics(
        name, timeout=30
    )
    return len(metadata.topics[name].partitions)


@pytest.fixture
def refused(kafka1: LocalCluster, ns: str, tmp_path: Path) -> SpecRepo:
    """Topics on the broker, then specs whose plan apply must refuse: a keyed partition
    increase (a hazard nobody approved) and a partition decrease (an error), beside a create
    of a topic whose name is longer than a line."""
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    made = [{"name": f"{ns}.k", "partitions": 2}, {"name": f"{ns}.d", "partitions": 3}]
    repo.topics(*({**t, "replication_factor": 1} for t in made))
    created = repo.run("apply", "--auto-approve")
    assert created.code == 0, created.stdout + created.stderr
    repo.topics(
        {"name": f"{ns}.k", "partitions": 4, "replication_factor": 1, "keyed": True},
        {"name": f"{ns}.d", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.{LONG}", "partitions": 1, "replication_factor": 1},
    )
    return repo


def test_plan_wraps_at_columns_and_json_never(
    refused: SpecRepo, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    shown = refused.run("plan")
    assert shown.code == 1, shown.stdout + shown.stderr
    lines = shown.stdout.splitlines()
    assert all(fits(line, 80) for line in lines), shown.stdout
    assert f"{ns}.{LONG}" in [line.strip() for line in lines]  # whole, on a line of its own
    hazard = next(i for i, line in enumerate(lines) if "! hazard key_reorder" in line)
    assert lines[hazard + 1].startswith(" " * 10)  # the message continues under its hazard

    monkeypatch.setenv("COLUMNS", "20")
    narrow = refused.run("plan", "--format", "json")
    monkeypatch.setenv("COLUMNS", "100000")
    assert narrow.stdout == refused.run("plan", "--format", "json").stdout
    assert narrow.json()["applyable"] is False


def test_the_state_hash_only_under_verbose(refused: SpecRepo) -> None:
    based_on = refused.run("plan", "--format", "json").json()["based_on"]
    assert based_on.startswith("sha256:")
    assert based_on not in refused.run("plan").stdout
    verbose = refused.run("plan", "--verbose")
    assert verbose.stdout.splitlines()[0] == f"Plan for cluster test, based on {based_on}"
    assert based_on not in refused.run("drift").stdout
    assert "Read from cluster state sha256:" in refused.run("drift", "-v").stdout


def test_a_refusal_is_one_sentence_in_plan_and_in_apply(
    refused: SpecRepo, kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    [keyed] = [c for c in refused.run("plan", "--format", "json").json()["changes"]
               if c["topic"] == f"{ns}.k"]  # fmt: skip
    fields = keyed["hazards"][0]["approve_with"]["key_reorder"]
    assert (fields["from"], fields["to"]) == (2, 4) and fields["topic_id"]
    item = f"`- {entry('key_reorder', tuple(fields.items()))}`"
    planned = refused.run("plan", "-o", str(tmp_path / "plan.json"))
    assert planned.code == 1
    verdict = [line for line in planned.stdout.splitlines() if "Not applyable" in line]
    assert verdict == [planned.stdout.splitlines()[-1]]
    assert f"partition_decrease on {ns}.d" in verdict[0] and f"{ns}.k: {item}" in verdict[0]
    clause = verdict[0].removeprefix("Not applyable: ").removesuffix(".")

    for args in (("apply", "--auto-approve"), ("apply", str(tmp_path / "plan.json"))):
        applied = refused.run(*args)
        assert applied.code == 1, applied.stdout + applied.stderr
        both = applied.stdout + applied.stderr
        assert "Not applyable" not in both and "not acknowledged" not in both
        [error] = [line for line in applied.stderr.splitlines() if line.startswith("error:")]
        assert error == f"error: apply refuses this plan: {clause}. Nothing was changed."
        assert both.count("apply refuses this plan") == 1
    assert partitions(kafka1.bootstrap, f"{ns}.k") == 2
    assert partitions(kafka1.bootstrap, f"{ns}.d") == 3


def test_drift_and_apply_results_wrap(
    refused: SpecRepo, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    drifted = refused.run("drift")
    assert drifted.code == 2, drifted.stdout + drifted.stderr
    assert all(fits(line, 60) for line in drifted.stdout.splitlines()), drifted.stdout
    assert any(line.startswith(" " * 6) for line in drifted.stdout.splitlines())

    # Approved and fixed: apply's result lines continue right of the status column
    [keyed] = [c for c in refused.run("plan", "--format", "json").json()["changes"]
               if c["topic"] == f"{ns}.k"]  # fmt: skip
    refused.topics(
        {"name": f"{ns}.k", "partitions": 4, "replication_factor": 1, "keyed": True,
         "acknowledge": [keyed["hazards"][0]["approve_with"]]},
        {"name": f"{ns}.d", "partitions": 3, "replication_factor": 1},
        {"name": f"{ns}.{LONG}", "partitions": 1, "replication_factor": 1},
    )  # fmt: skip
    applied = refused.run("apply", "--auto-approve")
    assert applied.code == 0, applied.stdout + applied.stderr
    lines = applied.stdout.splitlines()
    assert all(fits(line, 60) for line in lines), applied.stdout
    created = next(i for i, line in enumerate(lines) if line.endswith("applied  create"))
    assert lines[created + 1].strip() == f"{ns}.{LONG}"
    assert lines[created + 1].startswith(" " * 18)  # 12 (status) + 2 + 4 (continuation)
