"""A revoke that does not revoke, and a topic's `access:` a wide binding bypasses
(planning/acl_shadowing.py, docs/access.md): named on the change, in its hazard, in every
output, and warned about (P141, P142)."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from reconciler.cluster.protocol.acls import AclBinding, ClusterAcls
from reconciler.cluster.state import ClusterState
from reconciler.planning.acl_coverage import granting
from reconciler.planning.acl_shadowing import Kept
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import make_plan
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.access import ConsumerAccess, ProducerAccess, TopicAccess
from reconciler.spec.model import ClusterConfig, Policy
from tests.planning.factories import checked_json, cluster, desired, spec, topic
from tests.planning.test_acl_coverage import bindings

CONFIG = ClusterConfig("test", "localhost:9092")
ONLY_API = TopicAccess(producers=(ProducerAccess("User:api"),))
WRITE = AclBinding("topic", "orders", "literal", "User:api", "Write")
READ = AclBinding("topic", "orders", "literal", "User:billing", "Read")
PREFIXED_READ = AclBinding("topic", "ord", "prefixed", "User:billing", "Read")
EVERYONE_READS = AclBinding("topic", "*", "literal", "User:*", "Read")


def _state(*held: AclBinding) -> ClusterState:
    return dataclasses.replace(cluster(topic("orders")), acls=ClusterAcls(held))


def test_a_revoke_a_prefixed_binding_still_grants_is_named_and_warned_about() -> None:
    plan = make_plan(desired(spec("orders", access=ONLY_API)), _state(WRITE, READ, PREFIXED_READ),
                     CONFIG)  # fmt: skip
    (entry,) = plan.changes
    (revoke,) = entry.access
    assert revoke.binding == READ
    assert revoke.still_granted_by == (PREFIXED_READ.text,)
    (hazard,) = entry.hazards
    assert hazard.code == "acl_revoke"
    assert hazard.message.endswith(
        "User:billing keeps Read on topic orders: still granted by " + PREFIXED_READ.text
    )
    codes = {d.code: d for d in plan.diagnostics}
    assert PREFIXED_READ.text in codes["P141"].message and codes["P141"].topic == "orders"
    # the topic's list says nobody consumes it, the prefix says User:billing does
    assert PREFIXED_READ.text in codes["P142"].message
    text = render_text(plan, color=False)
    assert f"- revoke {READ.text} (still granted by {PREFIXED_READ.text})" in text
    assert f"(still granted by `{PREFIXED_READ.text}`)" in render_markdown(plan)
    data = checked_json(plan)
    assert data["changes"][0]["access"][0]["still_granted_by"] == [PREFIXED_READ.text]
    assert from_json(data).changes[0].access == entry.access  # read back as written


def test_a_revoke_nothing_else_grants_has_no_note() -> None:
    other = AclBinding("topic", "pay", "prefixed", "User:billing", "Read")
    for held in [(WRITE, READ), (WRITE, READ, other)]:
        plan = make_plan(desired(spec("orders", access=ONLY_API)), _state(*held), CONFIG)
        (revoke,) = plan.changes[0].access
        assert revoke.still_granted_by == ()
        assert {"P141", "P142"}.isdisjoint(d.code for d in plan.diagnostics)
        assert "still granted" not in render_text(plan, color=False)
    # a DENY the cluster keeps (a prefixed one: no topic's `access:` owns it) beats the prefix
    deny = AclBinding("topic", "orders", "prefixed", "User:billing", "Read", "deny")
    plan = make_plan(
        desired(spec("orders", access=ONLY_API)), _state(WRITE, READ, PREFIXED_READ, deny), CONFIG
    )
    (revoke,) = plan.changes[0].access
    assert revoke.still_granted_by == ()
    assert "P142" not in {d.code for d in plan.diagnostics}


def test_a_wildcard_binding_outside_the_scope_keeps_a_raw_revoke() -> None:
    stale = AclBinding("group", "billing", "literal", "User:billing", "Read")
    any_group = AclBinding("group", "*", "literal", "User:*", "Read")
    policy = Policy(manage=("billing",))
    state = dataclasses.replace(_state(stale, any_group), acls=ClusterAcls((stale, any_group)))
    plan = make_plan(
        dataclasses.replace(desired(spec("orders")), acls=()), state,
        dataclasses.replace(CONFIG, policy=policy),
    )  # fmt: skip
    (revoke,) = plan.acls  # User:* is outside the scope: never revoked, so it still grants
    assert revoke.binding == stale and revoke.still_granted_by == (any_group.text,)
    assert any_group.text in revoke.hazards[0].message
    assert "P141" in {d.code for d in plan.diagnostics}
    assert checked_json(plan)["acls"][0]["still_granted_by"] == [any_group.text]
    assert f"(still granted by {any_group.text})" in render_text(plan, color=False)


def test_a_wide_grant_to_someone_the_access_list_leaves_out_is_warned_about() -> None:
    access = TopicAccess(
        producers=(ProducerAccess("User:api"),), consumers=(ConsumerAccess("User:billing"),)
    )
    plan = make_plan(
        desired(spec("orders", access=access)), _state(WRITE, READ, EVERYONE_READS), CONFIG
    )
    assert plan.changes == ()
    (warning,) = [d for d in plan.diagnostics if d.code == "P142"]
    assert warning.topic == "orders" and EVERYONE_READS.text in warning.message
    assert "may consume it" in warning.message
    # a prefix granting a listed principal what the list gives it is no news
    listed = AclBinding("topic", "ord", "prefixed", "User:billing", "Read")
    plan = make_plan(desired(spec("orders", access=access)), _state(WRITE, READ, listed), CONFIG)
    assert "P142" not in {d.code for d in plan.diagnostics}


@given(st.lists(bindings(), max_size=12), bindings())
def test_the_index_of_kept_bindings_answers_as_the_whole_set(
    held: list[AclBinding], request: AclBinding
) -> None:
    """Kept reads only the request's principal's bindings and `User:*`'s: the same answer."""
    assert Kept(held).granting(request) == granting(request, set(held))  # a set, as Kafka
