"""The scope of `plan --changed-since REF`, decided offline against a snapshot (`--state`): what
is in it (the changed topics and what they depend on), how the saved plan carries it, the
options it does not combine with, and the drift section of each format. Applying a scoped plan
on real brokers: tests/plan/test_scope.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import git
import jsonschema
import pytest

from reconciler.cluster.snapshot import write_snapshot
from reconciler.planning.json_plan import from_json
from reconciler.workflow.saved_plan import load_plan
from tests.planning.factories import cluster, topic
from tests.spec_repo import Result, SpecRepo

AUTHOR = git.Actor("Test", "test@example.com")
ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
WEEK = "604800000"


def commit(repo: SpecRepo, message: str) -> str:
    git_repo = git.Repo(repo.root)
    git_repo.git.add("--all")
    return git_repo.index.commit(message, author=AUTHOR, committer=AUTHOR).hexsha


@pytest.fixture
def repo(tmp_path: Path) -> SpecRepo:
    """t.search depends on t.index; t.pay and t.index have retention raised on the cluster (a
    retention_decrease hazard to plan it back), t.ledger one partition more (P101)."""
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    spec_repo.topics(
        {"name": "t.search", "partitions": 1, "depends_on": ["t.index"]},
        file="topics/search.yaml",
    )
    spec_repo.topics({"name": "t.index", "partitions": 1, "config": {"retention.ms": "1d"}},
                     file="topics/index.yaml")  # fmt: skip
    spec_repo.topics({"name": "t.pay", "partitions": 1, "config": {"retention.ms": "1d"}},
                     file="topics/payments.yaml")  # fmt: skip
    spec_repo.topics({"name": "t.ledger", "partitions": 1}, file="topics/ledger.yaml")
    state = cluster(
        topic("t.search"),
        topic("t.index", overrides={"retention.ms": WEEK}),
        topic("t.pay", overrides={"retention.ms": WEEK}),
        topic("t.ledger", ((1,), (1,))),
    )
    write_snapshot(tmp_path / "snap.json", "test", state)
    git.Repo.init(spec_repo.root)
    commit(spec_repo, "base")
    return spec_repo


def offline_plan(repo: SpecRepo, *args: str) -> Result:
    snapshot = str(repo.root.parent / "snap.json")
    return repo.run("plan", "--cluster", "test", "--state", snapshot, *args)


def json_plan(repo: SpecRepo, *args: str, code: int = 0) -> dict[str, Any]:
    result = offline_plan(repo, "--format", "json", *args)
    assert result.code == code, result.stdout + result.stderr
    data: dict[str, Any] = result.json()
    jsonschema.Draft202012Validator(PLAN_SCHEMA).validate(data)
    return data


def touch_search(repo: SpecRepo) -> None:
    repo.topics(
        {"name": "t.search", "partitions": 1, "depends_on": ["t.index"],
         "config": {"retention.ms": "7d"}},
        file="topics/search.yaml",
    )  # fmt: skip


def test_the_scope_is_the_changed_topics_and_what_they_depend_on(repo: SpecRepo) -> None:
    touch_search(repo)
    data = json_plan(repo, "--changed-since", "HEAD", "--detailed-exitcode", code=1)
    # t.index's drift comes with t.search, which depends on it; the rest is set apart
    assert {c["topic"]: c["cause"] for c in data["changes"]} == {
        "t.index": "drift",
        "t.search": "change",
    }
    assert [c["topic"] for c in data["drift"]["changes"]] == ["t.pay"]
    assert [d["topic"] for d in data["drift"]["diagnostics"]] == ["t.ledger"]
    assert data["targets"] == ["^t\\.search$"] and data["scoped"] is True
    # ...so t.index's hazard is the plan's own and blocks it, t.pay's does not
    assert data["applyable"] is False
    text = offline_plan(repo, "--changed-since", "HEAD")
    assert text.code == 1
    said = " ".join(text.stdout.split())  # unwrapped
    assert "t.index (drift of a topic this change depends on: applied with it)" in said
    assert "t.pay (drift: not from this change)" in said
    assert "error[P101]" in said.split("Pre-existing drift")[1]


def test_a_saved_scoped_plan_round_trips_and_its_scope_cannot_be_widened(
    repo: SpecRepo, tmp_path: Path
) -> None:
    repo.topics(  # the pull request settles the ledger's partitions and sets a retention
        {"name": "t.ledger", "partitions": 2, "config": {"retention.ms": "7d"}},
        file="topics/ledger.yaml",
    )
    saved = tmp_path / "plan.json"
    result = offline_plan(repo, "--changed-since", "HEAD", "-o", str(saved), "--detailed-exitcode")
    assert result.code == 2, result.stdout + result.stderr
    assert "warning: this plan is scoped to 1 topic(s) whose specs changed since" in result.stderr
    plan = load_plan(saved)  # untrusted input: checked, then read
    data = json.loads(saved.read_text())
    assert plan == from_json(data) and plan.scoped and plan.targets == ("^t\\.ledger$",)
    assert [c.topic for c in plan.drift.changes] == ["t.index", "t.pay"]

    # A scope that is a pattern rather than a name is refused when the file is read
    data["targets"] = ["^t\\..*$"]
    saved.write_text(json.dumps(data))
    refused = repo.run("apply", str(saved), "--auto-approve")
    assert refused.code == 1
    assert "targets: '^t\\\\..*$' is not the exact name of a topic" in refused.stderr
    assert "Nothing was changed" in refused.stderr


def test_drift_alone_exits_0_and_says_it_is_the_drift_jobs(repo: SpecRepo) -> None:
    repo.write("README.md", "docs\n")
    for fmt in ("text", "markdown"):
        result = offline_plan(
            repo, "--changed-since", "HEAD", "--detailed-exitcode", "--format", fmt
        )
        assert result.code == 0, result.stdout + result.stderr
        said = " ".join(result.stdout.split())  # unwrapped
        assert "No changes from this pull request." in said
        assert "2 pre-existing drift (1 error) on topics this pull request" in said
        assert "the drift job's (`reconciler drift`)" in said
    data = json_plan(repo, "--changed-since", "HEAD")
    assert (data["changes"], data["targets"], data["applyable"]) == ([], [], True)
    # The whole plan, marked, still blocks on the drift
    whole = offline_plan(repo, "--changed-since", "HEAD", "--whole-plan", "--format", "json")
    assert whole.code == 1 and "drift" not in whole.json()


def test_markdown_sets_the_drift_apart_with_its_diagnostics(repo: SpecRepo) -> None:
    touch_search(repo)
    comment = offline_plan(repo, "--changed-since", "HEAD", "--format", "markdown").stdout
    apart = comment.index("### Diagnostics of the pre-existing drift")
    ours = comment.index("### Changes from this pull request")
    drift = comment.index("### Pre-existing drift (specs unchanged since `HEAD`)")
    assert apart < comment.index("| error | P101 |") < ours
    assert "| error |" not in comment[:apart]  # the plan's own table has no error
    assert ours < comment.index("`t.search`") < drift < comment.index("`t.pay`")
    assert re.search(r"1 topic change\(s\) from this pull request, 1 pre-existing drift", comment)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--whole-plan",), "--whole-plan keeps the drift --changed-since sets apart"),
        (("--changed-since", "HEAD", "--topic", "t"), "give one of them"),
    ],
)
def test_options_that_say_two_things_are_refused(
    repo: SpecRepo, args: tuple[str, ...], message: str
) -> None:
    result = offline_plan(repo, *args)
    assert result.code == 1
    assert message in result.stderr
