"""One cluster's settings only, on a real broker: with another cluster's variables unset (a CI
job holding one environment's secrets), every command for this cluster passes, and the
commands for the other fail with R502 before reaching any cluster."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests import cli_fork
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import Result, SpecRepo

pytestmark = pytest.mark.kafka

STAGING_BOOTSTRAP = "RECONCILER_TEST_STAGING_BOOTSTRAP"
STAGING_PASSWORD = "RECONCILER_LOCAL_PASSWORD"  # the issue's: `local up`'s name


def with_staging(repo: SpecRepo) -> None:
    """A second cluster whose every setting comes from a variable this job does not have."""
    config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
    config["clusters"]["staging"] = {
        "bootstrap": f"${{{STAGING_BOOTSTRAP}}}",
        "client": {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "reconciler",
            "sasl.password": f"${{{STAGING_PASSWORD}}}",
        },
    }
    repo.write("reconciler.yaml", config)


def run(repo: SpecRepo, *args: str, staging: dict[str, str] | None = None) -> Result:
    """`reconciler --repo REPO ARGS` with staging's variables unset (or set to `staging`)."""
    env = {k: v for k, v in os.environ.items() if k not in (STAGING_BOOTSTRAP, STAGING_PASSWORD)}
    env |= {"KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1", **(staging or {})}
    proc = cli_fork.run(["--repo", str(repo.root), *args], env=env, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return Result(proc.returncode, proc.stdout, proc.stderr)


def test_every_command_for_one_cluster_passes_while_another_clusters_variables_are_unset(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    with_staging(repo)
    topic = {"name": f"{ns}.orders", "partitions": 1, "replication_factor": 1}
    repo.topics(topic)

    checked = run(repo, "validate")
    assert checked.code == 0, checked.stdout
    for name in (STAGING_BOOTSTRAP, STAGING_PASSWORD):
        assert f"warning[R502]: environment variable {name} is not set" in checked.stdout
    assert checked.stdout.count("commands for cluster staging fail until it is set") == 2
    checked = run(repo, "validate", "--cluster", "test")
    assert (checked.code, "R502" in checked.stdout) == (0, False), checked.stdout

    saved = tmp_path / "plan.json"
    planned = run(repo, "plan", "--cluster", "test", "-o", str(saved))
    assert planned.code == 0, planned.stdout + planned.stderr
    assert "R502" not in planned.stdout + planned.stderr
    assert [c["topic"] for c in json.loads(saved.read_text())["changes"]] == [topic["name"]]
    applied = run(repo, "apply", str(saved))  # the saved plan's cluster: test
    assert applied.code == 0, applied.stdout + applied.stderr

    repo.topics({**topic, "partitions": 2})
    applied = run(repo, "apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stdout + applied.stderr
    drift = run(repo, "drift", "--cluster", "test")
    assert drift.code == 0, drift.stdout + drift.stderr

    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics([NewTopic(f"{ns}.extra", 1, 1)]).values():
        future.result()
    wait_for_topic(admin, f"{ns}.extra")
    imported = run(repo, "import", "--cluster", "test")
    assert imported.code == 0, imported.stdout + imported.stderr
    assert "Imported 1 topic(s) of cluster 'test'" in imported.stdout

    snapshot = tmp_path / "snapshot.json"
    taken = run(repo, "snapshot", "--cluster", "test", "-o", str(snapshot))
    assert taken.code == 0, taken.stdout + taken.stderr
    offline = run(repo, "plan", "--cluster", "test", "--state", str(snapshot))
    assert offline.code == 0, offline.stdout + offline.stderr

    # Staging's own commands need its variables: the R502 error, before any connection
    for args in (
        ("plan", "--cluster", "staging"),
        ("apply", "--cluster", "staging", "--auto-approve"),
        ("drift", "--cluster", "staging"),
        ("snapshot", "--cluster", "staging"),
        ("validate", "--cluster", "staging"),
    ):
        refused = run(repo, *args)
        assert refused.code == 1, (args, refused.stdout, refused.stderr)
        shown = refused.stdout + refused.stderr
        assert f"error[R502]: environment variable {STAGING_BOOTSTRAP} is not set" in shown, args


def test_another_clusters_variables_are_never_expanded(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    """Set to values that make staging's entry invalid once expanded, they fail validate of
    every cluster and nothing of the test cluster's."""
    repo = SpecRepo(tmp_path / "repo", kafka1.bootstrap, ns)
    with_staging(repo)
    repo.topics({"name": f"{ns}.orders", "partitions": 1, "replication_factor": 1})
    broken = {STAGING_BOOTSTRAP: "::not-a-bootstrap", STAGING_PASSWORD: "x"}
    everything = run(repo, "validate", staging=broken)
    assert everything.code == 1 and "error[R507]" in everything.stdout, everything.stdout
    saved = str(tmp_path / "plan.json")
    for args in (
        ("validate", "--cluster", "test"),
        ("compile", "--cluster", "test", "--out", str(tmp_path / "out")),
        ("plan", "--cluster", "test", "-o", saved),
        ("apply", saved),
        ("apply", "--cluster", "test", "--auto-approve"),
        ("drift", "--cluster", "test"),
        ("import", "--cluster", "test"),  # renders every cluster's topics, reads test's settings
        ("snapshot", "--cluster", "test", "-o", str(tmp_path / "s.json")),
    ):
        done = run(repo, *args, staging=broken)
        assert done.code == 0, (args, done.stdout, done.stderr)
