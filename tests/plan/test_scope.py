"""`plan --changed-since REF` scopes the plan to the pull request's own change.

The user's report (issue 39): on-call raised retention.ms of a payments topic out of band; an
unrelated pull request touching a search topic then planned "0 topic change(s) from this pull
request, 2 pre-existing drift", exit 1 (a retention decrease to approve on a topic its author does
not own), and once merged its apply reverted the incident fix. Now the plan, its exit code and
the saved plan cover the topics the pull request changes (and what they depend on); the drift
is shown apart, never blocks, and is never applied with it. Against a real broker: the drift
is made with the admin client, the apply is the saved plan's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import git
import jsonschema
import pytest

# confluent-kafka's package re-exports these without declaring it, which mypy --strict refuses
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
)

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config, wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

AUTHOR = git.Actor("Test", "test@example.com")
ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
DAY, WEEK = 86_400_000, 604_800_000


def commit(repo: SpecRepo, message: str) -> git.Commit:
    git_repo = git.Repo(repo.root)
    git_repo.git.add("--all")
    return git_repo.index.commit(message, author=AUTHOR, committer=AUTHOR)


def set_config(admin: AdminClient, topic: str, key: str, value: str) -> None:
    """Out of band, as on-call would: behind git's back."""
    entry = ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[entry])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    wait_for_config(admin, topic, key, value)


def current(admin: AdminClient, topic: str, key: str) -> str:
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    [entries] = [f.result() for f in admin.describe_configs([resource]).values()]
    return str(entries[key].value)


def valid(data: dict[str, Any]) -> dict[str, Any]:
    jsonschema.Draft202012Validator(PLAN_SCHEMA).validate(data)
    return data


def topics_of(changes: list[dict[str, Any]]) -> list[str]:
    return [c["topic"] for c in changes]


@pytest.mark.kafka
def applied_and_committed(repo: SpecRepo) -> git.Commit:
    """The specs applied to the cluster and committed: the base a pull request starts from."""
    git.Repo.init(repo.root)
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr
    return commit(repo, "specs as applied")


def test_a_pull_request_plans_and_applies_its_own_change_not_the_drift(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    search, pay, ledger = f"{ns}.search", f"{ns}.payments", f"{ns}.ledger"
    repo = SpecRepo(tmp_path / "specs", kafka1.bootstrap, ns)
    repo.topics({"name": search, "partitions": 1}, file="topics/search.yaml")
    repo.topics(
        {"name": pay, "partitions": 1, "config": {"retention.ms": DAY}}, file="topics/payments.yaml"
    )
    repo.topics({"name": ledger, "partitions": 1}, file="topics/ledger.yaml")
    base = applied_and_committed(repo)

    # The incident: on-call raises the payments topic's retention (reverting it is a
    # retention_decrease hazard apply refuses unacknowledged), and someone grows the ledger
    # (planning it back is an error: Kafka cannot decrease partitions)
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    set_config(admin, pay, "retention.ms", str(WEEK))
    for future in admin.create_partitions([NewPartitions(ledger, 2)]).values():
        future.result()
    wait_for_topics(admin, {ledger: 2})

    # The unrelated pull request: the search topic gets a retention of its own
    repo.topics(
        {"name": search, "partitions": 1, "config": {"retention.ms": WEEK}},
        file="topics/search.yaml",
    )
    commit(repo, "search: keep a week")
    saved = tmp_path / "plan.json"
    args = ("plan", "--cluster", "test", "--changed-since", base.hexsha, "--detailed-exitcode")
    planned = repo.run(*args, "--format", "json", "-o", str(saved))
    assert planned.code == 2, planned.stdout + planned.stderr  # changes, applyable: not 1
    shown = valid(planned.json())
    assert shown["applyable"] is True
    assert topics_of(shown["changes"]) == [search]
    assert [c["cause"] for c in shown["changes"]] == ["change"]
    # The drift is shown, marked, with its own error and hazard, apart from the plan
    assert sorted(topics_of(shown["drift"]["changes"])) == [pay]
    assert [c["cause"] for c in shown["drift"]["changes"]] == ["drift"]
    [hazard] = shown["drift"]["changes"][0]["hazards"]
    assert hazard["code"] == "retention_decrease" and hazard["acknowledged"] is False
    assert [d["topic"] for d in shown["drift"]["diagnostics"] if d["severity"] == "error"] == [
        ledger
    ]
    assert not [d for d in shown["diagnostics"] if d["severity"] == "error"]
    # The saved plan holds the pull request's change and its scope, which apply derives again
    kept = valid(json.loads(saved.read_text()))
    assert topics_of(kept["changes"]) == [search]
    assert kept["scoped"] is True and kept["targets"] == [f"^{re.escape(search)}$"]

    text = repo.run(*args)
    assert text.code == 2, text.stdout + text.stderr
    said = " ".join(text.stdout.split())  # unwrapped
    assert f"~ update {pay} (drift: not from this change)" in said
    assert "not part of this plan" in said
    markdown = repo.run(*args, "--format", "markdown")
    assert markdown.code == 2, markdown.stdout + markdown.stderr
    assert "Applyable." in markdown.stdout
    drift_at = markdown.stdout.index("### Pre-existing drift")
    assert markdown.stdout.index(f"`{search}`") < drift_at < markdown.stdout.index(f"`{pay}`")

    # More drift after review, on a topic outside the scope: the saved plan is not stale
    set_config(admin, pay, "retention.ms", str(2 * WEEK))
    done = repo.run("apply", str(saved), "--auto-approve", timeout=300)
    assert done.code == 0, done.stdout + done.stderr
    assert current(admin, search, "retention.ms") == str(WEEK)
    assert current(admin, pay, "retention.ms") == str(2 * WEEK)  # the incident fix stays
    assert pay not in done.stdout

    # The next pull request changes nothing of its own: exit 0, the drift is the drift job's
    repo.write("README.md", "specs\n")
    head = commit(repo, "docs").hexsha
    only_drift = repo.run(
        "plan", "--cluster", "test", "--changed-since", head, "--detailed-exitcode"
    )
    assert only_drift.code == 0, only_drift.stdout + only_drift.stderr
    said = " ".join(only_drift.stdout.split())
    assert "No changes from this pull request" in said and "the drift job's" in said
    # --whole-plan keeps the plan of everything (marked), which drift blocks
    whole = repo.run(*args, "--whole-plan", "--format", "json")
    assert whole.code == 1, whole.stdout + whole.stderr
    assert sorted(topics_of(valid(whole.json())["changes"])) == [pay]
    assert "drift" not in whole.json()


@pytest.mark.kafka
def test_an_empty_scope_saved_plan_applies_nothing(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    pay = f"{ns}.payments"
    repo = SpecRepo(tmp_path / "specs", kafka1.bootstrap, ns)
    repo.topics(
        {"name": pay, "partitions": 1, "config": {"retention.ms": DAY}}, file="topics/payments.yaml"
    )
    base = applied_and_committed(repo)
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    set_config(admin, pay, "retention.ms", str(WEEK))
    repo.write("README.md", "specs\n")
    commit(repo, "docs")

    saved = tmp_path / "plan.json"
    planned = repo.run(
        "plan", "--cluster", "test", "--changed-since", base.hexsha, "-o", str(saved),
        "--detailed-exitcode",
    )  # fmt: skip
    assert planned.code == 0, planned.stdout + planned.stderr
    kept = valid(json.loads(saved.read_text()))
    assert kept["changes"] == [] and kept["targets"] == [] and kept["scoped"] is True
    done = repo.run("apply", str(saved), "--auto-approve", timeout=300)
    assert done.code == 0, done.stdout + done.stderr
    assert current(admin, pay, "retention.ms") == str(WEEK)
