"""Which bindings grant a request (planning/acl_coverage.py): Kafka's matching rules, as
properties over generated bindings and as the cases docs/access.md names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reconciler.cluster.protocol.acls import AclBinding, PatternType
from reconciler.planning.acl_coverage import granting

_NAMES = st.sampled_from(["orders", "orders.v1", "ord", "payments", "*"])
_PRINCIPALS = st.sampled_from(["User:a", "User:b", "User:*"])
_HOSTS = st.sampled_from(["*", "10.0.0.7"])
_OPS = st.sampled_from(["Read", "Write", "Describe", "All", "Alter", "Delete"])


@st.composite
def bindings(draw: st.DrawFn) -> AclBinding:
    name = draw(_NAMES)
    patterns: list[PatternType] = ["literal"] if name == "*" else ["literal", "prefixed"]
    pattern = draw(st.sampled_from(patterns))
    return AclBinding(
        draw(st.sampled_from(["topic", "group"])), name, pattern, draw(_PRINCIPALS),
        draw(_OPS), draw(st.sampled_from(["allow", "deny"])), draw(_HOSTS),
    )  # fmt: skip


def _read(name: str = "orders.v1", who: str = "User:a", host: str = "*") -> AclBinding:
    return AclBinding("topic", name, "literal", who, "Read", "allow", host)


@given(st.lists(bindings(), max_size=8), bindings())
def test_what_grants_is_an_allow_of_the_principal_or_everyone_from_its_host(
    held: list[AclBinding], request: AclBinding
) -> None:
    for b in granting(request, held):
        assert b.permission == "allow" and b in held
        assert b.resource_type == request.resource_type
        assert b.principal in (request.principal, "User:*")
        assert b.host in (request.host, "*")
        assert b.operation in (request.operation, "All") or request.operation == "Describe"


@given(st.lists(bindings(), max_size=8), bindings())
def test_the_answer_does_not_depend_on_the_order_of_the_bindings(
    held: list[AclBinding], request: AclBinding
) -> None:
    assert granting(request, held) == granting(request, list(reversed(held)))


@given(st.lists(bindings(), max_size=8), bindings())
def test_a_deny_matching_the_request_beats_every_allow(
    held: list[AclBinding], request: AclBinding
) -> None:
    deny = AclBinding(request.resource_type, "*", "literal", "User:*", "All", "deny", "*")
    assert granting(request, [*held, deny]) == ()


@given(st.lists(bindings(), max_size=8), bindings(), st.sampled_from(["", "x", ".v2"]))
def test_what_grants_a_prefix_grants_every_name_under_it(
    held: list[AclBinding], request: AclBinding, suffix: str
) -> None:
    if request.pattern_type != "prefixed":
        return
    one = AclBinding(
        request.resource_type, request.resource_name + suffix, "literal", request.principal,
        request.operation, request.permission, request.host,
    )  # fmt: skip
    assert set(granting(request, held)) <= set(granting(one, held))


def test_kafkas_rules_one_by_one() -> None:
    request = _read()
    prefixed = AclBinding("topic", "orders", "prefixed", "User:a", "Read")
    assert granting(request, [prefixed]) == (prefixed,)  # a prefix of the name
    assert (
        granting(request, [AclBinding("topic", "orders.v1.x", "prefixed", "User:a", "Read")]) == ()
    )
    star = AclBinding("topic", "*", "literal", "User:a", "Write")
    assert granting(request, [star]) == ()  # another operation
    everyone = AclBinding("topic", "*", "literal", "User:*", "All")
    assert granting(request, [everyone]) == (everyone,)
    assert granting(_read(host="10.0.0.7"), [everyone]) == (everyone,)  # `*` host covers one
    one_host = _read(host="10.0.0.7")
    assert granting(request, [one_host]) == ()  # one host does not cover every host
    assert granting(request, [_read(who="User:b")]) == ()
    # Describe is implied by Read, Write, Delete, Alter; a DENY of Read denies no Describe
    describe = AclBinding("topic", "orders.v1", "literal", "User:a", "Describe")
    deny_read = AclBinding("topic", "orders.v1", "literal", "User:a", "Read", "deny")
    assert granting(describe, [_read(), deny_read]) == (_read(),)
    # a DENY from one host leaves the access from every other host
    deny_one_host = AclBinding("topic", "orders", "prefixed", "User:a", "Read", "deny", "10.0.0.7")
    assert granting(request, [prefixed, deny_one_host]) == (prefixed,)
    assert granting(one_host, [prefixed, deny_one_host]) == ()
    # a DENY of one name under a prefixed request refuses it: the prefix is not granted whole
    # (hypothesis found it: CI, 2026-11-30)
    under = AclBinding("topic", "orders.v1", "prefixed", "User:a", "Read")
    deny_name = AclBinding("topic", "orders.v1", "literal", "User:a", "Read", "deny")
    assert granting(under, [prefixed]) == (prefixed,)
    assert granting(under, [prefixed, deny_name]) == ()
    assert granting(under, [prefixed, AclBinding("topic", "orders.v1.x", "prefixed", "User:a",
                                                 "Read", "deny")]) == ()  # fmt: skip
    assert granting(under, [prefixed, AclBinding("topic", "orders.v", "literal", "User:a",
                                                 "Read", "deny")]) == (prefixed,)  # fmt: skip
    # a prefixed request is covered only by a shorter prefix or `*`, never by one name in it
    asked = AclBinding("topic", "orders.", "prefixed", "User:a", "Read")
    assert granting(asked, [prefixed, _read()]) == (prefixed,)
