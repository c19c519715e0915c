"""Share groups (KIP-932) in the in-use evidence: ListGroups shows them, but neither client can
ask which topics one reads (ShareGroupDescribe), so they make every delete's evidence
unreadable rather than be dropped. The brokers' side (ListGroups' answer) is stubbed: Kafka
4.1's share groups are a preview feature the session clusters do not enable."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from reconciler.cluster import adapter
from reconciler.cluster.adapter import evidence
from reconciler.cluster.protocol.authorized import Authorized


class _Admin:
    """DescribeCluster's answer: every operation, as Kafka without an authorizer gives."""

    def describe_cluster(self, **_: Any) -> Any:
        answer = SimpleNamespace(authorized_operations=None)
        return SimpleNamespace(result=lambda: answer)


class _Groups:
    def __init__(self, groups: list[dict[str, str]]) -> None:
        self.groups = groups

    def list_groups(self) -> list[dict[str, str]]:
        return self.groups


def test_share_groups_count_as_readers_that_cannot_be_ruled_out(monkeypatch: Any) -> None:
    monkeypatch.setattr(Authorized, "allows", lambda self, op, resource: True)
    listed = [
        {"group_id": "billing", "protocol_type": "consumer", "group_type": "classic"},
        {"group_id": "work-queue", "protocol_type": "share", "group_type": "share"},
        {"group_id": "jobs", "protocol_type": "", "group_type": "Share"},
    ]
    problems: list[str] = []
    connection = adapter.Connection("test", "127.0.0.1:9")
    found = evidence._complete_group_list(
        connection,
        _Admin(),  # type: ignore[arg-type]
        _Groups(listed),  # type: ignore[arg-type]
        problems,
    )
    assert found == ["billing"]
    [said] = problems
    assert said.startswith("share group(s) jobs, work-queue may read it")
    assert "ShareGroupDescribe" in said and "count as readers" in said


def test_no_share_group_no_problem(monkeypatch: Any) -> None:
    monkeypatch.setattr(Authorized, "allows", lambda self, op, resource: True)
    problems: list[str] = []
    found = evidence._complete_group_list(
        adapter.Connection("test", "127.0.0.1:9"),
        _Admin(),  # type: ignore[arg-type]
        _Groups([{"group_id": "billing", "protocol_type": "consumer"}]),  # type: ignore[arg-type]
        problems,
    )
    assert (found, problems) == (["billing"], [])
