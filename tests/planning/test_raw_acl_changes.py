"""The files' raw `acls:` in the plan: one desired set with the topics' `access:`, ownership
within policy.manage (principal and resource), hazards approved in the cluster's policy,
`--topic`, every output, and import's entries planning back to no change (docs/access.md)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema

from reconciler.cluster.evidence import Evidence, GroupUse, TopicEvidence
from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.state import ClusterState
from reconciler.import_cluster import acl_entries, chosen_bindings
from reconciler.patterns import UserPattern
from reconciler.planning.drift import drift
from reconciler.planning.drift import to_json as drift_json
from reconciler.planning.plan import make_plan
from reconciler.planning.raw_acl_changes import bindings
from reconciler.render.drift_report import render_drift_markdown, render_drift_text
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.access import ConsumerAccess, TopicAccess
from reconciler.spec.model import Acknowledgment, ClusterConfig, DesiredState, Policy
from reconciler.spec.raw_acls import RawAcl
from tests.planning.factories import checked_json, cluster, desired, spec, topic

CONFIG = ClusterConfig("test", "localhost:9092")
STREAMS = RawAcl("User:streams", "topic", "orders-", "prefixed", ("All",))
DENY = RawAcl("User:intern", "topic", "orders", "literal", ("Read",), "deny", "10.0.0.7")
OPS = RawAcl("User:ops", "group", "ops", "literal", ("Read", "Describe"))


def _binding(acl: RawAcl, operation: str) -> AclBinding:
    (binding,) = (b for b in bindings((acl,)) if b.operation == operation)
    return binding


def _state(*held: AclBinding, topics: tuple[str, ...] = ("orders",)) -> ClusterState:
    return dataclasses.replace(cluster(*(topic(t) for t in topics)), acls=ClusterAcls(held))


def _with(state: DesiredState, *acls: RawAcl) -> DesiredState:
    return dataclasses.replace(state, acls=acls)


def test_given_bindings_are_granted_in_their_own_section_with_their_hazards() -> None:
    plan = make_plan(_with(desired(spec("orders")), STREAMS, DENY, OPS), _state(), CONFIG)
    assert not plan.changes  # on no topic entry
    assert [(a.action, a.binding.text) for a in plan.acls] == [
        ("grant", "User:ops ALLOW Describe Group:ops (literal) from *"),
        ("grant", "User:ops ALLOW Read Group:ops (literal) from *"),
        ("grant", "User:intern DENY Read Topic:orders (literal) from 10.0.0.7"),
        ("grant", "User:streams ALLOW All Topic:orders- (prefixed) from *"),
    ]
    codes = [[h.code for h in a.hazards] for a in plan.acls]
    assert codes == [[], [], ["acl_revoke"], ["acl_widen"]]  # a DENY narrows, a prefix widens
    assert not plan.applyable
    text = render_text(plan, color=False)
    assert "ACL changes (acls:):" in text
    assert "+ grant User:streams ALLOW All Topic:orders- (prefixed) from *" in text
    assert "### ACL changes (`acls:`)" in render_markdown(plan)
    assert checked_json(plan)["acls"][3]["resource"]["pattern"] == "prefixed"


def test_approved_in_the_cluster_policy_as_one_transition() -> None:
    first = make_plan(_with(desired(), STREAMS), _state(), CONFIG)
    (hazard,) = first.acls[0].hazards
    assert hazard.approve_with is not None
    approved = Acknowledgment.of(hazard.approve_with)
    config = dataclasses.replace(CONFIG, policy=Policy(acknowledge=(approved,)))
    plan = make_plan(_with(desired(), STREAMS), _state(), config)
    assert plan.applyable and plan.acls[0].hazards[0].acknowledged


def test_what_nothing_gives_is_revoked_only_inside_the_scope() -> None:
    theirs = AclBinding("group", "billing-", "prefixed", "User:billing", "Read")
    mine = AclBinding("group", "payments-", "prefixed", "User:payments-api", "Read")
    other_principal = AclBinding("group", "payments-x", "literal", "User:billing", "Read")
    lock = AclBinding("topic", "_reconciler_lock", "literal", "User:payments-api", "Write")
    state = _state(theirs, mine, other_principal, lock)
    scoped = dataclasses.replace(CONFIG, policy=Policy(manage=("payments",)))
    plan = make_plan(_with(desired()), state, scoped)
    assert [(a.action, a.binding) for a in plan.acls] == [("revoke", mine)]
    assert plan.acls[0].hazards[0].code == "acl_revoke"
    everything = make_plan(_with(desired()), state, CONFIG)
    assert {a.binding for a in everything.acls} == {theirs, mine, other_principal}  # not the lock


def test_without_an_acls_key_nothing_beyond_access_is_owned() -> None:
    stray = AclBinding("group", "ops", "literal", "User:ops", "Read")
    assert not make_plan(desired(), _state(stray), CONFIG).acls


def test_one_desired_set_with_the_topics_access() -> None:
    """A derived binding is not revoked by `acls:`; a given binding on a topic with `access:`
    is not revoked by the topic; a deleted topic's binding is owned by `acls:`."""
    billing = TopicAccess(consumers=(ConsumerAccess("User:billing", groups=("billing",)),))
    derived_group = AclBinding("group", "billing", "literal", "User:billing", "Read")
    derived_read = AclBinding("topic", "orders", "literal", "User:billing", "Read")
    deny = _binding(DENY, "Read")
    gone = AclBinding("topic", "old", "literal", "User:billing", "Read")
    state = _state(derived_group, derived_read, deny, gone)
    plan = make_plan(_with(desired(spec("orders", access=billing)), DENY), state, CONFIG)
    assert not plan.changes
    assert [(a.action, a.binding) for a in plan.acls] == [("revoke", gone)]
    report = drift(plan, _with(desired(spec("orders", access=billing)), DENY), state)
    assert [(a.topic, a.binding, a.granted) for a in report.access] == [
        ("(acls:)", gone.text, True)
    ]
    schema = json.loads((Path(__file__).parents[2] / "schemas" / "drift.schema.json").read_text())
    jsonschema.validate(drift_json(report), schema)
    assert "(acls:)" in render_drift_text(report) and "(acls:)" in render_drift_markdown(report)


def test_a_revoked_group_names_the_groups_it_covers_and_their_members() -> None:
    read = AclBinding("topic", "orders", "literal", "User:ops", "Read")
    group = _binding(OPS, "Read")
    uses = (GroupUse("ops", "Stable", 2, True, True), GroupUse("other", "Stable", 1, True, True))
    evidence = Evidence(1, {"orders": TopicEvidence("orders", 1, uses)})
    plan = make_plan(_with(desired(spec("orders"))), _state(read, group), CONFIG, evidence=evidence)
    revoke = next(a for a in plan.acls if a.binding == group)
    assert "ops (Stable, 2 live member(s))" in revoke.hazards[0].message
    assert "other" not in revoke.hazards[0].message


def test_topic_targets_keep_only_bindings_on_the_topics_they_select() -> None:
    given = (STREAMS, OPS, RawAcl("User:x", "topic", "payments", "literal", ("Read",)))
    state = _state(topics=("orders", "payments"))
    plan = make_plan(_with(desired(spec("orders"), spec("payments")), *given), state, CONFIG,
                     targets=("^orders",))  # fmt: skip
    assert [a.binding.resource_name for a in plan.acls] == ["orders-"]


def test_imported_entries_plan_no_change() -> None:
    held = (_binding(DENY, "Read"), _binding(OPS, "Read"), _binding(OPS, "Describe"),
            _binding(STREAMS, "All"), AclBinding("cluster", "kafka-cluster", "literal",
                                                 "User:ops", "Describe"))  # fmt: skip
    entries = acl_entries(held)
    assert len(entries) == 4  # one per principal, resource pattern, permission and host
    back = tuple(
        RawAcl(e["principal"], e["resource"]["type"], e["resource"].get("name", "kafka-cluster"),
               e["resource"].get("pattern", "literal"), tuple(e["operations"]),
               e.get("permission", "allow"), e.get("host", "*"))
        for e in entries
    )  # fmt: skip
    assert not make_plan(_with(desired(), *back), _state(*held), CONFIG).acls


def test_import_with_include_or_exclude_chooses_bindings_by_topic_then_by_principal() -> None:
    """docs/access.md, Import: a topic binding by its name (a prefix's own text), any other by
    its principal holding a chosen topic binding."""
    held = (
        AclBinding("topic", "pay.orders", "literal", "User:pay", "Write"),
        AclBinding("topic", "pay.", "prefixed", "User:stream", "All"),
        AclBinding("topic", "ops.log", "literal", "User:ops", "Read"),
        AclBinding("topic", "*", "literal", "User:mon", "Describe"),
        AclBinding("group", "pay-g", "literal", "User:pay", "Read"),
        AclBinding("transactional_id", "pay.", "prefixed", "User:stream", "Write"),
        AclBinding("group", "ops-g", "literal", "User:ops", "Read"),
        AclBinding("cluster", "kafka-cluster", "literal", "User:mon", "Describe"),
    )
    include = UserPattern("^pay\\.", "--include")
    chosen = chosen_bindings(held, held, include, None)
    assert [b.resource_name for b in chosen] == ["pay.orders", "pay.", "pay-g", "pay."]
    exclude = UserPattern("orders", "--exclude")
    chosen = chosen_bindings(held, held, include, exclude)
    assert [(b.resource_type, b.resource_name) for b in chosen] == [
        ("topic", "pay."), ("transactional_id", "pay."),
    ]  # fmt: skip
    assert chosen_bindings(held, held, None, None) == list(held)  # no option: all of them
    # `*` is chosen only by a pattern matching the text `*`
    assert ("User:mon" in {b.principal for b in chosen_bindings(held, held,
            UserPattern("^[*]$", "--include"), None)})  # fmt: skip


def test_every_widening_and_narrowing_shape_is_a_hazard() -> None:
    """Other shapes than the prefixed grant and the DENY grant the real-broker test makes."""
    anyone = RawAcl("User:*", "group", "public", "literal", ("Read",))
    every_txn = RawAcl("User:tx", "transactional_id", "*", "literal", ("Write",))
    narrow = RawAcl("User:tx", "transactional_id", "tx-1", "literal", ("Write",))
    old_deny = AclBinding("topic", "orders", "literal", "User:intern", "Write", "deny")
    old_cluster = AclBinding("cluster", "kafka-cluster", "literal", "User:ops", "Describe")
    plan = make_plan(
        _with(desired(), anyone, every_txn, narrow), _state(old_deny, old_cluster), CONFIG
    )
    found = {(a.action, a.binding.resource_name): [h.code for h in a.hazards] for a in plan.acls}
    assert found == {
        ("grant", "public"): ["acl_widen"],  # the wildcard principal
        ("grant", "*"): ["acl_widen"],  # every transactional id
        ("grant", "tx-1"): [],  # one principal, one literal resource
        ("revoke", "orders"): ["acl_widen"],  # a DENY lifted lets the principal in
        ("revoke", "kafka-cluster"): ["acl_revoke"],
    }
    (hazard,) = next(a.hazards for a in plan.acls if a.binding == old_cluster)
    assert hazard.approve_with == {
        "acl_revoke": {"key": old_cluster.text, "from": "granted", "to": "revoked"}
    }
    assert "policy.acknowledge" in hazard.message


def test_an_entry_outside_the_scope_is_neither_granted_nor_revoked_and_warned() -> None:
    mine = RawAcl("User:payments-api", "group", "payments-", "prefixed", ("Read",))
    theirs = RawAcl("User:billing", "group", "payments-x", "literal", ("Read",))
    ignored = RawAcl("User:payments-api", "topic", "_payments.tmp", "literal", ("Read",))
    policy = Policy(manage=("payments",), ignore=("^_",))
    scoped = dataclasses.replace(CONFIG, policy=policy)
    plan = make_plan(_with(desired(), mine, theirs, ignored), _state(), scoped)
    assert [a.binding.principal for a in plan.acls] == ["User:payments-api"]
    warned = [d for d in plan.diagnostics if d.code == "P140"]
    assert [d.message.split(" is outside")[0] for d in warned] == [
        "acls: User:billing on group payments-x (literal)",
        "acls: User:payments-api on topic _payments.tmp (literal)",
    ]
    assert not [d for d in plan.diagnostics if d.is_error]
