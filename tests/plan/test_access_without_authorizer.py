"""A spec without `access:` plans as before on a cluster without an authorizer (the session's
`kafka1`): not one DescribeAcls is sent. A spec declaring access there stops with one sentence
naming the cluster, exit 1, nothing changed (docs/access.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


def _repo(tmp_path: Path, kafka1: LocalCluster, ns: str, client_id: str) -> SpecRepo:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["client"] = {"client.id": client_id}
    repo.write("reconciler.yaml", config)
    return repo


def test_no_access_no_acl_request(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    client_id = f"noacl-{ns}".replace(".", "-")
    repo = _repo(tmp_path, kafka1, ns, client_id)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
    planned = repo.run("plan", "--cluster", "test", "--format", "json")
    assert planned.code == 0, planned.stdout + planned.stderr
    (entry,) = planned.json()["changes"]
    assert "access" not in entry
    sent = requests_by(kafka1, client_id)
    assert sent["METADATA"] > 0 and sent["DESCRIBE_ACLS"] == 0, sent


@pytest.mark.parametrize("declared", ["access", "acls"])
def test_access_on_a_cluster_without_an_authorizer_is_one_sentence(
    kafka1: LocalCluster, ns: str, tmp_path: Path, declared: str
) -> None:
    """A topic's `access:`, or raw `acls:` alone (even with no topic declaring access)."""
    repo = _repo(tmp_path, kafka1, ns, f"secoff-{ns}".replace(".", "-"))
    if declared == "access":
        repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1,
                     "access": {"consumers": [{"principal": "User:billing"}]}})  # fmt: skip
    else:
        repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1})
        repo.write("topics/acls.yaml", {"topics": [], "acls": [{
            "principal": "User:ops", "resource": {"type": "group", "name": "ops-",
                                                  "pattern": "prefixed"},
            "operations": ["Read"]}]})  # fmt: skip
    for command in (("plan",), ("apply", "--auto-approve"), ("drift",)):
        run = repo.run(*command, "--cluster", "test")
        assert run.code == 1, run.stdout + run.stderr
        errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, run.stderr
        assert "cluster 'test'" in errors[0] and "has no authorizer" in errors[0], errors
        assert "Traceback" not in run.stderr
    # nothing was changed: apply stopped before creating the topic
    topics = (
        AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
        .list_topics(timeout=30)
        .topics
    )
    assert f"{ns}.a" not in topics


def test_a_snapshot_says_it_could_not_read_the_acls_and_plan_state_warns_so(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """`reconciler snapshot` of that cluster records the ACLs as not read, with the reason,
    and reads the quotas and SCRAM credentials; `plan --state` of a spec declaring access
    warns (P137) with that reason and plans the topic, where a live plan stops."""
    client_id = f"snapoff-{ns}".replace(".", "-")
    repo = _repo(tmp_path / "repo", kafka1, ns, client_id)
    repo.topics({"name": f"{ns}.a", "partitions": 1, "replication_factor": 1,
                 "access": {"consumers": [{"principal": "User:billing"}]}})  # fmt: skip
    snap = tmp_path / "snap.json"
    taken = repo.run("snapshot", "--cluster", "test", "-o", str(snap))
    assert taken.code == 0, taken.stderr
    document = json.loads(snap.read_text())
    assert list(document["unread"]) == ["acls"]
    assert "no authorizer" in document["unread"]["acls"]
    assert f"note: the snapshot holds no acls: not read, {document['unread']['acls']}" in (
        taken.stderr
    )
    assert isinstance(document["quotas"], list) and isinstance(document["users"], list)
    assert requests_by(kafka1, client_id)["DESCRIBE_ACLS"] == 0  # its broker config said so
    offline = repo.run("plan", "--cluster", "test", "--state", str(snap), "--format", "json")
    assert offline.code == 0, offline.stderr
    plan = offline.json()
    (warned,) = [d["message"] for d in plan["diagnostics"] if d["code"] == "P137"]
    assert "holds no ACLs" in warned and document["unread"]["acls"] in warned, warned
    (entry,) = plan["changes"]
    assert entry["topic"] == f"{ns}.a" and "access" not in entry
