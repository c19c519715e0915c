"""A pinned cluster id (`cluster_id:` in reconciler.yaml) against real brokers: every command
that reads a live cluster refuses one reporting another id, before reading or changing
anything; saved plans and snapshots of another id are refused; init and import write the pin.

Two clusters with ids of their own: the session's single node (`kafka1`, the one the specs pin)
and its three brokers (`kafka3`, the other cluster). "Unchanged" is checked on the whole of
kafka3: tests take turns on a session cluster, and `ns` waits until a test's topics are gone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from reconciler.local.state import LocalCluster
from reconciler.spec.model import ClusterConfig
from reconciler.spec.pin_cluster import pin_cluster_id
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo, run_cli


@pytest.fixture
def other(kafka3: LocalCluster) -> LocalCluster:
    """Another cluster than the one pinned (its request log on, like every session cluster's)."""
    return kafka3


def cluster_id(bootstrap: str) -> str:
    admin = AdminClient(
        {"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA
    )  # alive until the answer comes
    found = admin.describe_cluster(request_timeout=30).result()
    assert isinstance(found.cluster_id, str)
    return found.cluster_id


def everything(bootstrap: str) -> dict[str, Any]:
    """The whole cluster as an admin client sees it: topics, partitions, overrides."""
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    topics = admin.list_topics(timeout=10).topics
    resources = [ConfigResource(ResourceType.TOPIC, name) for name in sorted(topics)]
    found = admin.describe_configs(resources).items() if resources else ()  # none: no request
    configs = {r.name: f.result() for r, f in found}
    return {
        name: (
            len(meta.partitions),
            sorted((k, e.value) for k, e in configs[name].items() if not e.is_default),
        )
        for name, meta in topics.items()
    }


def pinned_repo(
    root: Path, bootstrap: str, ns: str, pin: str | None, client_id: str | None = None
) -> SpecRepo:
    repo = SpecRepo(root, bootstrap, ns, {"allow_delete": True})
    cluster: dict[str, Any] = {
        "bootstrap": "${KAFKA_BOOTSTRAP}",
        "policy": {"ignore": [f"^(?!{ns})"], "allow_delete": True},
    }
    if client_id is not None:
        cluster["client"] = {"client.id": client_id}
    if pin is not None:
        cluster["cluster_id"] = pin
    repo.write("reconciler.yaml", {"topics": "topics/", "clusters": {"test": cluster}})
    return repo


def test_every_live_command_refuses_a_cluster_reporting_another_id(
    kafka1: LocalCluster, other: LocalCluster, ns: str, tmp_path: Path
) -> None:
    pinned, wrong = cluster_id(kafka1.bootstrap), cluster_id(other.bootstrap)
    assert pinned != wrong
    admin = AdminClient({"bootstrap.servers": other.bootstrap}, logger=QUIET_LIBRDKAFKA)
    admin.create_topics([NewTopic(f"{ns}.keep", 1, 1)])[f"{ns}.keep"].result()
    wait_for_topic(admin, f"{ns}.keep")
    repo = pinned_repo(tmp_path / "repo", other.bootstrap, ns, pinned)
    repo.topics(
        {"name": f"{ns}.new", "partitions": 2, "config": {"retention.ms": "1d"}},
        {"name": f"{ns}.keep", "state": "absent", "acknowledge": ["delete"]},
    )
    before = everything(other.bootstrap)

    assert repo.run("validate").code == 0  # validate reads no cluster
    snapshot = tmp_path / "snap.json"
    commands = [
        ("plan", "--cluster", "test"),
        ("apply", "--cluster", "test", "--auto-approve"),
        ("drift", "--cluster", "test"),
        ("snapshot", "--cluster", "test", "-o", str(snapshot)),
        ("import", "--cluster", "test"),
    ]
    for command in commands:
        result = repo.run(*command)
        assert result.code == 1, (command, result.stdout, result.stderr)
        said = result.stderr + result.stdout
        assert pinned in said and wrong in said and other.bootstrap in said, (command, said)
        assert "cluster 'test'" in said, (command, said)
    assert not snapshot.exists()
    assert not list((repo.root / "topics").glob("t.*"))  # import wrote no spec file
    assert everything(other.bootstrap) == before


def test_a_saved_plan_from_one_cluster_is_refused_on_another(
    kafka1: LocalCluster, other: LocalCluster, ns: str, tmp_path: Path
) -> None:
    # Unpinned, so only the saved plan's own id can tell the clusters apart
    repo = pinned_repo(tmp_path / "repo", kafka1.bootstrap, ns, None)
    repo.topics({"name": f"{ns}.new", "partitions": 1})
    plan_file = tmp_path / "plan.json"
    made = repo.run("plan", "--cluster", "test", "-o", str(plan_file))
    assert made.code == 0, made.stderr
    saved = json.loads(plan_file.read_text())
    assert saved["cluster_id"] == cluster_id(kafka1.bootstrap)
    before = everything(other.bootstrap)

    result = run_cli(repo.root, other.bootstrap, "apply", "--cluster", "test", str(plan_file))

    assert result.code == 1, result.stdout + result.stderr
    assert f"the plan was made on cluster id {saved['cluster_id']}" in result.stderr
    assert cluster_id(other.bootstrap) in result.stderr
    assert "Nothing was changed" in result.stderr
    assert everything(other.bootstrap) == before


def test_plan_state_refuses_a_snapshot_of_another_cluster_id(
    kafka1: LocalCluster, other: LocalCluster, ns: str, tmp_path: Path
) -> None:
    wrong = cluster_id(other.bootstrap)
    unpinned = pinned_repo(tmp_path / "a", other.bootstrap, ns, None)
    for form in ("json", "jsonl"):
        snapshot = tmp_path / f"snap.{form}"
        taken = unpinned.run("snapshot", "--cluster", "test", "-o", str(snapshot), "--format", form)
        assert taken.code == 0, taken.stderr
        head = json.loads(
            snapshot.read_text().splitlines()[0] if form == "jsonl" else snapshot.read_text()
        )
        assert head["cluster_id"] == wrong
    pinned = pinned_repo(tmp_path / "b", kafka1.bootstrap, ns, cluster_id(kafka1.bootstrap))
    snapshot = tmp_path / "snap.json"

    result = pinned.run("plan", "--cluster", "test", "--state", str(snapshot))

    assert result.code == 1
    assert f"{snapshot} is a snapshot of cluster id {wrong}" in result.stderr
    assert cluster_id(kafka1.bootstrap) in result.stderr


def test_init_and_import_write_the_pin_and_plan_warns_until_then(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    pinned = cluster_id(kafka1.bootstrap)
    made = run_cli(tmp_path, kafka1.bootstrap, "init", str(tmp_path / "new"),
                   "--bootstrap", kafka1.bootstrap, "--cluster", "test")  # fmt: skip
    assert made.code == 0, made.stderr
    config = yaml.safe_load((tmp_path / "new" / "reconciler.yaml").read_text())
    assert config["clusters"]["test"]["cluster_id"] == pinned

    # A hand-written reconciler.yaml without the pin: plan and apply warn with the line to add
    repo = tmp_path / "repo"
    (repo / "topics").mkdir(parents=True)
    original = (
        "# our clusters\n"
        "topics: topics/\n"
        "clusters:\n"
        "  test:   # the test cluster\n"
        "\n"
        "    # where it is\n"
        '    bootstrap: "${KAFKA_BOOTSTRAP}"\n'
        f"    policy: {{ignore: ['^(?!{ns})']}}\n"
    )
    (repo / "reconciler.yaml").write_text(original)
    (repo / "topics" / "main.yaml").write_text(f"topics:\n  - name: {ns}.made\n    partitions: 1\n")
    line = f'cluster_id: "{pinned}"'
    planned = run_cli(repo, kafka1.bootstrap, "plan", "--cluster", "test")
    assert planned.code == 0, planned.stderr
    assert f"add `{line}` under `test:` (line 4) in reconciler.yaml" in planned.stderr
    audit = tmp_path / "audit.json"
    applied = run_cli(repo, kafka1.bootstrap, "apply", "--cluster", "test", "--auto-approve",
                      "--audit-json", str(audit))  # fmt: skip
    assert applied.code == 0 and line in applied.stderr, applied.stderr
    assert json.loads(audit.read_text())["cluster_id"] == pinned

    imported = run_cli(repo, kafka1.bootstrap, "import", "--cluster", "test")

    assert imported.code == 0, imported.stderr
    lines = original.splitlines(keepends=True)
    expected = "".join([*lines[:4], f"    {line}\n", *lines[4:]])
    assert (repo / "reconciler.yaml").read_text() == expected  # one line added, comments kept
    again = run_cli(repo, kafka1.bootstrap, "plan", "--cluster", "test", "--format", "json")
    assert again.code == 0 and "cluster_id" not in again.stderr, again.stderr
    assert again.json()["cluster_id"] == pinned
    drift = run_cli(repo, kafka1.bootstrap, "drift", "--cluster", "test", "--format", "json")
    assert drift.json()["cluster_id"] == pinned


def test_a_flow_style_cluster_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "reconciler.yaml"
    text = "clusters:\n  test: {bootstrap: '127.0.0.1:9092'}\n"
    path.write_text(text)
    from reconciler.spec.repo_config import load_repo_config

    (tmp_path / "topics").mkdir()
    config, _ = load_repo_config(tmp_path, {})
    assert config is not None
    chosen: ClusterConfig = config.clusters["test"]

    assert pin_cluster_id(path, chosen, "abc", {}) is False
    assert path.read_text() == text


# What a client may send before it knows the cluster's id: connection set-up and the id's own
# request (librdkafka sends DescribeCluster as Metadata; kafka-python bootstraps with Metadata)
SET_UP = {"API_VERSIONS", "METADATA", "DESCRIBE_CLUSTER"}


def test_nothing_but_the_id_is_asked_of_another_cluster(
    kafka1: LocalCluster, other: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Counted by the wrong cluster's brokers (their request log): plan, apply and snapshot of
    a repository pinned to kafka1 send it nothing beyond connection set-up and DescribeCluster:
    no topic metadata read, no configs, no reassignments, no lock, no audit, no change."""
    for command in (("plan",), ("apply", "--auto-approve"), ("snapshot", "-o", "s.json")):
        client_id = f"pin-{command[0]}-{ns[-6:]}"
        repo = pinned_repo(
            tmp_path / command[0], other.bootstrap, ns, cluster_id(kafka1.bootstrap), client_id
        )
        repo.topics({"name": f"{ns}.new", "partitions": 1})
        assert repo.run(*command, "--cluster", "test").code == 1
        sent = requests_by(other, client_id)
        assert sent and set(sent) <= SET_UP, (command, sent)


def test_a_pin_costs_a_plan_no_request(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    """The id is read by the DescribeCluster every read starts with: pinned or not, plan sends
    the same requests (librdkafka may add a Metadata refresh of its own, as the round-trip test
    says)."""
    pin = cluster_id(kafka1.bootstrap)
    counts = []
    for pinned in (None, pin):
        client_id = f"pin-count-{'on' if pinned else 'off'}-{ns[-6:]}"
        repo = pinned_repo(tmp_path / str(bool(pinned)), kafka1.bootstrap, ns, pinned, client_id)
        repo.topics({"name": f"{ns}.t", "partitions": 1})
        assert repo.run("plan", "--cluster", "test").code == 0
        counts.append(dict(requests_by(kafka1, client_id)))
    print(f"plan's requests unpinned: {counts[0]}; pinned: {counts[1]}")
    unpinned, pinned_counts = ({k: v for k, v in c.items() if k != "METADATA"} for c in counts)
    assert unpinned == pinned_counts
    assert abs(counts[0]["METADATA"] - counts[1]["METADATA"]) <= 1
