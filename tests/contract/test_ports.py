"""One suite of behaviours of the Kafka boundary, run against the fake and the real adapter.

Each test runs twice (conftest.py's `side`): on tests/fakes/cluster.py and on adapter.Cluster
against the session cluster `kafka1`. What a test asserts is what Kafka 4.1.1 does; where the
fake answered otherwise, the fake was fixed. Reads of a change wait until the cluster shows it
(`shown`): a broker's metadata follows the controller's answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from reconciler.cluster.protocol.acls import AclBinding
from reconciler.cluster.protocol.quotas import QuotaAlteration
from reconciler.cluster.protocol.requests import ConfigUpdate, NewTopicRequest, PartitionsRequest
from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC
from reconciler.cluster.protocol.throttles import (
    FOLLOWER_REPLICAS,
    LEADER_REPLICAS,
    Moves,
    Throttle,
)
from reconciler.cluster.state import TOPIC_OVERRIDE, TopicState
from reconciler.errors import ClusterError
from reconciler.spec.quotas import QuotaEntity
from tests.contract.conftest import Port, Side, shown

if TYPE_CHECKING:
    from reconciler.cluster.adapter import Cluster
    from tests.fakes.cluster import FakeCluster

RETENTION_DEFAULT = "604800000"  # Kafka's retention.ms when neither topic nor broker sets it


def _implements(real: Cluster, fake: FakeCluster) -> tuple[Port, Port]:
    """mypy's proof that both sides implement every port (never called)."""
    return real, fake


def _topic(cluster: Port, name: str, check: Callable[[TopicState], bool]) -> TopicState:
    found = shown(
        lambda: cluster.topics([name], configs=True), lambda t: name in t and check(t[name])
    )
    return found[name]


def _made(
    cluster: Port, name: str, partitions: int = 1, config: tuple[tuple[str, str], ...] = ()
) -> TopicState:
    answers = cluster.create_topics([NewTopicRequest(name, partitions, 1, config)])
    assert answers == {name: None}
    return _topic(cluster, name, lambda t: len(t.partitions) == partitions and t.led)


def test_describe_names_the_brokers_the_controller_and_the_cluster_id(side: Side) -> None:
    with side.connect() as cluster:
        described = cluster.describe()
        assert [b.id for b in described.brokers] == [1]
        assert described.controller_id == 1
        assert described.cluster_id and cluster.cluster_id() == described.cluster_id


def test_a_created_topic_reads_back_with_its_partitions_replicas_and_override(
    side: Side,
) -> None:
    name = f"{side.prefix}.created"
    with side.connect() as cluster:
        made = _made(cluster, name, 2, (("retention.ms", "1000"),))
        assert [(p.partition, p.leader, p.replicas, p.isr) for p in made.partitions] == [
            (0, 1, (1,), (1,)),
            (1, 1, (1,), (1,)),
        ]
        assert made.overrides == {"retention.ms": "1000"}
        entry = made.entry("retention.ms")
        assert entry is not None and entry.source == TOPIC_OVERRIDE
        assert made.inherited("cleanup.policy") == "delete"
        assert made.topic_id
        assert cluster.topics([name])[name].configs == ()  # configs only when asked
        state = cluster.read_state()
        assert state.topics[name].overrides == {"retention.ms": "1000"}
        assert state.broker_defaults["num.partitions"] == "3"
        assert state.broker_defaults["default.replication.factor"] == "1"
        assert [b.id for b in state.brokers] == [1]


def test_creates_kafka_refuses_and_the_broker_defaults_of_kip_464(side: Side) -> None:
    name = f"{side.prefix}.refused"
    with side.connect() as cluster:
        _made(cluster, name)
        again = cluster.create_topics([NewTopicRequest(name, 1, 1)])[name]
        assert again is not None and again.code == "TOPIC_ALREADY_EXISTS"
        three = f"{name}3"
        wide = cluster.create_topics([NewTopicRequest(three, 1, 3)])[three]
        assert wide is not None and wide.code == "INVALID_REPLICATION_FACTOR"
        typo = cluster.create_topics(
            [NewTopicRequest(three, 1, 1, (("retention.msx", "1"),))], validate_only=True
        )[three]
        assert typo is not None and typo.code == "INVALID_CONFIG"
        defaults = f"{name}.defaults"
        checked = cluster.create_topics([NewTopicRequest(defaults, None, None)], validate_only=True)
        assert checked == {defaults: None}
        assert cluster.topics([defaults]) == {}  # validate_only creates nothing
        assert cluster.create_topics([NewTopicRequest(defaults, None, None)]) == {defaults: None}
        made = _topic(cluster, defaults, lambda t: t.led)
        assert (len(made.partitions), made.replication_factor) == (3, 1)  # num.partitions, RF


def test_altered_and_deleted_configs_read_back_and_a_removal_falls_back(side: Side) -> None:
    name = f"{side.prefix}.configs"
    with side.connect() as cluster:
        _made(cluster, name, 1, (("retention.ms", "1000"),))
        update = ConfigUpdate(name, (("cleanup.policy", "compact"),), ("retention.ms",))
        checked = cluster.alter_topic_configs([update], validate_only=True)
        assert checked == {name: None}
        assert _topic(cluster, name, lambda t: True).overrides == {"retention.ms": "1000"}
        assert cluster.alter_topic_configs([update]) == {name: None}
        after = _topic(cluster, name, lambda t: "retention.ms" not in t.overrides)
        assert after.overrides == {"cleanup.policy": "compact"}
        assert after.inherited("retention.ms") == RETENTION_DEFAULT
        fallback = after.entry("retention.ms")
        assert fallback is not None and fallback.source == "DEFAULT_CONFIG"
        assert after.inherited("min.insync.replicas") == "1"
        unset = ConfigUpdate(name, (), ("segment.ms",))
        assert cluster.alter_topic_configs([unset]) == {name: None}  # removing none is fine
        typo = cluster.alter_topic_configs([ConfigUpdate(name, (("retention.msx", "1"),))])[name]
        assert typo is not None and typo.code == "INVALID_CONFIG"


def test_a_refused_config_value_fails_its_own_topic_only(side: Side) -> None:
    """AlterConfigs answers per topic: a value Kafka cannot parse is INVALID_CONFIG for its
    topic, whose override stays, while another topic of the same request is changed (what
    apply's skipping of dependents meets: tests/apply/test_apply_fake.py)."""
    bad, good = f"{side.prefix}.bad", f"{side.prefix}.good"
    with side.connect() as cluster:
        _made(cluster, bad, config=(("retention.ms", "7200000"),))
        _made(cluster, good)
        answers = cluster.alter_topic_configs(
            [ConfigUpdate(bad, (("retention.ms", "soon"),)),
             ConfigUpdate(good, (("retention.ms", "3600000"),))]
        )  # fmt: skip
        refused = answers[bad]
        assert refused is not None and refused.code == "INVALID_CONFIG", answers
        assert "soon" in refused.detail and "retention.ms" in refused.detail
        assert answers[good] is None
        _topic(cluster, good, lambda t: t.overrides.get("retention.ms") == "3600000")
        assert cluster.topics([bad], configs=True)[bad].overrides["retention.ms"] == "7200000"


def test_partitions_grow_only(side: Side) -> None:
    name = f"{side.prefix}.grow"
    with side.connect() as cluster:
        _made(cluster, name, 2)
        assert cluster.create_partitions([PartitionsRequest(name, 4)], validate_only=True) == {
            name: None
        }
        assert len(_topic(cluster, name, lambda t: True).partitions) == 2
        assert cluster.create_partitions([PartitionsRequest(name, 4)]) == {name: None}
        grown = _topic(cluster, name, lambda t: len(t.partitions) == 4 and t.led)
        assert [p.replicas for p in grown.partitions] == [(1,)] * 4
        for total in (3, 4):
            fewer = cluster.create_partitions([PartitionsRequest(name, total)])[name]
            assert fewer is not None and fewer.code == "INVALID_PARTITIONS"


def test_a_deleted_topic_is_gone_and_a_missing_topic_is_an_answer_not_an_error(
    side: Side,
) -> None:
    name = f"{side.prefix}.deleted"
    missing = f"{side.prefix}.missing"
    with side.connect() as cluster:
        _made(cluster, name)
        assert cluster.delete_topics([name]) == {name: None}
        shown(lambda: cluster.topics([name]), lambda t: t == {})
        assert cluster.topics([missing], configs=True) == {}
        for answers in (
            cluster.delete_topics([missing]),
            cluster.create_partitions([PartitionsRequest(missing, 2)]),
            cluster.alter_topic_configs([ConfigUpdate(missing, (("retention.ms", "1"),))]),
        ):
            failure = answers[missing]
            assert failure is not None and failure.code == "UNKNOWN_TOPIC_OR_PART"
        moved = cluster.alter_reassignments({(missing, 0): (1,)})[(missing, 0)]
        assert moved is not None and moved.code == "UNKNOWN_TOPIC_OR_PARTITION"


def test_no_reassignment_is_listed_for_a_topic_at_rest(side: Side) -> None:
    name = f"{side.prefix}.rest"
    with side.connect() as cluster:
        _made(cluster, name)
        assert cluster.reassignments([name]) == ()
        assert cluster.alter_reassignments({}) == {}
        assert cluster.read_state().reassignments == ()


def test_the_lock_has_one_holder_and_a_second_taker_is_refused(side: Side) -> None:
    mine, theirs = 1 + uuid.uuid4().int % 10**12, 2 + uuid.uuid4().int % 10**12
    with side.connect() as cluster, side.connect() as other:
        assert cluster.lock_token() is None
        assert cluster.try_lock(b"holder", mine)
        try:
            assert other.lock_token() == mine
            assert LOCK_TOPIC in other.read_state().topics  # how plan and drift see it held
            assert not other.try_lock(b"other", theirs)
            assert not other.release_lock(theirs)  # not theirs to release
            assert cluster.lock_holder() == b"holder"
            cluster.append_lock(b"heartbeat")
            assert shown(cluster.lock_end, lambda end: end == 2) == 2
            records = cluster.lock_records()
            assert [r.value for r in records] == [b"holder", b"heartbeat"]
            assert [r.offset for r in records] == [0, 1]
            assert records[0].timestamp <= records[1].timestamp
        finally:
            assert cluster.release_lock(mine)
        assert cluster.lock_token() is None
        assert cluster.release_lock(mine)  # already gone: fine
        assert other.try_lock(b"other", theirs)
        assert other.release_lock(None)  # None: whoever holds it
        assert shown(other.lock_token, lambda token: token is None) is None


def test_a_lock_taken_and_never_recorded_shows_its_token_and_no_holder(side: Side) -> None:
    """What apply's judgement of an unrecorded taker reads (tests/apply/test_lock.py): the
    token with no record, then a record written late by another client, seen by this one."""
    token = 3 + uuid.uuid4().int % 10**12
    side.take_lock_unrecorded(token)
    with side.connect() as cluster, side.connect() as late:
        try:
            assert shown(cluster.lock_token, lambda found: found == token) == token
            assert cluster.lock_end() == 0
            assert cluster.lock_holder(wait=0.5) is None
            assert not cluster.try_lock(b"mine", token + 1)
            late.append_lock(b"late holder")
            late.append_lock(b"heartbeat")
            assert shown(cluster.lock_end, lambda end: end == 2) == 2
            assert cluster.lock_holder() == b"late holder"
        finally:
            assert cluster.release_lock(token)
        assert shown(cluster.lock_token, lambda found: found is None) is None


def test_a_lock_taken_without_a_token_still_carries_one(side: Side) -> None:
    """An older reconciler's lock is judged by its record, not its token: a lock taken with
    no token given carries a random one, which a release by another token leaves alone."""
    with side.connect() as cluster:
        assert cluster.try_lock(b'{"user": "legacy"}')
        try:
            token = cluster.lock_token()
            assert token is not None and token >= 0
            assert not cluster.release_lock(token + 1)
            assert cluster.lock_holder() == b'{"user": "legacy"}'
        finally:
            assert cluster.release_lock(None)


def test_audit_records_read_back_in_the_order_written(side: Side) -> None:
    ours = [f"{side.prefix} {i}".encode() for i in range(3)]
    with side.connect() as cluster:
        cluster.ensure_audit()
        _, end = cluster.audit_offsets()
        cluster.write_audit(side.name, ours)
        _, after = shown(cluster.audit_offsets, lambda offsets: offsets[1] >= end + 3)
        records = cluster.audit_records(end, after)
        assert [r.value for r in records if r.value in ours] == ours
        offsets = [r.offset for r in records]
        assert offsets == sorted(offsets) and offsets[0] >= end
        assert [v for v in cluster.read_audit() if v in ours] == ours
        audit = _topic(cluster, AUDIT_TOPIC, lambda t: True)
        assert len(audit.partitions) == 1
        assert audit.overrides["retention.ms"] == "-1"


def test_a_principal_with_all_rights_is_authorized_for_what_apply_does(side: Side) -> None:
    name = f"{side.prefix}.acl"
    missing = f"{side.prefix}.nobody"
    with side.connect() as cluster:
        _made(cluster, name)
        authorized = cluster.authorized([name, missing])
        for operation in ("Create", "Alter", "AlterConfigs", "Describe", "DescribeConfigs"):
            assert authorized.allows(operation, None), operation
        for operation in ("Alter", "AlterConfigs", "Delete", "Describe", "DescribeConfigs"):
            assert authorized.allows(operation, name), operation
        assert set(authorized.topics) == {name}  # a missing topic is left out


def test_a_throttle_set_and_cleared_leaves_nothing_behind(side: Side) -> None:
    name = f"{side.prefix}.throttled"
    rate = 1 << 20
    with side.connect() as cluster:
        _made(cluster, name)
        assert cluster.broker_rates([1]) == {}
        recorded: list[Throttle] = []
        held = cluster.set_throttle(rate, {name: Moves(("0:1",), ("0:1",))}, [1], recorded.append)
        try:
            assert recorded == [held]
            assert (held.brokers, held.kept) == ((1,), ())
            assert held.added == ((name, ("0:1",), ("0:1",)),)
            assert shown(lambda: cluster.broker_rates([1]), bool) == {1: str(rate)}
            throttled = _topic(cluster, name, lambda t: LEADER_REPLICAS in t.overrides)
            assert throttled.overrides[LEADER_REPLICAS] == "0:1"
            assert throttled.overrides[FOLLOWER_REPLICAS] == "0:1"
        finally:
            cluster.clear_throttle(held)
        assert shown(lambda: cluster.broker_rates([1]), lambda rates: not rates) == {}
        cleared = _topic(cluster, name, lambda t: LEADER_REPLICAS not in t.overrides)
        assert cleared.overrides == {}


def test_the_in_use_evidence_of_an_unused_topic_shows_no_reader_or_record(side: Side) -> None:
    name = f"{side.prefix}.unused"
    with side.connect() as cluster:
        _made(cluster, name)
        evidence = cluster.evidence({name: 1}).of(name)
        assert (evidence.groups, evidence.newest_record, evidence.unreadable) == ((), None, ())
        assert (evidence.end_offsets, evidence.written, evidence.window_ms) == ((0,), 0, 0)
        sampled = cluster.evidence({name: 1}, sample_ms=200).of(name)  # watched, not written
        assert (sampled.end_offsets, sampled.written) == ((0,), 0) and sampled.window_ms >= 200


def test_quotas_set_read_back_and_a_removed_key_or_entity_is_gone(side: Side) -> None:
    """AlterClientQuotas then DescribeClientQuotas: values as doubles, a removal an op with
    remove=true (removing a key without a quota is no error), an entity without keys left out
    of the answer. The broker's metadata follows the controller's answer: read until shown."""
    user = QuotaEntity(user=f"{side.prefix}-u")
    both = QuotaEntity(user=f"{side.prefix}-u", client_id="<default>")
    with side.connect() as cluster:

        def ours() -> dict[QuotaEntity, dict[str, float]]:
            mine = (q for q in cluster.quotas().quotas if side.prefix in (q.entity.user or ""))
            return {q.entity: dict(q.values) for q in mine}

        assert cluster.alter_quotas([
            QuotaAlteration(user, "producer_byte_rate", 1048576.0),
            QuotaAlteration(user, "request_percentage", 12.5),
            QuotaAlteration(both, "consumer_byte_rate", 2e6),
            QuotaAlteration(both, "controller_mutation_rate", None),
        ]) == {user: None, both: None}  # fmt: skip
        expected = {user: {"producer_byte_rate": 1048576.0, "request_percentage": 12.5},
                    both: {"consumer_byte_rate": 2e6}}  # fmt: skip
        shown(ours, lambda found: found == expected)
        cluster.alter_quotas([QuotaAlteration(user, "request_percentage", None),
                              QuotaAlteration(both, "consumer_byte_rate", None)])  # fmt: skip
        shown(ours, lambda found: found == {user: {"producer_byte_rate": 1048576.0}})
        cluster.alter_quotas([QuotaAlteration(user, "producer_byte_rate", None)])
        shown(ours, lambda found: found == {})


def test_without_an_authorizer_acls_read_none_and_a_grant_or_revoke_is_the_sentence(
    side: Side,
) -> None:
    """On brokers without an authorizer (`kafka1`): DescribeAcls answers no binding and no
    error (Kafka 4.1.1; the protocol documents SECURITY_DISABLED, which CreateAcls and
    DeleteAcls do answer): a grant or revoke raises the one sentence naming the cluster.
    The secured cluster's ACL behaviours: tests/security/test_sasl_acls.py."""
    binding = AclBinding("topic", f"{side.prefix}.t", "literal", "User:x", "Read")
    with side.connect() as cluster:
        assert cluster.acls().bindings == ()
        for change in (cluster.create_acls, cluster.delete_acls):
            with pytest.raises(ClusterError, match="has no authorizer") as refused:
                change([binding])
            assert "cluster 'contract'" in str(refused.value)
