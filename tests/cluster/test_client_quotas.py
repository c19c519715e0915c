"""Client quotas as code on real brokers (`reconciler help access`): a cluster's `quotas:`
applied, then Kafka's own Java Admin client (its DescribeClientQuotas, from the brokers' jars:
java/ClientQuotas.java) shows the values; a value changed out of band is planned back;
lowering a quota is refused until the cluster's policy approves it, and removing one likewise.

On the pinned release (the shared kafka1) and the newest supported one. Every entity is named
after the test's namespace, and `policy.manage` keeps the repository to those: other tests'
quotas on the shared cluster are neither read as this test's nor removed.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from reconciler.local.distribution import Distribution, ensure_distribution
from reconciler.local.state import LocalCluster
from tests import java_source
from tests.compat.conftest import NEWEST, start_version
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module", params=("pinned", NEWEST))
def cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LocalCluster, Distribution]]:
    if request.param == "pinned":
        yield request.getfixturevalue("kafka1"), request.getfixturevalue("kafka_dist")
        return
    for started in start_version(request, tmp_path_factory, str(request.param), 1):
        yield started, ensure_distribution(version=str(request.param))


JAVA = Path(__file__).parent / "java" / "ClientQuotas.java"


def kafka_admin(cl: LocalCluster, dist: Distribution, *args: str) -> str:
    """Kafka's own Java Admin client from the brokers' jars (java/ClientQuotas.java): its
    DescribeClientQuotas and AlterClientQuotas, independent of reconciler's requests."""
    done = subprocess.run(
        ["java", "-cp", java_source.class_path(JAVA, dist.classpath), JAVA.stem, args[0],
         cl.bootstrap, *args[1:]],
        check=True, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    return done.stdout


def shown(cl: LocalCluster, dist: Distribution) -> dict[str, dict[str, float]]:
    """Every entity's quotas as Kafka's Java client reads them: `user=NAME` -> key -> value."""
    found: dict[str, dict[str, float]] = {}
    for line in kafka_admin(cl, dist, "describe").splitlines():
        entity, *pairs = line.split()
        found[entity] = {k: float(v) for k, v in (p.split("=", 1) for p in pairs)}
    return found


def _repo(root: Path, cl: LocalCluster, ns: str, quotas: list[dict[str, Any]] | None,
          approve: list[dict[str, Any]] | None = None, client_id: str | None = None,
          ) -> SpecRepo:  # fmt: skip
    """A repository of this test's namespace; `quotas` None: no `quotas:` at all."""
    repo = SpecRepo(root, cl.bootstrap, ns)
    policy: dict[str, Any] = {"ignore": [f"^(?!{re.escape(ns)})"], "manage": [f"^{re.escape(ns)}"]}
    if approve:
        policy["acknowledge"] = approve
    cluster: dict[str, Any] = {"bootstrap": "${KAFKA_BOOTSTRAP}", "policy": policy}
    if client_id is not None:  # the requests it sends, counted in the brokers' request log
        cluster["client"] = {"client.id": client_id}
    if quotas is not None:
        cluster["quotas"] = quotas
    repo.write("reconciler.yaml", {"topics": "topics/", "clusters": {"test": cluster}})
    repo.topics()
    return repo


def test_applied_quotas_are_what_kafkas_java_client_reads_and_drift_is_planned_back(
    cluster: tuple[LocalCluster, Distribution], ns: str, tmp_path: Path
) -> None:
    cl, dist = cluster
    user, app = f"{ns}-billing", f"{ns}-app"
    quotas = [
        {"user": user, "producer_byte_rate": 1048576, "request_percentage": 50},
        {"client_id": app, "controller_mutation_rate": 10, "consumer_byte_rate": 2097152},
    ]
    repo = _repo(tmp_path, cl, ns, quotas)
    plan = repo.run("plan", "--cluster", "test", "--format", "json")
    assert plan.code == 0, plan.stderr
    changes = plan.json()["quotas"]
    assert [(c["entity"], c["key"], c["before"], c["after"]) for c in changes] == [
        ({"client_id": app}, "consumer_byte_rate", None, 2097152),
        ({"client_id": app}, "controller_mutation_rate", None, 10),
        ({"user": user}, "producer_byte_rate", None, 1048576),
        ({"user": user}, "request_percentage", None, 50),
    ]
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stderr
    seen = shown(cl, dist)
    assert seen[f"user={user}"] == {"producer_byte_rate": 1048576, "request_percentage": 50}
    assert seen[f"client-id={app}"] == {"consumer_byte_rate": 2097152,
                                        "controller_mutation_rate": 10}  # fmt: skip
    again = repo.run("plan", "--cluster", "test")
    assert "No changes" in again.stdout, again.stdout

    # out of band: raised by hand; the plan sets the spec's value back (a lowering: approved)
    kafka_admin(cl, dist, "alter", "user", user, "producer_byte_rate", "4194304")
    drifted = repo.run("plan", "--cluster", "test")
    line = f"~ quota user={user} producer_byte_rate: 4194304 -> 1048576"
    assert line in " ".join(drifted.stdout.split()), drifted.stdout
    assert "hazard quota_lower (needs acknowledgment)" in drifted.stdout
    report = repo.run("drift", "--cluster", "test", "--format", "json")
    assert report.code == 2, report.stderr
    assert report.json()["quotas"] == [{"entity": f"user={user}", "key": "producer_byte_rate",
                                        "desired": 1048576, "current": 4194304}]  # fmt: skip


def test_lowering_or_removing_a_quota_is_refused_until_the_cluster_approves_it(
    cluster: tuple[LocalCluster, Distribution], ns: str, tmp_path: Path
) -> None:
    cl, dist = cluster
    user, every = f"{ns}-batch", f"{ns}-batch"
    first = [{"user": user, "consumer_byte_rate": 2097152},
             {"user": every, "client_id": "<default>", "request_percentage": 80}]  # fmt: skip
    assert _repo(tmp_path, cl, ns, first).run("apply", "--cluster", "test",
                                              "--auto-approve").code == 0  # fmt: skip
    lowered = [{"user": user, "consumer_byte_rate": 1048576}]  # and the second one removed
    repo = _repo(tmp_path, cl, ns, lowered)
    refused = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert refused.code != 0
    said = " ".join(refused.stderr.split())
    assert "the cluster's `policy.acknowledge:` in reconciler.yaml" in said, said
    assert shown(cl, dist)[f"user={user}"] == {"consumer_byte_rate": 2097152}  # unchanged
    approve = [
        {"quota_lower": {"key": f"user={user} consumer_byte_rate", "from": 2097152,
                         "to": 1048576}},
        {"quota_remove": {"key": f"user={every},client-id=<default> request_percentage",
                          "from": 80, "to": "none"}},
    ]  # fmt: skip
    repo = _repo(tmp_path, cl, ns, lowered, approve)
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stderr
    seen = shown(cl, dist)
    assert seen[f"user={user}"] == {"consumer_byte_rate": 1048576}
    assert f"user={every},client-id=<default>" not in seen  # its one quota removed


def test_import_quotas_prints_the_managed_quotas_and_pasted_they_plan_no_change(
    cluster: tuple[LocalCluster, Distribution], ns: str, tmp_path: Path
) -> None:
    """`import --quotas`: the quotas Kafka has within policy.manage (this test's namespace; the
    shared cluster's other entities are left out), as a `quotas:` block that, pasted into a
    repository without quotas, plans "No changes"."""
    cl, dist = cluster
    user, app = f"{ns}-imp", f"{ns}-imp-app"
    quotas = [
        {"user": user, "producer_byte_rate": 1048576, "request_percentage": 12.5},
        {"user": user, "client_id": "<default>", "consumer_byte_rate": 2048},
        {"client_id": app, "controller_mutation_rate": 3},
    ]
    made = _repo(tmp_path / "made", cl, ns, quotas)
    assert made.run("apply", "--cluster", "test", "--auto-approve").code == 0
    outside = f"z{ns}-other"  # set by hand, outside this repository's policy.manage
    kafka_admin(cl, dist, "alter", "user", outside, "producer_byte_rate", "777")
    fresh = _repo(tmp_path / "fresh", cl, ns, None)
    printed = fresh.run("import", "--cluster", "test", "--quotas")
    assert printed.code == 0, printed.stderr
    block = yaml.safe_load(printed.stdout)
    assert outside not in printed.stdout
    assert sorted(map(str, block["quotas"])) == sorted(map(str, [
        {"user": user, "producer_byte_rate": 1048576, "request_percentage": 12.5},
        {"user": user, "client_id": "<default>", "consumer_byte_rate": 2048},
        {"client_id": app, "controller_mutation_rate": 3},
    ]))  # fmt: skip
    pasted = _repo(tmp_path / "pasted", cl, ns, block["quotas"])
    planned = pasted.run("plan", "--cluster", "test")
    assert planned.code == 0 and "No changes" in planned.stdout, planned.stdout + planned.stderr


@pytest.fixture(scope="module")
def before_2_6(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """Kafka 2.5.1 (ZooKeeper mode): the last release without DescribeClientQuotas (KIP-546)."""
    yield from start_version(request, tmp_path_factory, "2.5.1", 1)


def test_below_kafka_2_6_quotas_are_one_sentence_and_a_spec_without_them_plans_as_before(
    before_2_6: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "with", before_2_6, ns, [{"user": f"{ns}-a", "producer_byte_rate": 1}])
    refused = repo.run("plan", "--cluster", "test")
    assert refused.code == 1
    said = " ".join(refused.stderr.split())
    assert "runs Kafka 2.5" in said and "client quotas need Kafka 2.6 or later" in said, said
    assert "nothing was changed" in said
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 1 and "need Kafka 2.6 or later" in applied.stderr
    # without `quotas:` no quota request is sent: the plan is the topics' alone
    plain = _repo(tmp_path / "without", before_2_6, ns, None)
    plain.topics({"name": f"{ns}.t", "partitions": 1, "replication_factor": 1})
    planned = plain.run("plan", "--cluster", "test")
    assert planned.code == 0, planned.stderr
    assert "+ create" in planned.stdout and "quota change" not in planned.stdout.lower()


def test_one_request_reads_every_quota_one_changes_them_and_none_without_quotas(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Counted in the broker's own request log by each repository's client.id: the number of
    requests does not grow with the entities, and a cluster without `quotas:` sends none."""
    many = [{"user": f"{ns}-u{i}", "client_id": f"{ns}-c{i % 3}", "producer_byte_rate": 1000 + i}
            for i in range(30)]  # fmt: skip
    client_id = f"quotas-{ns}".replace(".", "-")
    repo = _repo(tmp_path / "with", kafka1, ns, many, client_id=client_id)
    planned = repo.run("plan", "--cluster", "test", "--format", "json")
    assert planned.code == 0, planned.stderr
    assert len(planned.json()["quotas"]) == 30
    assert requests_by(kafka1, client_id)["DESCRIBE_CLIENT_QUOTAS"] == 1
    applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stderr
    assert requests_by(kafka1, client_id)["ALTER_CLIENT_QUOTAS"] == 1
    assert len([e for e in shown(kafka1, ensure_distribution()) if ns in e]) == 30

    plain_id = f"noquotas-{ns}".replace(".", "-")
    plain = _repo(tmp_path / "without", kafka1, ns, None, client_id=plain_id)
    plain.topics({"name": f"{ns}.t", "partitions": 1, "replication_factor": 1})
    assert plain.run("plan", "--cluster", "test").code == 0
    sent = requests_by(kafka1, plain_id)
    assert sent["METADATA"] > 0 and sent["DESCRIBE_CLIENT_QUOTAS"] == 0, sent
