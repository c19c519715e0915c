"""Read every spec or refuse: a topic file the loader does not read stops every delete, and
import writes only where the loader reads, against a real broker."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


def make(admin: AdminClient, *names: str) -> None:
    for future in admin.create_topics([NewTopic(n, 1, 1) for n in names]).values():
        future.result()
    for name in names:
        wait_for_topic(admin, name)


@pytest.mark.parametrize(
    "unread", ["topics/UP.YAML", "topics/team/Orders.Yml", "topics/.staging/orders.yaml"]
)
def test_an_unread_spec_file_stops_prune_and_tombstones_naming_it(
    tmp_path: Path, kafka1: LocalCluster, ns: str, unread: str
) -> None:
    """The topic `unread` declares exists; plan --prune must not delete it (nor anything)."""
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    declared, gone = f"{ns}.declared", f"{ns}.gone"
    make(admin, declared, gone)
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"allow_delete": True})
    repo.topics({"name": f"{ns}.kept", "partitions": 1, "replication_factor": 1})
    repo.write(unread, {"topics": [{"name": declared, "partitions": 1, "replication_factor": 1}]})

    validated = repo.run("validate")
    assert validated.code == 0, validated.stdout  # a warning, not an error
    assert f"{unread}:1:1: warning[R013]: {unread} is not read (" in validated.stdout

    plan = repo.run("plan", "--cluster", "test", "--prune", "--format", "json")
    assert plan.code == 1, plan.stdout + plan.stderr
    document = plan.json()
    assert document["applyable"] is False
    assert [c for c in document["changes"] if c["action"] == "delete"] == []
    refused = [d for d in document["diagnostics"] if d["code"] == "P117"]
    assert len(refused) == 1 and refused[0]["severity"] == "error", document["diagnostics"]
    message = refused[0]["message"]
    assert f"--prune would delete 2 unmanaged topic(s) ({declared}, {gone})" in message
    assert f"{unread} is not read (" in message

    applied = repo.run("apply", "--cluster", "test", "--prune", "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr
    # A tombstone is refused the same way
    repo.topics(
        {"name": f"{ns}.kept", "partitions": 1, "replication_factor": 1},
        {"name": gone, "state": "absent", "acknowledge": ["delete"]},
    )
    tombstone = repo.run("plan", "--cluster", "test")
    assert tombstone.code == 1, tombstone.stdout + tombstone.stderr
    assert f"error[P117]: {gone} has a tombstone (`state: absent`) but {unread}" in tombstone.stdout
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr

    topics = admin.list_topics(timeout=10).topics
    assert declared in topics and gone in topics  # nothing was deleted
    # Renamed to what the loader reads, the file's topic is managed and the tombstone applies
    (tmp_path / unread).unlink()
    repo.write("topics/up.yaml", {"topics": [{"name": declared, "partitions": 1,
                                              "replication_factor": 1}]})  # fmt: skip
    plan = repo.run("plan", "--cluster", "test", "--prune", "--format", "json")
    deletes = [c["topic"] for c in plan.json()["changes"] if c["action"] == "delete"]
    assert deletes == [gone], plan.stdout


def test_import_refuses_an_out_the_loader_would_not_read(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    make(admin, f"{ns}.orders")
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    for out in ("repo/topics/.staging", "elsewhere", "repo/topics/team/.old"):
        result = repo.run("import", "--cluster", "test", "--out", str(tmp_path / out))
        assert result.code == 1, result.stdout + result.stderr
        assert "validate and plan never read topic files there" in result.stderr, result.stderr
        assert "pass --out topics or a folder under it" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert list((tmp_path / "repo" / "topics").rglob("*")) == []
    assert not (tmp_path / "elsewhere").exists()

    # Under topics/, the written files are read back by the loader: a second import skips them
    first = repo.run("import", "--cluster", "test", "--out", str(tmp_path / "repo/topics/imp"))
    assert first.code == 0, first.stdout + first.stderr
    second = repo.run("import", "--cluster", "test")
    assert second.code == 0, second.stdout + second.stderr
    assert "Nothing to import" in second.stdout and "skipped 1 topic(s)" in second.stdout
    assert len(list((tmp_path / "repo" / "topics").rglob("*.yaml"))) == 1
