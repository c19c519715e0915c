"""The pinned id's bookkeeping (cluster/adapter/cluster_id.py), apart from any broker: what a
check settles, and what a read beside it then gets. The real brokers' side:
test_pinned_cluster_id.py."""

from __future__ import annotations

import threading

import pytest

from reconciler.cluster.adapter.cluster_id import Identity
from reconciler.cluster.adapter.connect import Connection
from reconciler.errors import ClusterError, WrongCluster

PINNED = Connection("prod", "kafka-1:9092", cluster_id="pinned-id")


def test_another_id_is_refused_with_one_sentence_naming_both_and_the_bootstrap() -> None:
    identity = Identity()
    with pytest.raises(WrongCluster) as refused:
        identity.settle(PINNED, "other-id")
    said = str(refused.value)
    assert "cluster 'prod' pins cluster_id pinned-id" in said
    assert "brokers at kafka-1:9092 report cluster id other-id" in said
    assert said.count(". ") == 0 and said.endswith("nothing was read or changed")
    with pytest.raises(WrongCluster):  # a read beside it gets the same refusal
        identity.wait(0)


def test_a_cluster_reporting_no_id_is_refused_and_an_unpinned_one_never() -> None:
    with pytest.raises(WrongCluster, match="report no cluster id"):
        Identity().settle(PINNED, None)
    unpinned = Identity()
    unpinned.settle(Connection("dev", "h:1"), "any-id")
    unpinned.wait(0)
    assert unpinned.reported == "any-id"


def test_a_failed_read_fails_the_reads_waiting_beside_it_until_one_succeeds() -> None:
    identity = Identity()
    waited: list[BaseException] = []

    def beside() -> None:
        try:
            identity.wait(30)
        except ClusterError as exc:
            waited.append(exc)

    thread = threading.Thread(target=beside)
    thread.start()
    identity.abandon(ClusterError("unreachable"))
    thread.join(30)
    assert [str(e) for e in waited] == ["unreachable"]
    identity.settle(PINNED, "pinned-id")  # a later DescribeCluster answered
    identity.wait(0)
