"""`reconciler import`'s pure part: which topics, what each spec says, and the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from reconciler.cluster.state import (
    TOPIC_OVERRIDE,
    BrokerState,
    ClusterState,
    ConfigEntry,
    PartitionState,
    Reassignment,
    TopicState,
)
from reconciler.import_cluster import (
    MAX_TOPICS_PER_FILE,
    ImportedTopic,
    deliberate,
    imported_topic,
    layout,
    prefix,
    select,
)
from reconciler.patterns import UserPattern
from reconciler.spec import catalog
from reconciler.spec.spelling import spec_value

RACKED = tuple(
    BrokerState(i, "127.0.0.1", 9090 + i, f"rack-{r}") for i, r in ((1, "a"), (2, "b"), (3, "c"))
)
RACKLESS = tuple(BrokerState(i, "127.0.0.1", 9090 + i, None) for i in (1, 2, 3, 4))


def topic(
    name: str,
    replicas: list[tuple[int, ...]],
    configs: dict[str, tuple[str, str]] | None = None,
    internal: bool = False,
) -> TopicState:
    return TopicState(
        name=name,
        internal=internal,
        partitions=tuple(
            PartitionState(i, r[0] if r else None, r, r) for i, r in enumerate(replicas)
        ),
        configs=tuple(
            sorted((k, ConfigEntry(v, source)) for k, (v, source) in (configs or {}).items())
        ),
    )


def state(*topics: TopicState, reassignments: tuple[Reassignment, ...] = ()) -> ClusterState:
    return ClusterState("c", 1, RACKED, {t.name: t for t in topics}, {}, reassignments)


@pytest.mark.parametrize(
    ("key", "canonical", "written"),
    [
        ("retention.ms", "604800000", "7d"),
        ("retention.ms", "5400000", "90m"),
        ("retention.ms", "1234", "1234ms"),
        ("retention.ms", "-1", -1),  # unlimited stays Kafka's sentinel
        ("segment.bytes", "536870912", "512MiB"),
        ("retention.bytes", "1000000", "1MB"),
        ("retention.bytes", "-1", -1),
        ("max.message.bytes", "1048589", 1048589),  # no unit divides it
        ("min.insync.replicas", "2", 2),
        ("unclean.leader.election.enable", "true", True),
        ("min.cleanable.dirty.ratio", "0.3", 0.3),
        ("cleanup.policy", "compact,delete", "compact,delete"),
        ("compression.type", "zstd", "zstd"),
        ("message.timestamp.type", "LogAppendTime", "LogAppendTime"),
    ],
)
def test_spec_values_are_human_where_exact_and_normalise_back(
    key: str, canonical: str, written: Any
) -> None:
    value = spec_value(key, canonical)
    assert value == written and type(value) is type(written)
    # What the spec says must mean exactly what the cluster has.
    assert catalog.normalise(key, value) == canonical
    assert yaml.safe_load(yaml.safe_dump({key: value}))[key] == value


@pytest.mark.parametrize(
    ("replicas", "brokers", "by_hand"),
    [
        ([(1, 2), (2, 3), (3, 1)], RACKED, False),
        ([(2, 3), (3, 1), (1, 2), (2, 1), (3, 2), (1, 3)], RACKED, False),
        ([(1,)], RACKED, False),
        ([(1, 2, 3), (2, 3, 1), (3, 1, 2)], RACKED, False),
        ([(1, 2, 3)] * 3, RACKED, True),  # every leader on broker 1: stacked, not striped
        ([(1, 2), (1, 3), (1, 2)], RACKED, True),  # every leader on broker 1
        ([(1, 2)] * 4, RACKLESS, True),  # every leader on broker 1
        ([(1, 2), (2, 9)], RACKED, False),  # a broker not listed may only be down
        ([(1, 2), (3, 4), (2, 1), (4, 3)], RACKLESS, False),
        ([(1, 1)], RACKED, True),  # one rack used where two could be
        # Uneven over the brokers, as a cluster that grew (or a rebalance) leaves it: Kafka's
        ([(1, 2), (2, 1), (1, 2), (2, 1), (1, 2), (2, 1)], RACKLESS, False),
        ([(1,)] * 24, RACKED, False),  # a topic of the cluster's one-broker days
        ([(1, 2), (2, 3), (1, 3), (1, 2), (3, 1), (1, 2)], RACKED, False),  # after a rebalance
    ],
)
def test_deliberate_placement(
    replicas: list[tuple[int, ...]], brokers: tuple[BrokerState, ...], by_hand: bool
) -> None:
    assert (deliberate(replicas, brokers) is not None) is by_hand


def test_racks_are_judged_by_what_the_cluster_can_offer() -> None:
    two_racks = (
        BrokerState(1, "h", 1, "a"),
        BrokerState(2, "h", 2, "a"),
        BrokerState(3, "h", 3, "b"),
        BrokerState(4, "h", 4, "b"),
    )
    assert deliberate([(1, 3), (3, 2), (2, 4), (4, 1)], two_racks) is None
    found = deliberate([(1, 2), (3, 4), (2, 1), (4, 3)], two_racks)  # one rack each
    assert (
        found == "partition 0 has its 2 replicas on 1 rack(s) of 2, which Kafka's "
        "rack-aware placement never does"
    )


def test_keep_assignments_pins_what_kafka_placed() -> None:
    t = topic("pay.orders", [(1, 2), (2, 3), (3, 1)])
    assert "assignments" not in imported_topic(t, state(t)).spec
    kept = imported_topic(t, state(t), keep_assignments=True)
    assert kept.spec["assignments"] == [[1, 2], [2, 3], [3, 1]]
    assert kept.kept == "--keep-assignments"


def test_a_spec_holds_overrides_only_never_defaults() -> None:
    t = topic(
        "pay.orders",
        [(1, 2), (2, 3), (3, 1)],
        {
            "retention.ms": ("604800000", TOPIC_OVERRIDE),
            "segment.bytes": ("1073741824", "DEFAULT_CONFIG"),
            "min.insync.replicas": ("2", "STATIC_BROKER_CONFIG"),
            "cleanup.policy": ("delete", "DYNAMIC_BROKER_CONFIG"),
            "leader.replication.throttled.replicas": ("0:1", TOPIC_OVERRIDE),
        },
    )
    imported = imported_topic(t, state(t))
    assert imported.spec == {
        "name": "pay.orders",
        "partitions": 3,
        "replication_factor": 2,
        "config": {"retention.ms": "7d"},
    }
    assert imported.notes == ()


def test_a_placement_kafka_would_not_choose_is_kept() -> None:
    t = topic("pinned", [(1, 2), (1, 3), (1, 2)])
    assert imported_topic(t, state(t)).spec["assignments"] == [[1, 2], [1, 3], [1, 2]]


def test_mixed_replication_factors_leave_the_factor_out_with_a_note() -> None:
    t = topic("mixed", [(1, 2), (2, 3, 1)])
    imported = imported_topic(t, state(t))
    assert "replication_factor" not in imported.spec and "assignments" not in imported.spec
    assert "2 and 3 replicas" in imported.notes[0]


def test_a_reassignment_in_progress_is_read_as_its_target() -> None:
    # Mid-move metadata lists 1, 2 and 3; 3 is on its way out: the topic is RF 2.
    t = topic("moving", [(1, 2, 3), (2, 3)])
    moving = Reassignment("moving", 0, (1, 2, 3), adding=(), removing=(3,))
    imported = imported_topic(t, state(t, reassignments=(moving,)))
    assert imported.spec["replication_factor"] == 2


def test_unknown_and_removed_keys_are_left_out_with_a_note() -> None:
    t = topic(
        "old",
        [(1,)],
        {
            "message.format.version": ("2.8-IV1", TOPIC_OVERRIDE),
            "vendor.special": ("x", TOPIC_OVERRIDE),
        },
    )
    imported = imported_topic(t, state(t))
    assert "config" not in imported.spec
    assert [n.split(" ")[1] for n in imported.notes] == [
        "message.format.version=2.8-IV1",
        "vendor.special=x",
    ]


def test_select_skips_declared_internal_ignored_and_filtered() -> None:
    names = ["a.x", "a.y", "b.x", "_schemas", "__consumer_offsets", "_reconciler_lock", "c.z"]
    topics = [topic(n, [(1,)], internal=n == "__consumer_offsets") for n in names]
    chosen, skipped = select(
        state(*topics),
        declared={"a.y", "z.gone"},
        ignore=[UserPattern("^_", "policy.ignore")],
        include=UserPattern(r"^[ab]\.", "--include"),
        exclude=UserPattern(r"^b\.", "--exclude"),
    )
    assert [t.name for t in chosen] == ["a.x"]
    assert skipped == ["a.y"]


def test_prefixes() -> None:
    assert prefix("payments.orders.v1") == "payments"
    assert prefix("Payments_Orders") == "payments"
    assert prefix("inventory-stock") == "inventory"
    assert prefix("orders") == "orders"
    assert prefix(".hidden") == "other"


def test_layout_groups_by_prefix_never_reuses_a_name_and_splits_large_groups(
    tmp_path: Path,
) -> None:
    (tmp_path / "pay.yaml").write_text("topics: []\n")  # a file the user already has
    (tmp_path / "inv.yaml.j2").write_text("topics: []\n")
    many = [ImportedTopic(f"pay.t{i:05}", {"name": f"pay.t{i:05}"}) for i in range(1500)]
    others = [ImportedTopic(n, {"name": n}) for n in ("inv.b", "inv.a", "solo")]
    files = layout(
        [*others, *many], tmp_path, "prod", clusters_field=True, schema=tmp_path / "s.json"
    )
    assert [(f.path.name, len(f.topics)) for f in files] == [
        ("inv-2.yaml", 2),
        ("pay-2.yaml", MAX_TOPICS_PER_FILE),
        ("pay-3.yaml", 500),
        ("solo.yaml", 1),
    ]
    inv = files[0]
    assert inv.text.splitlines()[0] == "# yaml-language-server: $schema=s.json"
    document = yaml.safe_load(inv.text)
    assert document == {
        "defaults": {"clusters": ["prod"]},
        "topics": [{"name": "inv.a"}, {"name": "inv.b"}],  # sorted by name
    }


def test_rendered_files_read_back_as_written() -> None:
    t = topic(
        "pay.orders",
        [(1, 2), (1, 3), (1, 2)],
        {
            "retention.ms": ("86400000", TOPIC_OVERRIDE),
            "cleanup.policy": ("compact", TOPIC_OVERRIDE),
        },
    )
    imported = imported_topic(t, state(t))
    (file,) = layout([imported], Path("/r/topics"), "prod", clusters_field=False, schema=None)
    assert yaml.safe_load(file.text) == {"topics": [imported.spec]}
    assert "    assignments:\n      - [1, 2]\n      - [1, 3]\n" in file.text
    assert "      retention.ms: 1d\n" in file.text


def test_files_for_one_of_several_clusters_are_planned_only_there(tmp_path: Path) -> None:
    from reconciler.spec.loader import load_repo

    (tmp_path / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  dev: {bootstrap: 'h:1'}\n  prod: {bootstrap: 'h:2'}\n"
    )
    t = topic("pay.orders", [(1, 2), (2, 3), (3, 1)], {"retention.ms": ("3600000", TOPIC_OVERRIDE)})
    (file,) = layout(
        [imported_topic(t, state(t))], tmp_path / "topics", "prod", clusters_field=True, schema=None
    )
    file.path.parent.mkdir()
    file.path.write_text(file.text)
    loaded = load_repo(tmp_path)
    assert loaded.valid, loaded.diagnostics
    assert set(loaded.desired["prod"].topics) == {"pay.orders"}
    assert loaded.desired["dev"].topics == {}
    assert loaded.desired["prod"].topics["pay.orders"].config == (("retention.ms", "3600000"),)


@pytest.mark.parametrize(
    "name", ["08", "1e5", "0o7", "0x1F", "true", "off", "null", "1_000", ".inf"]
)
def test_names_yaml_would_misread_are_quoted(tmp_path: Path, name: str) -> None:
    """Specs are read as YAML 1.2 and by YAML 1.1 tools alike: a name either could read as a
    number, boolean or null is quoted, so the file names the topic it was imported from."""
    from reconciler.spec.loader import load_repo

    (tmp_path / "reconciler.yaml").write_text(
        "topics: topics/\nclusters:\n  c: {bootstrap: 'h:1'}\n"
    )
    t = topic(name, [(1,)])
    (file,) = layout(
        [imported_topic(t, state(t))], tmp_path / "topics", "c", clusters_field=False, schema=None
    )
    file.path.parent.mkdir()
    file.path.write_text(file.text)
    loaded = load_repo(tmp_path)
    assert set(loaded.desired["c"].topics) == {name}, loaded.diagnostics
    assert yaml.safe_load(file.text)["topics"][0]["name"] == name


def test_an_acls_file_says_each_binding_once_and_which_cluster_it_is_for(tmp_path: Path) -> None:
    """import --access's `acls.yaml`: defaults left out, operations grouped per principal,
    resource pattern, permission and host; a name taken gets the next one; read back by
    validate's own reader as the same bindings."""
    from reconciler.cluster.protocol.acls import AclBinding
    from reconciler.import_cluster import acls_file
    from reconciler.planning.raw_acl_changes import bindings
    from reconciler.spec.topic_reader import read_topic_file
    from reconciler.spec.yaml_reader import parse_yaml

    held = [
        AclBinding("cluster", "kafka-cluster", "literal", "User:ops", "Describe"),
        AclBinding("group", "ops-", "prefixed", "User:ops", "Read"),
        AclBinding("topic", "t", "literal", "User:b", "Write", "deny", "10.0.0.1"),
        AclBinding("topic", "t", "literal", "User:b", "Read", "deny", "10.0.0.1"),
    ]
    (tmp_path / "acls.yaml").write_text("taken")
    made = acls_file(held, tmp_path, "prod", clusters_field=True, schema=None)
    assert made.path.name == "acls-2.yaml"
    data = yaml.safe_load(made.text)
    assert data["topics"] == [] and len(data["acls"]) == 3
    assert data["acls"][0] == {
        "principal": "User:ops",
        "resource": {"type": "cluster"},
        "operations": ["Describe"],
        "clusters": ["prod"],
    }
    doc, problems = parse_yaml(made.text, "topics/acls-2.yaml")
    assert doc is not None and not problems
    _, found, acls = read_topic_file(doc, {"prod", "dev"})
    assert not found and acls is not None
    assert set(bindings(acls)) == set(held)
    assert all(a.clusters == ("prod",) for a in acls)
