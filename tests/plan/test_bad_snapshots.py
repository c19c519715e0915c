"""`plan --state` holds a snapshot to its schema: every way a file can differ from what
`reconciler snapshot` writes is one sentence naming the file, exit 1, no traceback, and no
plan (a `topics` of `{}` used to read as an empty cluster: every spec a create)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reconciler.cluster.snapshot import to_json
from reconciler.cluster.state import (
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    TopicState,
)
from tests.cluster.snapshot_access_sample import held_access
from tests.spec_repo import SpecRepo

Doc = dict[str, Any]


def _valid() -> Doc:
    topic = TopicState(
        "t.a", False, (PartitionState(0, 1, (1,), (1,)),),
        (("retention.ms", ConfigEntry("604800000", "DEFAULT_CONFIG")),),
    )  # fmt: skip
    state = ClusterState(
        "id", 1, (BrokerState(1, "127.0.0.1", 9092, None),), {"t.a": topic}, **held_access()
    )
    return to_json("test", state)


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return change


def _duplicate(doc: Doc) -> None:
    doc["topics"].append(copy.deepcopy(doc["topics"][0]))


# name -> (how the valid snapshot is broken, what the sentence says)
CORPUS: dict[str, tuple[Callable[[Doc], None], str]] = {
    "topics is an object": (_set("topics", {}), 'topics: {} is not of type "array"'),
    "topics is a string": (_set("topics", "t.a"), 'is not of type "array"'),
    "topics missing": (lambda d: d.pop("topics"), '"topics" is a required property'),
    "a topic without partitions": (_set("topics/0/partitions", []), "('t.a') has no partitions"),
    "a topic twice": (_duplicate, "topic 't.a' appears twice (topics[0] and [1])"),
    "a topic without a name": (lambda d: d["topics"][0].pop("name"), 'topics[0]: "name" is'),
    "a replica that is not a broker id": (
        _set("topics/0/partitions/0/replicas", ["one"]),
        "topics[0].partitions[0].replicas[0]",
    ),
    "a config entry of the wrong shape": (
        _set("topics/0/configs/retention.ms", "604800000"),
        "topics[0].configs.retention.ms",
    ),
    "brokers is an object": (_set("brokers", {}), 'brokers: {} is not of type "array"'),
    "an unknown field": (_set("colour", "red"), "the document: Additional properties"),
    "reassignments of the wrong type": (_set("reassignments", [{"topic": 1}]), "reassignments[0]"),
    # the access parts, hand-edited
    "an ACL of a resource type reconciler does not read": (
        _set("acls/0/resource_type", "user"),
        "acls[0].resource_type",
    ),
    "an ACL without its principal": (lambda d: d["acls"][0].pop("principal"), "acls[0]"),
    "a quota value that is not a number": (
        _set("quotas/0/values/request_percentage", "12%"),
        "quotas[0].values.request_percentage",
    ),
    "a credential with its salt": (_set("users/0/salt", "c2FsdA=="), "users[0]: Additional"),
    "iterations that are not a number": (_set("users/0/iterations", "8192"), "users[0].iterations"),
    "an access part held and said unread": (
        _set("unread/acls", "no authorizer"),
        "the access part `acls` is held and said unread",
    ),
    "an access part neither held nor said unread": (
        lambda d: d.pop("quotas"),
        "the access part `quotas` is neither held nor said unread",
    ),
    "access parts without unread": (lambda d: d.pop("unread"), "without `unread`"),
    "ACLs without acls_idempotent_write": (
        lambda d: d.pop("acls_idempotent_write"),
        "`acls` without `acls_idempotent_write`",
    ),
}


@pytest.fixture
def repo(tmp_path: Path) -> SpecRepo:
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    spec_repo.topics({"name": "t.a", "partitions": 1}, {"name": "t.b", "partitions": 1})
    return spec_repo


@pytest.mark.parametrize("case", list(CORPUS))
def test_plan_state_refuses_a_snapshot_its_schema_or_kafka_would_not_hold(
    repo: SpecRepo, tmp_path: Path, case: str
) -> None:
    breaks, says = CORPUS[case]
    doc = _valid()
    breaks(doc)
    bad = tmp_path / "snapshot.json"
    bad.write_text(json.dumps(doc))
    result = repo.run("plan", "--cluster", "test", "--state", str(bad), "--format", "json")
    assert result.code == 1, result.stdout
    assert not result.stdout.strip()  # no plan at all
    (line,) = result.stderr.strip().splitlines()
    assert str(bad) in line and "is not a valid reconciler snapshot" in line, line
    assert says in line, line
    assert "`reconciler snapshot --cluster NAME -o FILE`" in line


def test_the_valid_snapshot_plans(repo: SpecRepo, tmp_path: Path) -> None:
    good = tmp_path / "snapshot.json"
    good.write_text(json.dumps(_valid()))
    result = repo.run("plan", "--cluster", "test", "--state", str(good), "--format", "json")
    assert result.code == 0, result.stderr
    assert [c["topic"] for c in result.json()["changes"]] == ["t.b"]
