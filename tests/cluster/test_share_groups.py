"""Share groups (KIP-932) in the in-use evidence. ListGroups shows them (type `share`), but
neither client library reconciler uses can ask which topics one reads (ShareGroupDescribe), so
they make every delete's evidence unreadable rather than be dropped.

On real brokers: the session's kafka1 runs Kafka 4.1, where share groups are a preview turned
on by the `share.version` feature (what `kafka-features.sh upgrade --feature share.version=1`
does); a share group of Kafka's own Java client (KafkaShareConsumer, the one behind
kafka-console-share-consumer.sh, whose kafka-tools jar the broker's jars lack) reads a topic
that a --prune plan would delete. The ListGroups answer shapes are also checked without a
broker (the two fields Kafka and kafka-python use for the type)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient

from reconciler.cluster import adapter
from reconciler.cluster.adapter import evidence
from reconciler.cluster.protocol.authorized import Authorized
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from reconciler.local.toolchain import find_java
from tests.kafka_helpers import KEEPS_OLD_RECORDS, record_count, wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

# A share group's member as kafka-console-share-consumer.sh makes one: from the earliest record
# (a share group starts at the latest by default: share.auto.offset.reset is a group config),
# reading `wanted` records, acknowledging them, saying so, then polling until stdin has a line
_JAVA_READER = """
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
public class ShareReader {
    public static void main(String[] args) throws Exception {
        String boot = args[0], topic = args[1], group = args[2];
        int wanted = Integer.parseInt(args[3]);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", (Object) boot))) {
            var resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            var earliest = new AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(earliest))).all().get();
        }
        Map<String, Object> props = Map.of("bootstrap.servers", boot, "group.id", group);
        try (var consumer = new KafkaShareConsumer<byte[], byte[]>(
                props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            int read = 0;
            while (read < wanted) read += consumer.poll(Duration.ofMillis(200)).count();
            consumer.commitSync();
            System.out.println("read " + read);
            System.out.flush();
            while (System.in.available() == 0) consumer.poll(Duration.ofMillis(200));
        }
    }
}
"""


def _enable_share_groups(bootstrap: str) -> None:
    """Kafka 4.1's preview, turned on as an operator does: the share.version feature at 1
    (idempotent; kafka1 stays so for the session, harmless while no share group exists)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        level = admin.describe_features()["share.version"]
        if level.get("finalized", (0, 0))[1] < 1:
            admin.update_features({"share.version": 1})
    finally:
        admin.close()


@contextmanager
def _share_group_reading(
    dist: Distribution, bootstrap: str, topic: str, group: str, wanted: int, src: Path
) -> Iterator[None]:
    """A live member of share group `group` that has read `wanted` records of `topic`; the
    group is deleted afterwards, so no later test on this cluster sees it."""
    java, _ = find_java()
    src.write_text(_JAVA_READER)
    reader = subprocess.Popen(
        [java, "-cp", dist.classpath, str(src), bootstrap, topic, group, str(wanted)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        assert reader.stdout is not None and reader.stdin is not None
        line = reader.stdout.readline().strip()  # blocks until read (or the JVM ends)
        assert line == f"read {wanted}", (line, reader.stderr.read() if reader.stderr else "")
        yield
        reader.stdin.write("stop\n")
        reader.stdin.flush()
        assert reader.wait(60) == 0
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait(30)
        deadline = time.monotonic() + 60
        while (said := admin.delete_groups([group])) != {group: "OK"}:
            assert time.monotonic() < deadline, said  # a member still leaving: not empty yet
            time.sleep(0.5)
        admin.close()


def test_a_topic_a_share_group_reads_is_never_pruned(
    kafka1: LocalCluster, kafka_dist: Distribution, ns: str, tmp_path: Path
) -> None:
    boot = kafka1.bootstrap
    topic, group = f"{ns}.queue", f"{ns}-workers"
    _enable_share_groups(boot)
    admin = AdminClient({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    admin.create_topics([NewTopic(topic, 1, 1, config=KEEPS_OLD_RECORDS)])[topic].result(30)
    wait_for_topics(admin, {topic: 1})
    producer = Producer({"bootstrap.servers": boot}, logger=QUIET_LIBRDKAFKA)
    for i in range(3):
        producer.produce(topic, f"job {i}".encode())
    assert producer.flush(30) == 0
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})  # no spec names the topic

    with _share_group_reading(kafka_dist, boot, topic, group, 3, tmp_path / "ShareReader.java"):
        lister = KafkaAdminClient(bootstrap_servers=boot)
        try:
            listed = lister.list_groups()
        finally:
            lister.close()  # left open, it kept asking the stopped broker until the worker ended
        planned = repo.run("plan", "--cluster", "test", "--prune", "--format", "json")
        applied = repo.run("apply", "--cluster", "test", "--prune", "--auto-approve")

    # What Kafka 4.1 answers: ListGroups v5 names the type, the group is live
    [ours] = [g for g in listed if g["group_id"] == group]
    assert (ours["group_type"], ours["protocol_type"], ours["group_state"]) == (
        "share", "share", "Stable"
    )  # fmt: skip
    assert planned.code == 1, planned.stdout + planned.stderr
    [change] = planned.json()["changes"]
    assert change["topic"] == topic and change["action"] == "delete"
    hazards = {h["code"]: h for h in change["hazards"]}
    assert set(hazards) == {"delete", "in_use"} and not hazards["in_use"]["acknowledged"]
    found = change["evidence"]
    assert found["groups"] == []  # a share group has no consumer-group description or offsets
    [why] = [u for u in found["unreadable"] if "share group" in u]
    assert why.startswith(f"share group(s) {group} (Stable) may read it"), why
    assert "ShareGroupDescribe" in why
    assert applied.code == 1, applied.stdout + applied.stderr
    assert topic in admin.list_topics(timeout=10).topics
    assert record_count(boot, topic) == 3  # acknowledged by the share group, still there


class _Admin:
    """DescribeCluster's answer: every operation, as Kafka without an authorizer gives."""

    def describe_cluster(self, **_: Any) -> Any:
        answer = SimpleNamespace(authorized_operations=None)
        return SimpleNamespace(result=lambda: answer)


class _Groups:
    def __init__(self, groups: list[dict[str, str]]) -> None:
        self.groups = groups

    def list_groups(self) -> list[dict[str, str]]:
        return self.groups


def test_either_field_of_listgroups_marks_a_share_group(monkeypatch: Any) -> None:
    """ListGroups v5 (Kafka 3.8+) gives the type; older answers only the protocol type."""
    monkeypatch.setattr(Authorized, "allows", lambda self, op, resource: True)
    listed = [
        {"group_id": "billing", "protocol_type": "consumer", "group_type": "classic"},
        {"group_id": "work-queue", "protocol_type": "share", "group_state": "Empty"},
        {"group_id": "jobs", "protocol_type": "", "group_type": "Share"},
    ]
    problems: list[str] = []
    connection = adapter.Connection("test", "127.0.0.1:9")
    found = evidence._complete_group_list(
        connection,
        _Admin(),  # type: ignore[arg-type]
        _Groups(listed),  # type: ignore[arg-type]
        problems,
    )
    assert found == ["billing"]
    [said] = problems
    assert said.startswith("share group(s) jobs, work-queue (Empty) may read it")
    assert "ShareGroupDescribe" in said and "count as readers" in said


def test_no_share_group_no_problem(monkeypatch: Any) -> None:
    monkeypatch.setattr(Authorized, "allows", lambda self, op, resource: True)
    problems: list[str] = []
    found = evidence._complete_group_list(
        adapter.Connection("test", "127.0.0.1:9"),
        _Admin(),  # type: ignore[arg-type]
        _Groups([{"group_id": "billing", "protocol_type": "consumer"}]),  # type: ignore[arg-type]
        problems,
    )
    assert (found, problems) == (["billing"], [])
