"""Saved plans are verified, not trusted, on the real cluster: a plan file edited after review,
a topic someone else created with other settings, a dependency deleted after planning. Each
refusal names what differs and leaves the cluster as it was."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read
from tests.kafka_helpers import clients
from tests.spec_repo import SpecRepo

Edit = Callable[[dict[str, Any]], None]


def _saved(repo: SpecRepo, tmp_path: Path, *extra: str) -> tuple[Path, dict[str, Any]]:
    saved = tmp_path / "plan.json"
    made = repo.run("plan", "--cluster", "test", "-o", str(saved), *extra)
    assert made.code == 0, made.stderr
    return saved, json.loads(saved.read_text())


def _create(bootstrap: str, name: str, partitions: int, rf: int) -> None:
    """Create `name` behind reconciler's back and wait until every broker's metadata shows it
    (they learn it from the controller asynchronously)."""
    with clients(bootstrap) as made:
        made.create_topics({name: partitions}, replication_factor=rf)


def _edit_retention(plan: dict[str, Any]) -> None:
    plan["changes"][0]["config"][0]["desired"] = "1"


def _edit_empty(plan: dict[str, Any]) -> None:
    plan["changes"] = []
    plan["summary"]["create"] = 0


def _edit_fingerprint(plan: dict[str, Any]) -> None:
    plan["based_on"] = "0" * len(plan["based_on"])


def _edit_errors_away(plan: dict[str, Any]) -> None:
    plan["diagnostics"] = []
    plan["applyable"] = True


def _edit_acknowledge(plan: dict[str, Any]) -> None:
    for change in plan["changes"]:
        for hazard in change["hazards"]:
            hazard["acknowledged"] = True
    plan["applyable"] = True


def _edit_cluster(plan: dict[str, Any]) -> None:
    plan["cluster"] = "other"


# One edit per way apply refuses a file: its changes compared with the plan derived again
# (a value here; every other kind of edit to the changes, a count, a name, one added, removed
# or reordered, takes the same path and is named in test_saved_plan.py without a broker), the
# plan emptied, the state it was made from, the cluster it is for.
@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (_edit_retention, "retention.ms"),
        (_edit_empty, "planning again also gives create"),
        (_edit_fingerprint, "based_on was edited"),
        (_edit_cluster, "other"),
    ],
    ids=["retention", "emptied", "based_on", "cluster"],
)  # fmt: skip
def test_a_plan_file_edited_after_review_is_refused(
    kafka1: LocalCluster, ns: str, tmp_path: Path, edit: Edit, expected: str
) -> None:
    """Finding 2: a plan file edited after review is refused, naming the first difference, and
    nothing is changed on the cluster."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics(
        {"name": f"{ns}.a", "partitions": 2, "replication_factor": 1,
         "config": {"retention.ms": 86400000}},
        {"name": f"{ns}.b", "partitions": 1, "replication_factor": 1},
    )  # fmt: skip
    saved, plan = _saved(repo, tmp_path)
    edit(plan)
    saved.write_text(json.dumps(plan))
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1, refused.stdout
    assert expected in refused.stderr
    assert "Traceback" not in refused.stderr and "internal error" not in refused.stderr
    assert independent_read(kafka1.bootstrap, ns) == {}


def test_a_plan_over_the_policy_limit_is_refused_even_with_its_errors_removed(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 2: limits and policies are judged again at apply; deleting the errors from the
    file does not make a 5,000-partition create against max_partitions_per_topic 100 pass."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, {"max_partitions_per_topic": 100})
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    saved, plan = _saved(repo, tmp_path)
    plan["changes"][0]["partitions"]["desired"] = 5000
    saved.write_text(json.dumps(plan))
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1
    assert "partitions" in refused.stderr and "5000" in refused.stderr
    assert independent_read(kafka1.bootstrap, ns) == {}


def test_hazards_acknowledged_in_the_file_but_not_in_the_specs_are_refused(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 2: an acknowledgement written into the plan file is not one the specs give."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1,
                 "config": {"retention.ms": 86400000}})  # fmt: skip
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1,
                 "config": {"retention.ms": 3600000}})  # fmt: skip
    saved = tmp_path / "plan.json"
    assert repo.run("plan", "--cluster", "test", "-o", str(saved)).code == 1  # unacknowledged
    plan = json.loads(saved.read_text())
    assert plan["changes"][0]["hazards"], plan
    _edit_acknowledge(plan)
    saved.write_text(json.dumps(plan))
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1
    assert "retention_decrease" in refused.stderr
    assert independent_read(kafka1.bootstrap, ns)[f"{ns}.a"]["overrides"] == {
        "retention.ms": "86400000"
    }


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        # Out of range: refused by the file's check (every other number or shape out of range,
        # a replication factor, a broker id, a string, a fraction, a bool, takes this path and
        # is named without a broker in test_saved_plan.py)
        (("partitions", "desired"), -5, "changes[0].partitions.desired"),
        # Within Kafka's int32: refused as not the plan the specs give, still before any change
        (("partitions", "desired"), 1_073_741_824, "changes[0].partitions.desired is 1073741824"),
    ],
    ids=["negative", "huge"],
)  # fmt: skip
def test_numbers_out_of_range_in_a_plan_file_are_refused_before_any_request(
    kafka1: LocalCluster,
    ns: str,
    tmp_path: Path,
    path: tuple[str, ...],
    value: Any,
    expected: str,
) -> None:
    """Finding 8: a plan with partitions -5 or 1,073,741,824 is refused with a clear message
    naming the field (exit 1), never 'internal error: reconciler hit a bug'."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    saved, plan = _saved(repo, tmp_path)
    entry = plan["changes"][0]
    for key in path[:-1]:
        entry = entry[key]
    entry[path[-1]] = value
    saved.write_text(json.dumps(plan))
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1
    assert f"{saved}: {expected}" in refused.stderr or (
        value == 1_073_741_824 and expected in refused.stderr
    ), refused.stderr
    assert "internal error" not in refused.stderr and "Traceback" not in refused.stderr
    assert independent_read(kafka1.bootstrap, ns) == {}


def test_a_topic_created_by_someone_else_without_the_configs_is_diverged(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 3: a create whose topic someone else made with the same counts but none of the
    planned configs is refused as stale naming the keys, never reported "already done"."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 2, "replication_factor": 1,
                 "config": {"retention.ms": 86400000, "cleanup.policy": "compact"}})  # fmt: skip
    saved, _ = _saved(repo, tmp_path)
    _create(kafka1.bootstrap, f"{ns}.a", 2, 1)
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1, refused.stdout
    assert "already done" not in refused.stdout
    assert "retention.ms" in refused.stderr and "cleanup.policy" in refused.stderr
    assert independent_read(kafka1.bootstrap, ns)[f"{ns}.a"]["overrides"] == {}


def test_a_dependency_deleted_after_planning_refuses_its_dependents(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 3: a saved plan whose depends_on target was deleted after planning creates
    nothing and says which dependency is missing."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.base", "partitions": 1, "replication_factor": 1})
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    repo.topics(
        {"name": f"{ns}.base", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.dep", "partitions": 1, "replication_factor": 1,
         "depends_on": [f"{ns}.base"]},
    )  # fmt: skip
    saved, _ = _saved(repo, tmp_path)
    with clients(kafka1) as made:
        admin = made.admin()
        for future in admin.delete_topics([f"{ns}.base"]).values():
            future.result()
        _wait_gone(admin, f"{ns}.base")
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1, refused.stdout
    assert f"{ns}.base" in refused.stderr
    assert f"{ns}.dep" not in independent_read(kafka1.bootstrap, ns)


def test_a_resumed_apply_of_the_same_plan_is_accepted(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """The re-derived plan after a partial apply has fewer changes than the saved one: the
    saved plan's remaining work equals it, so the apply goes on with what is left."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics(
        {"name": f"{ns}.a", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.b", "partitions": 2, "replication_factor": 1,
         "config": {"retention.ms": 86400000}},
    )  # fmt: skip
    saved, _ = _saved(repo, tmp_path)
    _create(kafka1.bootstrap, f"{ns}.a", 1, 1)  # as if an earlier apply of it got this far
    applied = repo.run("apply", "--cluster", "test", str(saved))
    assert applied.code == 0, applied.stderr
    # No apply of it was interrupted (no unfinished audit record): not called a resumption
    assert "resuming" not in applied.stderr
    assert "already shows 1 of this plan's" in applied.stderr
    read = independent_read(kafka1.bootstrap, ns)
    assert read[f"{ns}.b"]["overrides"] == {"retention.ms": "86400000"}


def _wait_gone(admin: AdminClient, name: str) -> None:
    deadline = time.monotonic() + 60
    while name in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, f"{name} was not deleted"
        time.sleep(0.1)


def test_a_count_beyond_the_kafka_clients_limits_is_refused_not_a_crash(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 8: 1,073,741,824 partitions is within Kafka's int32 but beyond what the Kafka
    client sends (librdkafka: 100,000); apply refuses it in words (exit 1) before any change,
    instead of "internal error: reconciler hit a bug"."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1_073_741_824, "replication_factor": 1})
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 1
    assert "internal error" not in applied.stderr
    # one error sentence (after the warning that the repository pins no cluster id)
    assert applied.stderr.splitlines()[-1].startswith("error: "), applied.stderr
    assert "Nothing was changed" in applied.stderr or "partitions" in applied.stderr
    assert independent_read(kafka1.bootstrap, ns) == {}


def test_a_create_left_to_the_broker_default_made_by_someone_else_with_other_counts(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 3: a create whose counts the broker decides (KIP-464; kafka1's num.partitions is
    3) that someone else made with 5 partitions is refused as stale, not "already done"."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a"})
    saved, plan = _saved(repo, tmp_path)
    assert plan["changes"][0]["partitions"] == {"current": None, "desired": None,
                                                "broker_default": 3}  # fmt: skip
    _create(kafka1.bootstrap, f"{ns}.a", 5, 1)
    refused = repo.run("apply", "--cluster", "test", str(saved))
    assert refused.code == 1, refused.stdout
    assert "already done" not in refused.stdout
    assert "5 partitions, the plan has 3" in refused.stderr


def test_an_empty_plan_still_applies_as_no_changes(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Verifying an empty saved plan (an emptied file is refused above) keeps a truly empty
    one what it was: "No changes", exit 0."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    assert repo.run("apply", "--cluster", "test", "--auto-approve").code == 0
    saved, plan = _saved(repo, tmp_path)
    assert plan["changes"] == []
    applied = repo.run("apply", "--cluster", "test", str(saved))
    assert applied.code == 0, applied.stderr
    assert "No changes" in applied.stdout


def test_a_plan_made_from_other_spec_files_is_refused_though_it_plans_the_same(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """What was reviewed is the plan of particular files: a spec file edited after the plan (a
    comment, which leaves the plan as it was) or added (another topic) refuses the saved plan
    before any request, naming the commit and the digest it was made from; the same files
    again apply it."""
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "-c", "user.name=Ada", "-c", "user.email=ada@example.com",
         "commit", "-q", "--allow-empty", "-m", "specs"], check=True,
    )  # fmt: skip
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    saved, plan = _saved(repo, tmp_path)
    assert plan["source"]["commit"] == head
    assert plan["source"]["specs"].startswith("sha256:")
    main = tmp_path / "topics" / "main.yaml"
    original = main.read_text()
    for edit in (
        lambda: main.write_text("# reviewed later\n" + original),
        lambda: repo.topics({"name": f"{ns}.b", "partitions": 1}, file="topics/other.yaml"),
    ):
        edit()
        refused = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
        assert refused.code == 1, refused.stdout
        assert "the saved plan was made from other spec files" in refused.stderr, refused.stderr
        assert f"commit {head[:12]}" in refused.stderr and plan["source"]["specs"][:19] in (
            refused.stderr
        )
        assert independent_read(kafka1.bootstrap, ns) == {}
        main.write_text(original)
        (tmp_path / "topics" / "other.yaml").unlink(missing_ok=True)
    applied = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
    assert applied.code == 0, applied.stderr
    assert f"{ns}.a" in independent_read(kafka1.bootstrap, ns)
