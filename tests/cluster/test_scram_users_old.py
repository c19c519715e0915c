"""Below Kafka 2.7 (a real 2.6.3, ZooKeeper mode: the last release without KIP-554's
DescribeUserScramCredentials), a reconciler.yaml declaring `users:` for the cluster stops
plan and apply with one sentence naming the need (exit 1, nothing changed); without `users:`
the same cluster plans as before (docs/access.md#scram-users)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.local.state import LocalCluster
from tests.compat.conftest import start_version
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def before_2_7(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    yield from start_version(request, tmp_path_factory, "2.6.3", 1)


def _repo(root: Path, cl: LocalCluster, ns: str, users: bool) -> SpecRepo:
    repo = SpecRepo(root, cl.bootstrap, ns)
    cluster = {"bootstrap": "${KAFKA_BOOTSTRAP}", "policy": {"ignore": [f"^(?!{ns})"]}}
    if users:
        cluster["users"] = [{"name": f"{ns}-u", "password": "${OLD_USER_PW}"}]  # type: ignore[list-item]
    repo.write("reconciler.yaml", {"topics": "topics/", "clusters": {"test": cluster}})
    repo.topics({"name": f"{ns}.t", "partitions": 1, "replication_factor": 1})
    return repo


def test_below_kafka_2_7_users_are_one_sentence_and_a_spec_without_them_plans_as_before(
    before_2_7: LocalCluster, ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLD_USER_PW", "pw-below-2-7-not-sent")
    repo = _repo(tmp_path / "with", before_2_7, ns, users=True)
    for command in (("plan",), ("apply", "--auto-approve"), ("drift",)):
        refused = repo.run(command[0], "--cluster", "test", *command[1:])
        assert refused.code == 1, refused.stdout + refused.stderr
        said = " ".join(refused.stderr.split())
        assert "runs Kafka 2.6" in said and "SCRAM users need Kafka 2.7 or later" in said, said
        assert "nothing was changed" in said
    plain = _repo(tmp_path / "without", before_2_7, ns, users=False)
    planned = plain.run("plan", "--cluster", "test")
    assert planned.code == 0, planned.stderr
    # the refused apply created nothing: the topic is still to create
    assert f"+ create {ns}.t" in planned.stdout and "SCRAM" not in planned.stdout
