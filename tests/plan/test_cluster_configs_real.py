"""A vendor's topic config on a real Apache Kafka broker: the cluster's own DescribeConfigs
answer decides (planning/cluster_configs.py), and an Apache broker has no `confluent.` key, so
plan refuses it naming that answer, and apply changes nothing. The accepting path (a cluster
that lists the key) needs a vendor's broker: tests/planning/test_cluster_configs.py runs it on
the in-memory fake."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from reconciler.cluster.adapter import Cluster, Connection
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.local.state import LocalCluster
from reconciler.spec.catalog import CATALOG
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

KEY = "confluent.placement.constraints"
VALUE = '{"version":1,"replicas":[{"count":1,"constraints":{"rack":"east"}}]}'


def _described(admin: AdminClient, name: str) -> dict[str, str | None]:
    resource = ConfigResource(ResourceType.TOPIC, name)
    entries = admin.describe_configs([resource])[resource].result(timeout=30)
    return {key: entry.value for key, entry in entries.items()}


def test_a_vendor_key_on_apache_kafka_is_refused_naming_the_clusters_answer(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    old, new = f"{ns}.old", f"{ns}.new"
    for future in admin.create_topics([NewTopic(old, 1, 1)]).values():
        future.result(timeout=30)
    before = _described(admin, old)
    listed = len(before)  # every topic config this broker knows, by its own answer
    assert KEY not in before
    # the pinned broker lists every key of the catalog: none of Apache's is refused as unknown
    assert set(CATALOG) <= set(before), set(CATALOG) - set(before)
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    repo.topics(
        {"name": old, "partitions": 1, "replication_factor": 1, "config": {KEY: VALUE}},
        {"name": new, "partitions": 1, "replication_factor": 1, "config": {KEY: VALUE}},
    )

    checked = repo.run("validate")  # offline: a warning that plan will ask the cluster
    assert checked.code == 0, checked.stdout + checked.stderr
    assert "warning[R106]" in checked.stdout and "asks the cluster" in checked.stdout

    planned = repo.run("plan", "--cluster", "test", "--format", "json")
    assert planned.code == 1, planned.stderr
    plan = planned.json()
    assert plan["applyable"] is False
    errors = [d for d in plan["diagnostics"] if d["rule"] == "unknown_topic_config"]
    assert {d["topic"] for d in errors} == {old, new}
    for d in errors:
        assert d["severity"] == "error"
        assert f"the cluster 'test' does not know topic config '{KEY}'" in d["message"]
        assert f"its brokers list {listed} topic configs, none of them this one" in d["message"]
        assert listed == len(CATALOG)  # 33 on Kafka 4.1.1, the number docs/configs.md shows
    assert plan["changes"] == []

    text = repo.run("plan", "--cluster", "test")
    assert text.code == 1 and "error[P119]" in text.stdout and "Traceback" not in text.stderr
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr
    assert "Traceback" not in applied.stderr
    # nothing changed on the cluster: no topic created, the existing one's configs as they were
    assert new not in admin.list_topics(timeout=30).topics
    assert _described(admin, old) == before


def test_kafka_refuses_an_unknown_key_in_a_validate_only_create(
    kafka1: LocalCluster, ns: str
) -> None:
    """What apply's pre-flight relies on when no topic's answer could be read (P120): Apache
    Kafka itself refuses a topic config it does not know, and a validate-only request creates
    nothing."""
    name = f"{ns}.probe"
    with Cluster(Connection("test", kafka1.bootstrap)) as cluster:
        answers = cluster.create_topics(
            [NewTopicRequest(name, 1, 1, ((KEY, VALUE),))], validate_only=True
        )
    failure = answers[name]
    assert failure is not None and failure.code == "INVALID_CONFIG", failure
    assert KEY in failure.detail
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    assert name not in admin.list_topics(timeout=30).topics
