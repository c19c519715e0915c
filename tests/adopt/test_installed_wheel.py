"""A team adopts reconciler with nothing but the installed package, as a new user would.

The wheel is built from this checkout and installed into a fresh virtual environment in a
temporary directory; every command then runs from a spec repository outside the checkout, so
anything read at run time that is not package data fails here first. Against the real
three-broker cluster: init, import of topics made outside the tool, validate, plan (no
changes), an edit, plan (changes), apply, drift (in sync), an out-of-band change, drift (2).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from reconciler import __version__
from reconciler.local.state import LocalCluster
from tests.adopt.conftest import Installed
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kafka


def test_the_installed_package_knows_its_version_and_ships_its_files(
    installed: Installed, tmp_path: Path
) -> None:
    version = installed.run(tmp_path, "--version")
    assert version.returncode == 0 and __version__ in version.stdout
    where = subprocess.run(
        [str(installed.bin / "python"), "-c", "import reconciler; print(reconciler.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout


def test_adopt_an_existing_cluster_end_to_end(
    installed: Installed, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    # A cluster populated outside the tool: varied counts, configs, and a manual assignment that
    # puts every leader on broker 1 (not what Kafka's placer would do).
    topics = [
        NewTopic(
            f"{ns}.orders", 6, 3, config={"retention.ms": "604800000", "min.insync.replicas": "2"}
        ),
        NewTopic(
            f"{ns}.events",
            3,
            2,
            config={"cleanup.policy": "compact", "segment.bytes": "1073741824"},
        ),
        NewTopic(f"{ns}.plain", 1, 1),
        NewTopic(f"{ns}.pinned", 3, replica_assignment=[[1, 2], [1, 3], [1, 2]]),
    ]
    for future in admin.create_topics(topics).values():
        future.result()
    for t in topics:
        wait_for_topic(admin, t.topic)

    repo = tmp_path / "specs"
    init = installed.run(
        tmp_path, "init", str(repo), "--bootstrap", kafka3.bootstrap, "--cluster", "test"
    )
    assert init.returncode == 0, init.stdout + init.stderr
    for made in (
        "reconciler.yaml",
        "topics",
        "schemas/topics.schema.json",
        ".github/workflows/plan.yml",
    ):
        assert (repo / made).exists(), made
    again = installed.run(tmp_path, "init", str(repo), "--bootstrap", kafka3.bootstrap)
    assert again.returncode == 1 and "never overwrites" in again.stderr
    # This test shares its cluster with others: its repository manages its own topics only.
    config = (repo / "reconciler.yaml").read_text()
    config = config.replace("ignore: ['^_', '^connect-']", f"ignore: ['^(?!{ns})']")
    (repo / "reconciler.yaml").write_text(config)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return installed.run(repo, *args)

    imported = cli("import", "--cluster", "test")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert cli("validate").returncode == 0
    plan = cli("plan", "--cluster", "test", "--detailed-exitcode")
    assert plan.returncode == 0, plan.stdout + plan.stderr

    (repo / "topics" / "new.yaml").write_text(
        f"topics:\n  - name: {ns}.added\n    partitions: 2\n    config:\n      retention.ms: 1d\n"
    )
    changed = cli("plan", "--cluster", "test", "--detailed-exitcode")
    assert changed.returncode == 2, changed.stdout + changed.stderr
    assert f"{ns}.added" in changed.stdout
    applied = cli("apply", "--cluster", "test", "--auto-approve")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    in_sync = cli("drift", "--cluster", "test")
    assert in_sync.returncode == 0, in_sync.stdout + in_sync.stderr

    resource = ConfigResource(
        ConfigResource.Type.TOPIC,
        f"{ns}.events",
        incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    wait_for_config(admin, f"{ns}.events", "retention.ms", "3600000")
    drifted = cli("drift", "--cluster", "test")
    assert drifted.returncode == 2, drifted.stdout + drifted.stderr
    assert f"{ns}.events  retention.ms: spec not set, cluster 3600000 (1h)" in drifted.stdout
