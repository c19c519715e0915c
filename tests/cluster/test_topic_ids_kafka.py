"""The topic id reconciler prints is the one Kafka's Java client (and so kafka-topics.sh) prints."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.cluster.adapter import Connection, read_state
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from reconciler.local.toolchain import find_java
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

# Kafka's Java client, as `kafka-topics.sh --describe` uses it to print `TopicId:` (the script's
# TopicCommand is in kafka-tools, which the broker's jars lack): Uuid.toString() of each topic
_JAVA_IDS = """
import org.apache.kafka.clients.admin.Admin;
import java.util.Arrays;
import java.util.Map;
public class TopicIds {
    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", (Object) args[0]))) {
            var topics = Arrays.asList(args).subList(1, args.length);
            admin.describeTopics(topics).allTopicNames().get().forEach(
                (name, d) -> System.out.println(name + " " + d.topicId()));
        }
    }
}
"""


def _java_client_ids(
    dist: Distribution, bootstrap: str, names: list[str], src: Path
) -> dict[str, str]:
    """Each topic's id as Kafka's Java client prints it (a single-file program, Java 11+)."""
    java, _ = find_java()
    src.write_text(_JAVA_IDS)
    proc = subprocess.run(
        [java, "-cp", dist.classpath, str(src), bootstrap, *names],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    pairs = (line.split(" ") for line in proc.stdout.splitlines())
    return {p[0]: p[1] for p in pairs if len(p) == 2 and p[0] in names}


def test_topic_ids_match_what_kafkas_java_client_prints(
    kafka1: LocalCluster, kafka_dist: Distribution, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    # Enough topics that some id holds a byte the two alphabets spell differently (+/ vs -_):
    # the chance that none of 12 random ids does is about 1e-10
    names = [f"{ns}.{i}" for i in range(12)]
    for future in admin.create_topics([NewTopic(n, 1, 1) for n in names]).values():
        future.result()
    for name in names:
        wait_for_topic(admin, name)

    state = read_state(
        Connection("test", kafka1.bootstrap, (("client.id", f"t-{uuid.uuid4().hex}"),))
    )
    kafkas = _java_client_ids(kafka_dist, kafka1.bootstrap, names, tmp_path / "TopicIds.java")
    assert {name: state.topics[name].topic_id for name in names} == kafkas
    assert any(re.search(r"[-_]", i) for i in kafkas.values()), kafkas

    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    out = tmp_path / "snap.json"
    result = repo.run("snapshot", "-o", str(out))
    assert result.code == 0, result.stderr
    snapshot = {t["name"]: t["topic_id"] for t in json.loads(out.read_text())["topics"]}
    assert {name: snapshot[name] for name in names} == kafkas
