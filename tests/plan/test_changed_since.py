"""`plan --changed-since REF`: each change marked as this change's own or drift (the whole
plan with --whole-plan; by default scoped to the change's own, the drift apart: test_scope.py).

A change is the pull request's own (`cause: change`) when its topic's spec differs from REF's
(committed, staged, modified or untracked; test_changed_since_per_topic.py: topic by topic),
or, for a `--prune` delete, when REF still declared the topic; every other change is drift:
the cluster already differed from specs REF holds unchanged. Against the real three-broker
cluster, with drift made behind git's back; the errors and the case where the specs at REF
cannot be read are planned offline against a snapshot (`--state`): no broker is needed to
decide them.
"""

from __future__ import annotations

import json
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
    NewTopic,
)

from reconciler.cluster.snapshot import write_snapshot
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.planning.factories import cluster, topic
from tests.spec_repo import Result, SpecRepo

AUTHOR = git.Actor("Test", "test@example.com")
ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())


def commit(repo: SpecRepo, message: str) -> git.Commit:
    git_repo = git.Repo(repo.root)
    git_repo.git.add("--all")
    return git_repo.index.commit(message, author=AUTHOR, committer=AUTHOR)


def plan_json(repo: SpecRepo, *args: str) -> dict[str, Any]:
    result = repo.run("plan", "--cluster", "test", "--format", "json", "--prune", *args)
    assert result.code in (0, 2), result.stdout + result.stderr
    data: dict[str, Any] = result.json()
    jsonschema.Draft202012Validator(PLAN_SCHEMA).validate(data)
    return data


def causes(data: dict[str, Any]) -> dict[str, str | None]:
    return {entry["topic"]: entry.get("cause") for entry in data["changes"]}


@pytest.mark.kafka
def test_changes_are_marked_as_this_change_or_drift_on_a_real_cluster(
    tmp_path: Path, kafka3: LocalCluster, ns: str
) -> None:
    pay, ship, gone, new, stray = (f"{ns}.{t}" for t in ("pay", "ship", "gone", "new", "stray"))
    repo = SpecRepo(tmp_path / "specs", kafka3.bootstrap, ns, policy={"allow_delete": True})
    repo.topics({"name": pay, "partitions": 1}, file="topics/payments.yaml")
    repo.topics({"name": ship, "partitions": 1}, file="topics/shipping.yaml")
    repo.topics({"name": gone, "partitions": 1}, file="topics/gone.yaml")
    git.Repo.init(repo.root)
    applied = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=300)
    assert applied.code == 0, applied.stdout + applied.stderr
    base = commit(repo, "specs as applied")

    # Behind git's back: an override on ship, a topic no spec names
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    entry = ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
    resource = ConfigResource(ConfigResource.Type.TOPIC, ship, incremental_configs=[entry])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    for future in admin.create_topics([NewTopic(stray, 1, 1)]).values():
        future.result()
    wait_for_config(admin, ship, "retention.ms", "3600000")
    wait_for_topic(admin, stray)

    # The pull request: grow pay, add new (untracked), remove gone's declaration
    repo.topics({"name": pay, "partitions": 2}, file="topics/payments.yaml")
    repo.topics({"name": new, "partitions": 1}, file="topics/new.yaml")
    (repo.root / "topics" / "gone.yaml").unlink()

    full = plan_json(repo)
    marked = plan_json(repo, "--changed-since", "HEAD", "--whole-plan")
    expected = {pay: "change", new: "change", gone: "change", ship: "drift", stray: "drift"}
    assert causes(marked) == expected
    assert marked["changed_since"] == "HEAD"
    # Nothing is left out: the same plan, only marked
    assert causes(full) == dict.fromkeys(expected)
    assert full["changed_since"] is None
    strip = ("cause", "changed_since")

    def same(change: dict[str, Any]) -> dict[str, Any]:
        """A change without its marks, and without when its in-use evidence was read and how
        long its end offsets were watched (each plan reads its own)."""
        kept = {k: v for k, v in change.items() if k not in strip}
        if "evidence" in kept:
            moment = ("read_at", "window_ms")
            kept["evidence"] = {k: v for k, v in kept["evidence"].items() if k not in moment}
        return kept

    assert [same(e) for e in marked["changes"]] == [same(e) for e in full["changes"]]
    assert marked["based_on"] == full["based_on"] and marked["diagnostics"] == full["diagnostics"]
    assert [e["reason"] for e in marked["changes"] if e["topic"] in (gone, stray)] == ["prune"] * 2

    text = repo.run(
        "plan", "--cluster", "test", "--prune", "--changed-since", "HEAD", "--whole-plan"
    )
    assert text.code == 0, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert f"  ~ update {ship}  (drift: not from this change)" in lines
    assert f"  ~ update {pay}  (changed since HEAD)" in lines
    assert f"  - delete {gone}  (changed since HEAD)" in lines
    assert f"  - delete {stray}  (drift: not from this change)" in lines
    assert "3 from changes since HEAD, 2 pre-existing drift." in text.stdout

    markdown = repo.run(
        "plan", "--cluster", "test", "--prune", "--changed-since", "HEAD", "--whole-plan",
        "--format", "markdown",
    )  # fmt: skip
    comment = markdown.stdout
    drift_at = comment.index("### Pre-existing drift (specs unchanged since `HEAD`)")
    assert comment.index("### Changes from this pull request") < drift_at
    assert comment.index(f"`{pay}`") < drift_at < comment.index(f"`{ship}`")

    # Once the pull request is committed, HEAD holds it: all of it is drift against HEAD, and
    # the ref before it marks it again
    commit(repo, "the pull request")
    again_marked = plan_json(repo, "--changed-since", "HEAD", "--whole-plan")
    assert set(causes(again_marked).values()) == {"drift"}
    assert causes(plan_json(repo, "--changed-since", base.hexsha, "--whole-plan")) == expected

    # A saved, marked plan round-trips through apply: the marks are not compared
    saved = tmp_path / "plan.json"
    written = repo.run(
        "plan", "--cluster", "test", "--prune", "--changed-since", base.hexsha, "--whole-plan",
        "-o", str(saved),
    )  # fmt: skip
    assert written.code == 0, written.stdout + written.stderr
    assert causes(json.loads(saved.read_text())) == expected
    done = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve", timeout=300)
    assert done.code == 0, done.stdout + done.stderr
    again = repo.run("plan", "--cluster", "test", "--prune", "--detailed-exitcode")
    assert again.code == 0, again.stdout + again.stderr


@pytest.fixture
def offline(tmp_path: Path) -> SpecRepo:
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t", policy={"allow_delete": True})
    spec_repo.topics({"name": "t.pay", "partitions": 1}, file="topics/payments.yaml")
    spec_repo.topics({"name": "t.gone", "partitions": 1}, file="topics/gone.yaml")
    state = cluster(topic("t.pay"), topic("t.gone"), topic("t.stray"))
    write_snapshot(tmp_path / "snap.json", "test", state)
    git.Repo.init(spec_repo.root)
    return spec_repo


def offline_plan(repo: SpecRepo, *args: str) -> Result:
    snapshot = str(repo.root.parent / "snap.json")
    return repo.run("plan", "--cluster", "test", "--format", "json", "--state", snapshot, *args)


def test_a_removed_declaration_is_the_changes_own_unless_the_ref_cannot_tell(
    offline: SpecRepo,
) -> None:
    commit(offline, "specs")
    (offline.root / "topics" / "gone.yaml").unlink()
    readable = offline_plan(offline, "--prune", "--changed-since", "HEAD", "--whole-plan")
    assert readable.code == 0, readable.stderr
    assert causes(readable.json()) == {"t.gone": "change", "t.stray": "drift"}
    # Scoped (the default): the prune of the removed declaration is the plan, the stray apart
    scoped = offline_plan(offline, "--prune", "--changed-since", "HEAD").json()
    assert causes(scoped) == {"t.gone": "change"}
    assert [c["topic"] for c in scoped["drift"]["changes"]] == ["t.stray"]

    # At this ref the specs do not load (an invalid topic): whether t.stray was declared there
    # cannot be told, so its delete is not called drift
    offline.topics({"name": "t.pay", "partitions": 0}, file="topics/payments.yaml")
    commit(offline, "broken")
    offline.topics({"name": "t.pay", "partitions": 1}, file="topics/payments.yaml")
    unreadable = offline_plan(offline, "--prune", "--changed-since", "HEAD")
    assert unreadable.code == 0, unreadable.stderr
    assert causes(unreadable.json()) == {"t.gone": "change", "t.stray": "change"}
    assert unreadable.json()["drift"]["changes"] == []


def test_unknown_ref_is_a_clear_error(offline: SpecRepo) -> None:
    commit(offline, "specs")
    result = offline_plan(offline, "--changed-since", "no-such-branch")
    assert result.code == 1
    assert "'no-such-branch' is not a commit" in result.stderr


def test_outside_git_is_a_clear_error(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path / "plain", "127.0.0.1:1", "t")
    repo.topics({"name": "t.a"})
    write_snapshot(tmp_path / "snap.json", "test", cluster())
    result = repo.run(
        "plan",
        "--cluster",
        "test",
        "--state",
        str(tmp_path / "snap.json"),
        "--changed-since",
        "HEAD",
    )
    assert result.code == 1 and "needs a git repository" in result.stderr
