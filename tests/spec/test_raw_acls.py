"""A topic file's `acls:` read into each cluster's desired state: `clusters:` keeps an entry
off the others, a template renders its own per cluster, and no key at all is not `acls: []`
(docs/access.md, "Raw bindings")."""

from __future__ import annotations

from pathlib import Path

from reconciler.spec.loader import load_repo

CONFIG = """clusters:
  dev: {bootstrap: "127.0.0.1:9092", vars: {env: dev}}
  prod: {bootstrap: "127.0.0.1:9093", vars: {env: prod}}
"""


def _repo(root: Path, files: dict[str, str]) -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "reconciler.yaml").write_text(CONFIG)
    for name, text in files.items():
        (root / "topics" / name).write_text(text)
    return root


def test_entries_per_cluster_from_plain_files_and_templates(tmp_path: Path) -> None:
    plain = """topics: []
acls:
  - principal: User:ops
    resource: {type: cluster}
    operations: [Describe, DescribeConfigs]
  - principal: User:intern
    resource: {type: topic, name: payments.orders.v1}
    operations: [Read]
    permission: deny
    host: 10.0.0.7
    clusters: [prod]
"""
    template = """topics: []
acls:
  - principal: User:{{ cluster }}-streams
    resource: {type: transactional_id, name: "{{ cluster }}-", pattern: prefixed}
    operations: [Write]
"""
    root = _repo(tmp_path, {"a.yaml": plain, "b.yaml.j2": template, "c.yaml": "topics: []\n"})
    loaded = load_repo(root, env={})
    assert loaded.valid, loaded.diagnostics
    dev, prod = loaded.desired["dev"].acls, loaded.desired["prod"].acls
    assert dev is not None and prod is not None
    assert [(a.principal, a.resource_name) for a in dev] == [
        ("User:ops", "kafka-cluster"),
        ("User:dev-streams", "dev-"),
    ]
    assert [(a.principal, a.permission, a.host) for a in prod][1] == (
        "User:intern",
        "deny",
        "10.0.0.7",
    )
    assert prod[2].pattern == "prefixed" and prod[2].resource_type == "transactional_id"
    assert prod[0].operations == ("Describe", "DescribeConfigs")


def test_no_key_is_not_an_empty_list(tmp_path: Path) -> None:
    """`acls: []` makes the cluster's ACLs managed (revoking what nothing gives); a repository
    without the key manages none beyond the topics' `access:`."""
    without = load_repo(_repo(tmp_path / "a", {"t.yaml": "topics: []\n"}), env={})
    empty = load_repo(_repo(tmp_path / "b", {"t.yaml": "topics: []\nacls: []\n"}), env={})
    assert without.desired["dev"].acls is None
    assert empty.desired["dev"].acls == ()


def test_one_binding_in_two_files_for_one_cluster_is_r811_for_that_cluster(tmp_path: Path) -> None:
    first = """topics: []
acls:
  - principal: User:ops
    resource: {type: group, name: ops-, pattern: prefixed}
    operations: [Read]
    clusters: [prod]
"""
    second = """topics: []
acls:
  - principal: User:ops
    resource: {type: group, name: ops-, pattern: prefixed}
    operations: [Describe, Read]
"""
    loaded = load_repo(_repo(tmp_path, {"a.yaml": first, "b.yaml": second}), env={})
    (found,) = loaded.diagnostics
    assert (found.code, str(found.location)) == ("R811", "topics/b.yaml:3:5")
    assert "first at topics/a.yaml:3:5" in found.message
    assert found.message.endswith("(for cluster prod)")


def test_entries_all_for_other_clusters_leave_a_cluster_unmanaged(tmp_path: Path) -> None:
    """`dev` (say, without an authorizer) must not have its ACLs read because a file's
    entries are all for `prod`; `acls: []` is every cluster's."""
    prod_only = """topics: []
acls:
  - principal: User:ops
    resource: {type: cluster}
    operations: [Describe]
    clusters: [prod]
"""
    loaded = load_repo(_repo(tmp_path / "a", {"t.yaml": prod_only}), env={})
    assert loaded.desired["dev"].acls is None
    assert loaded.desired["prod"].acls is not None and len(loaded.desired["prod"].acls) == 1
    files = {"t.yaml": prod_only, "u.yaml": "topics: []\nacls: []\n"}
    both = load_repo(_repo(tmp_path / "b", files), env={})
    assert both.desired["dev"].acls == ()
