"""Access changes in the plan: grants and revokes on the topic entries, ownership, hazards
bound to one transition, and a plan without access unchanged (docs/access.md)."""

from __future__ import annotations

import dataclasses

from reconciler.cluster.evidence import Evidence, GroupUse, TopicEvidence
from reconciler.cluster.protocol.acls import CLUSTER_NAME, AclBinding, ClusterAcls
from reconciler.planning.changes import Action
from reconciler.planning.json_plan import to_json
from reconciler.planning.plan import make_plan
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.access import ConsumerAccess, ProducerAccess, TopicAccess
from reconciler.spec.model import ClusterConfig, Policy
from tests.planning.factories import (
    approving_gates,
    checked_json,
    cluster,
    desired,
    spec,
    topic,
)

CONFIG = ClusterConfig("test", "localhost:9092")
ORDERS = TopicAccess(
    producers=(ProducerAccess("User:api"),),
    consumers=(ConsumerAccess("User:billing", groups=("billing",)),),
)


def _read(name: str, who: str = "User:billing") -> AclBinding:
    return AclBinding("topic", name, "literal", who, "Read")


WRITE = AclBinding("topic", "orders", "literal", "User:api", "Write")
GROUP = AclBinding("group", "billing", "literal", "User:billing", "Read")


def test_a_new_topic_with_access_grants_what_each_client_needs() -> None:
    state = dataclasses.replace(cluster(), acls=ClusterAcls(()))
    plan = make_plan(desired(spec("orders", access=ORDERS)), state, CONFIG)
    (entry,) = plan.changes
    assert entry.action is Action.CREATE
    assert [(a.action, a.binding) for a in entry.access] == [
        ("grant", GROUP),
        ("grant", WRITE),
        ("grant", _read("orders")),
    ]
    assert plan.applyable  # a narrow grant is no hazard
    text = render_text(plan, color=False)
    assert "+ grant User:api ALLOW Write Topic:orders (literal) from *" in text
    assert "`User:billing ALLOW Read Group:billing (literal) from *`" in render_markdown(plan)
    assert checked_json(plan)["changes"][0]["access"][0]["resource"]["type"] == "group"


def test_brokers_before_2_8_also_get_idempotent_write_on_the_cluster() -> None:
    state = dataclasses.replace(cluster(), acls=ClusterAcls((), idempotent_write=True))
    plan = make_plan(desired(spec("orders", access=ORDERS)), state, CONFIG)
    granted = {a.binding for a in plan.changes[0].access}
    assert AclBinding("cluster", CLUSTER_NAME, "literal", "User:api", "IdempotentWrite") in granted


def test_in_step_access_plans_nothing() -> None:
    state = dataclasses.replace(
        cluster(topic("orders")), acls=ClusterAcls((GROUP, _read("orders"), WRITE))
    )
    assert make_plan(desired(spec("orders", access=ORDERS)), state, CONFIG).changes == ()


def test_removing_a_consumer_revokes_its_read_as_a_hazard_naming_its_live_group() -> None:
    access = TopicAccess(producers=ORDERS.producers)
    state = dataclasses.replace(
        cluster(topic("orders")), acls=ClusterAcls((GROUP, _read("orders"), WRITE))
    )
    use = GroupUse("billing", "Stable", 1, committed=True, assigned=True)
    evidence = Evidence(0, {"orders": TopicEvidence("orders", 0, (use,))})
    plan = make_plan(desired(spec("orders", access=access)), state, CONFIG, evidence=evidence)
    (entry,) = plan.changes
    assert entry.action is Action.UPDATE and entry.changes == ()
    # the group binding no topic derives any more is not owned: left, never revoked
    assert [(a.action, a.binding) for a in entry.access] == [("revoke", _read("orders"))]
    (hazard,) = entry.hazards
    assert hazard.code == "acl_revoke" and hazard.blocks_apply
    assert "billing (Stable, 1 live member(s))" in hazard.message
    assert not plan.applyable
    approve = hazard.approve_with
    assert approve == {
        "acl_revoke": {
            "key": "User:billing ALLOW Read Topic:orders (literal) from *",
            "from": "granted",
            "to": "revoked",
        }
    }
    approved = spec("orders", access=access, acknowledge=[approve])
    again = make_plan(desired(approved), state, CONFIG, evidence=evidence)
    assert again.applyable


def test_an_out_of_band_grant_on_an_owned_topic_is_drift_to_revoke() -> None:
    intruder = _read("orders", "User:intern")
    elsewhere = _read("payments", "User:intern")  # a topic without access: not owned
    prefixed = AclBinding("topic", "ord", "prefixed", "User:intern", "Read")  # not owned
    state = dataclasses.replace(
        cluster(topic("orders"), topic("payments")),
        acls=ClusterAcls((GROUP, _read("orders"), WRITE, intruder, elsewhere, prefixed)),
    )
    plan = make_plan(desired(spec("orders", access=ORDERS), spec("payments")), state, CONFIG)
    revoked = [a.binding for c in plan.changes for a in c.access]
    assert revoked == [intruder]


def test_a_manage_scope_never_revokes_what_it_does_not_own() -> None:
    config = dataclasses.replace(CONFIG, policy=Policy(manage=("^payments",)))
    state = dataclasses.replace(cluster(topic("orders")), acls=ClusterAcls((_read("orders"),)))
    plan = make_plan(desired(spec("orders", access=TopicAccess())), state, config)
    assert all(not c.access for c in plan.changes)


def test_a_wildcard_grant_is_a_widening_hazard() -> None:
    everyone = TopicAccess(consumers=(ConsumerAccess("User:*"),))
    state = dataclasses.replace(cluster(topic("orders")), acls=ClusterAcls(()))
    plan = make_plan(desired(spec("orders", access=everyone)), state, CONFIG)
    (hazard,) = plan.changes[0].hazards
    assert hazard.code == "acl_widen" and not plan.applyable


def test_without_acls_read_the_plan_is_as_before() -> None:
    state = cluster(topic("orders"))
    with_access = make_plan(desired(spec("orders", access=ORDERS)), state, CONFIG)
    without = make_plan(desired(spec("orders")), state, CONFIG)
    assert with_access.changes == without.changes == ()
    assert to_json(with_access) == to_json(without)


def test_topic_targeting_plans_the_access_of_the_targeted_topics_only() -> None:
    state = dataclasses.replace(cluster(topic("orders"), topic("refunds")), acls=ClusterAcls(()))
    refunds = TopicAccess(consumers=(ConsumerAccess("User:billing"),))
    specs = desired(spec("orders", access=ORDERS), spec("refunds", access=refunds))
    plan = make_plan(specs, state, CONFIG, targets=("^refunds$",))
    assert [(c.topic, [a.binding for a in c.access]) for c in plan.changes] == [
        ("refunds", [_read("refunds")])
    ]


def test_policy_severity_sets_the_level_of_an_access_hazard() -> None:
    # lowering a gate is itself approved in reconciler.yaml (policy_gate_off)
    policy = approving_gates(Policy(severity=(("acl_revoke", "warning"),)))
    config = dataclasses.replace(CONFIG, policy=policy)
    state = dataclasses.replace(cluster(topic("orders")), acls=ClusterAcls((_read("orders"),)))
    plan = make_plan(desired(spec("orders", access=TopicAccess())), state, config)
    (hazard,) = plan.changes[0].hazards
    assert hazard.code == "acl_revoke" and not hazard.blocks_apply and plan.applyable
