"""`plan --state` of specs declaring access, quotas and users: the parts the snapshot holds are
planned from it (the ACL grants and revokes, quota and user changes), the SCRAM secrets, which
no snapshot holds, are one P137; a part the snapshot says was not read is P137 with its reason
and no change; a snapshot from before snapshots kept access is P137 for each part, as before.
The parity with a live plan on a real broker: tests/security/test_scram_users.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.cluster.protocol.scram import ClusterScram, ScramCredential
from reconciler.cluster.snapshot import to_json
from reconciler.cluster.state import BrokerState, ClusterState, PartitionState, TopicState
from reconciler.spec.quotas import ClientQuota, QuotaEntity
from tests.spec_repo import SpecRepo

OLD = AclBinding("topic", "t.a", "literal", "User:old", "Read")
HELD = {
    "acls": ClusterAcls((OLD,)),
    "quotas": ClusterQuotas(
        (ClientQuota(QuotaEntity("billing"), (("producer_byte_rate", 1048576.0),)),)
    ),
    "scram": ClusterScram(
        (ScramCredential("t-billing", "SCRAM-SHA-512", 8192),), digests_read=False
    ),
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpecRepo:
    monkeypatch.setenv("BILLING_PW", "pw-not-in-any-output")
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    cluster = {
        "bootstrap": "${KAFKA_BOOTSTRAP}",
        "policy": {"ignore": ["^(?!t)"]},
        "quotas": [{"user": "billing", "producer_byte_rate": 2097152}],
        "users": [{"name": "t-billing", "password": "${BILLING_PW}", "iterations": 4096}],
    }
    spec_repo.write("reconciler.yaml", {"topics": "topics/", "clusters": {"test": cluster}})
    access = {"consumers": [{"principal": "User:billing"}]}
    spec_repo.topics({"name": "t.a", "partitions": 1, "access": access})
    return spec_repo


def _plan(repo: SpecRepo, tmp_path: Path, document: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document))
    result = repo.run("plan", "--cluster", "test", "--state", str(path), "--format", "json")
    # 1: not applyable, when the revoke's hazard is planned (unapproved)
    assert result.code in (0, 1) and result.stdout, result.stderr
    plan: dict[str, Any] = result.json()
    return plan


def _snapshot(**access: Any) -> dict[str, Any]:
    topic = TopicState("t.a", False, (PartitionState(0, 1, (1,), (1,)),), ())
    state = ClusterState("id", 1, (BrokerState(1, "127.0.0.1", 9092, None),), {"t.a": topic})
    return to_json("test", dataclasses.replace(state, **access))


def _warnings(plan: dict[str, Any]) -> list[str]:
    return [d["message"] for d in plan["diagnostics"] if d["code"] == "P137"]


def _access(plan: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["action"], a["binding"]) for c in plan["changes"] for a in c.get("access", ())]


def test_the_parts_a_snapshot_holds_are_planned_and_only_secrets_are_warned(
    repo: SpecRepo, tmp_path: Path
) -> None:
    plan = _plan(repo, tmp_path, _snapshot(**HELD))
    assert _access(plan) == [
        ("grant", "User:billing ALLOW Read Topic:t.a (literal) from *"),
        ("revoke", "User:old ALLOW Read Topic:t.a (literal) from *"),
    ]
    assert [(q["key"], q["before"], q["after"]) for q in plan["quotas"]] == [
        ("producer_byte_rate", 1048576, 2097152)
    ]
    (user,) = plan["users"]
    assert (user["action"], user["reasons"]) == ("update", ["iterations 8192 -> 4096"])
    (secrets,) = _warnings(plan)
    assert "keeps no SCRAM secret or digest" in secrets


def test_a_part_the_cluster_could_not_answer_is_warned_with_its_reason_and_not_planned(
    repo: SpecRepo, tmp_path: Path
) -> None:
    why = "the brokers run no authorizer (authorizer.class.name is empty: SECURITY_DISABLED)"
    held = {k: v for k, v in HELD.items() if k != "acls"}
    plan = _plan(repo, tmp_path, _snapshot(**held, unread=(("acls", why),)))
    assert _access(plan) == []
    assert len(plan["quotas"]) == 1 and len(plan["users"]) == 1
    secrets, not_read = sorted(_warnings(plan), key=lambda w: "holds no ACLs" in w)
    assert "holds no ACLs" in not_read and why in not_read, not_read
    assert "keeps no SCRAM secret" in secrets


def test_a_snapshot_from_before_access_was_kept_warns_each_declared_part(
    repo: SpecRepo, tmp_path: Path
) -> None:
    document = _snapshot(**HELD)
    for key in ("unread", "acls_idempotent_write", "acls", "quotas", "users"):
        document.pop(key)
    plan = _plan(repo, tmp_path, document)
    assert (_access(plan), plan.get("quotas", []), plan.get("users", [])) == ([], [], [])
    warned = _warnings(plan)
    assert sorted(w.split(",")[0] for w in warned) == [
        "reconciler.yaml declares quotas: for cluster 'test'",
        "reconciler.yaml declares users: for cluster 'test'",
        "the specs declare access",
    ]
    assert all("take a new one with `reconciler snapshot`" in w for w in warned)
