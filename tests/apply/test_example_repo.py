"""The example repository (reconciler.yaml + topics/) applied to the real three-broker cluster.

Its `local` cluster reads the bootstrap from $KAFKA_BOOTSTRAP, as `make demo` sets it. After
apply, a plan is empty and librdkafka, read directly, shows what the specs say.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from reconciler.spec.loader import load_repo
from reconciler.spec.model import Presence as SpecState
from tests.apply.helpers import independent_read
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example(tmp_path: Path, kafka3: LocalCluster) -> Iterator[Path]:
    repo = tmp_path / "example"
    repo.mkdir()
    shutil.copy(ROOT / "reconciler.yaml", repo / "reconciler.yaml")
    shutil.copytree(ROOT / "topics", repo / "topics")
    yield repo
    names = set(load_repo(repo, "local").desired["local"].topics)
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    present = [t for t in admin.list_topics(timeout=10).topics if t in names]
    for future in admin.delete_topics(present, operation_timeout=30).values() if present else ():
        future.result()


def test_example_repository_applies_and_converges(example: Path, kafka3: LocalCluster) -> None:
    applied = run_cli(
        example, kafka3.bootstrap, "apply", "--cluster", "local", "--auto-approve", timeout=300
    )
    assert applied.code == 0, applied.stdout + applied.stderr

    again = run_cli(example, kafka3.bootstrap, "plan", "--cluster", "local", "--detailed-exitcode")
    assert again.code == 0, again.stdout + again.stderr

    specs = load_repo(example, "local").desired["local"].topics
    live = {s.name for s in specs.values() if s.state is SpecState.PRESENT}
    seen = {
        name: topic
        for name, topic in independent_read(kafka3.bootstrap, "").items()
        if name in specs
    }
    assert set(seen) == live  # the tombstoned topic is not there, every other one is
    for name in live:
        spec, topic = specs[name], seen[name]
        assert topic["partitions"] == (spec.partitions or 3), name
        assert {len(r) for r in topic["replicas"]} == {spec.replication_factor or 2}, name
        assert topic["overrides"] == dict(spec.config), name
        if spec.assignments:
            assert [tuple(r) for r in topic["replicas"]] == list(spec.assignments), name
