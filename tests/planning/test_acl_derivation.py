"""The ACLs a topic's `access:` derives (docs/access.md's table), read from real spec files."""

from __future__ import annotations

from pathlib import Path

from reconciler.cluster.protocol.acls import CLUSTER_NAME, AclBinding
from reconciler.planning.acl_derivation import declares_access, derived
from reconciler.spec.loader import load_repo
from reconciler.spec.model import TopicSpec


def _desired(tmp_path: Path, topics: str) -> list[TopicSpec]:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "reconciler.yaml").write_text("clusters:\n  local:\n    bootstrap: h:9092\n")
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "t.yaml").write_text(topics)
    loaded = load_repo(tmp_path, "local")
    assert not [d for d in loaded.diagnostics if d.is_error], loaded.diagnostics
    return list(loaded.desired["local"].topics.values())


SPEC = """\
defaults:
  access:
    consumers:
      - principal: User:audit
topics:
  - name: orders
    access:
      producers:
        - principal: User:api
        - principal: User:batch
          idempotent: false
        - principal: User:tx
          transactional_ids: [tx-1]
          transactional_id_prefixes: [tx-]
      consumers:
        - principal: User:billing
          groups: [billing]
          group_prefixes: [billing-replay-]
  - name: refunds
    access:
      consumers:
        - principal: User:billing
          groups: [billing]
  - name: inherited
  - name: unmanaged
    access: {}
  - name: gone
    state: absent
"""


def _topic(name: str, who: str, op: str) -> AclBinding:
    return AclBinding("topic", name, "literal", who, op)


def test_each_client_kind_gets_its_rows_of_the_table(tmp_path: Path) -> None:
    topics = _desired(tmp_path, SPEC)
    got = derived(topics, idempotent_write=False)
    assert got == {
        _topic("orders", "User:api", "Write"): ("orders",),
        _topic("orders", "User:batch", "Write"): ("orders",),
        _topic("orders", "User:tx", "Write"): ("orders",),
        AclBinding("transactional_id", "tx-1", "literal", "User:tx", "Write"): ("orders",),
        AclBinding("transactional_id", "tx-", "prefixed", "User:tx", "Write"): ("orders",),
        _topic("orders", "User:billing", "Read"): ("orders",),
        _topic("refunds", "User:billing", "Read"): ("refunds",),
        # one binding, derived by two topics: revoked only when neither derives it
        AclBinding("group", "billing", "literal", "User:billing", "Read"): ("orders", "refunds"),
        AclBinding("group", "billing-replay-", "prefixed", "User:billing", "Read"): ("orders",),
        # the defaults' access, for the topic without its own: a consumer without a group
        _topic("inherited", "User:audit", "Read"): ("inherited",),
    }


def test_brokers_before_2_8_need_idempotent_write_for_idempotent_producers_only(
    tmp_path: Path,
) -> None:
    topics = _desired(tmp_path, SPEC)
    old = set(derived(topics, idempotent_write=True)) - set(derived(topics, idempotent_write=False))
    # not User:batch (idempotent: false), not User:tx (its transactional id is what is checked)
    assert old == {AclBinding("cluster", CLUSTER_NAME, "literal", "User:api", "IdempotentWrite")}


def test_a_spec_without_access_declares_none(tmp_path: Path) -> None:
    topics = _desired(tmp_path, "topics:\n  - name: a\n  - name: b\n    state: absent\n")
    assert not declares_access(topics)
    assert derived(topics, idempotent_write=True) == {}
    assert declares_access(_desired(tmp_path / "x", "topics:\n  - name: a\n    access: {}\n"))


def test_a_binding_reads_as_one_line_and_knows_when_it_widens() -> None:
    binding = _topic("payments.orders.v1", "User:billing", "Read")
    assert binding.text == "User:billing ALLOW Read Topic:payments.orders.v1 (literal) from *"
    assert not binding.wide
    assert _topic("payments.orders.v1", "User:*", "Read").wide
    assert _topic("*", "User:billing", "Read").wide
    assert AclBinding("group", "billing-", "prefixed", "User:billing", "Read").wide
    assert not AclBinding("cluster", CLUSTER_NAME, "literal", "User:a", "IdempotentWrite").wide
