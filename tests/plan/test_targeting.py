"""`plan --topic REGEX` / `apply --topic REGEX`: a partial plan of the matching topics and what
they depend on, so one topic's error no longer blocks the others; saved partial plans say so
and are verified the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.diagnostics import Location
from reconciler.errors import ConfigError
from reconciler.local.state import LocalCluster
from reconciler.planning.targeting import targeted
from reconciler.spec.model import DesiredState, TopicSpec
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo


def test_the_targets_take_what_they_depend_on_transitively() -> None:
    at = Location("topics/x.yaml", 1, 1)
    specs = {
        "a": TopicSpec("a", at, depends_on=("b",)),
        "b": TopicSpec("b", at, depends_on=("c",)),
        "c": TopicSpec("c", at),
        "d": TopicSpec("d", at),
    }
    desired = DesiredState("x", specs)
    assert sorted(targeted(desired, ("^a$",)).topics) == ["a", "b", "c"]
    assert sorted(targeted(desired, ("^b$", "d")).topics) == ["b", "c", "d"]
    assert sorted(targeted(desired, ("nothing",)).topics) == []
    with pytest.raises(ConfigError, match=r"--topic '\(' is not a regular expression"):
        targeted(desired, ("(",))


def test_a_partial_plan_applies_past_another_topics_error(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    made = admin.create_topics([NewTopic(f"{ns}.a", 8, 1), NewTopic(f"{ns}.d", 1, 1)])
    for future in made.values():
        future.result()
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    repo.topics(
        {"name": f"{ns}.a", "partitions": 6, "replication_factor": 1},  # P101: cannot shrink
        {"name": f"{ns}.b", "partitions": 1, "replication_factor": 1, "depends_on": [f"{ns}.c"]},
        {"name": f"{ns}.c", "partitions": 1, "replication_factor": 1},
    )
    whole = repo.run("plan", "--format", "json")
    assert whole.code == 1 and "P101" in whole.stdout  # one bad topic blocks the whole plan

    partial = repo.run("plan", "--topic", r"\.b$", "--format", "json", "-o", str(tmp_path / "p"))
    assert partial.code == 0, partial.stderr
    document = partial.json()
    assert [c["topic"] for c in document["changes"]] == [f"{ns}.c", f"{ns}.b"]
    assert document["targets"] == [r"\.b$"] and document["applyable"]
    assert document["unmanaged"] == [] and document["diagnostics"] == []
    assert "warning: this plan is partial: only topics matching --topic '\\\\.b$'" in (
        partial.stderr
    )

    # the saved plan without its targets is not the plan the specs give: refused, nothing done
    edited = json.loads((tmp_path / "p").read_text())
    del edited["targets"]
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    refused = repo.run("apply", str(tmp_path / "edited.json"))
    assert refused.code == 1
    assert f"{ns}.b" not in admin.list_topics(timeout=10).topics

    other = repo.run("apply", str(tmp_path / "p"), "--topic", "x")
    assert other.code == 1 and "drop --topic (a saved plan keeps its own)" in other.stderr

    applied = repo.run("apply", str(tmp_path / "p"))
    assert applied.code == 0, applied.stderr
    assert "warning: this plan is partial" in applied.stderr
    topics = admin.list_topics(timeout=10).topics
    assert f"{ns}.b" in topics and f"{ns}.c" in topics and len(topics[f"{ns}.a"].partitions) == 8

    repo.topics(
        {"name": f"{ns}.a", "partitions": 6, "replication_factor": 1},
        {"name": f"{ns}.b", "partitions": 1, "replication_factor": 1, "depends_on": [f"{ns}.c"]},
        {"name": f"{ns}.c", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.e", "partitions": 2, "replication_factor": 1},
    )
    direct = repo.run("apply", "--topic", r"\.e$", "--auto-approve")
    assert direct.code == 0, direct.stderr
    assert f"{ns}.e" in admin.list_topics(timeout=10).topics
    still = repo.run("plan", "--format", "json")
    assert still.code == 1 and "P101" in still.stdout  # the other topic stays reported

    typo = repo.run("apply", "--topic", "^nomatch$", "--auto-approve")
    assert typo.code == 1 and "--topic '^nomatch$' matches no topic" in typo.stderr

    both = repo.run("plan", "--topic", "x", "--prune")
    assert both.code == 1
    assert both.stderr.strip() == (
        "error: --prune deletes every unmanaged topic, --topic plans only some: give one of them"
    )


def _specs_and_snapshot(tmp_path: Path) -> tuple[SpecRepo, Path]:
    from reconciler.cluster.snapshot import write_snapshot
    from tests.planning.factories import cluster, spread, topic

    repo = SpecRepo(tmp_path / "repo", "127.0.0.1:1", "t")
    repo.topics({"name": "t.spec", "partitions": 1})
    snap = tmp_path / "snap.json"
    write_snapshot(snap, "test", cluster(topic("t.live", spread(1, 1))))
    return repo, snap


@pytest.mark.parametrize("pattern", [r"^t\.spec$", r"^t\.live$"])
def test_a_pattern_matching_a_spec_or_a_cluster_topic_plans(tmp_path: Path, pattern: str) -> None:
    repo, snap = _specs_and_snapshot(tmp_path)
    result = repo.run("plan", "--state", str(snap), "--topic", pattern)
    assert "matches no topic" not in result.stderr, result.stderr


def test_a_pattern_matching_no_topic_is_one_sentence_not_no_changes(tmp_path: Path) -> None:
    repo, snap = _specs_and_snapshot(tmp_path)
    for args in (["--topic", "^nomatch$"], ["--topic", "^t", "--topic", "^nomatch$"]):
        result = repo.run("plan", "--state", str(snap), *args)
        assert result.code == 1
        assert result.stderr.strip() == (
            "error: --topic '^nomatch$' matches no topic in the specs of cluster 'test' nor on "
            "the cluster, so nothing was planned; check the pattern (a Python regular "
            "expression searched in topic names)"
        )
        assert "No changes" not in result.stdout
