"""Shared helpers of the apply tests: spec repos with a unique client.id, independent reads."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, ResourceType

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import clients
from tests.spec_repo import SpecRepo


def repo_with_client_id(
    root: Path, cl: LocalCluster, ns: str, policy: dict[str, Any] | None = None
) -> tuple[SpecRepo, str]:
    """A SpecRepo whose cluster `test` sends a client.id of its own (for request counting)."""
    repo = SpecRepo(root, cl.bootstrap, ns, policy)
    client_id = f"apply-{uuid.uuid4().hex[:8]}"
    config = yaml.safe_load((root / "reconciler.yaml").read_text())
    config["clusters"]["test"]["client"] = {"client.id": client_id}
    repo.write("reconciler.yaml", config)
    return repo, client_id


def independent_read(bootstrap: str, prefix: str) -> dict[str, dict[str, Any]]:
    """Partitions, replicas, ISR and overrides of the topics under `prefix`, read by librdkafka
    directly (not through reconciler's adapter)."""
    with clients(bootstrap) as made:
        admin = made.admin()
        md = admin.list_topics(timeout=10)
        names = sorted(t for t in md.topics if t.startswith(prefix))
        found: dict[str, dict[str, Any]] = {}
        for name in names:
            parts = md.topics[name].partitions
            found[name] = {
                "partitions": len(parts),
                "replicas": [list(parts[p].replicas) for p in sorted(parts)],
                "isr": [sorted(parts[p].isrs) for p in sorted(parts)],
                "overrides": {},
            }
        if names:
            resources = [ConfigResource(ResourceType.TOPIC, n) for n in names]
            for resource, future in admin.describe_configs(resources).items():
                found[resource.name]["overrides"] = {
                    k: e.value
                    for k, e in future.result().items()
                    if e.source == 1  # DYNAMIC_TOPIC_CONFIG
                }
        return found


def chain(ns: str, length: int) -> list[dict[str, object]]:
    """Topics t00 <- t01 <- ...: each depends on the previous, so each is its own level."""
    return [
        {"name": f"{ns}.t{i:02d}", "partitions": 1, "replication_factor": 1,
         **({"depends_on": [f"{ns}.t{i - 1:02d}"]} if i else {})}
        for i in range(length)
    ]  # fmt: skip


def wait_until(check: Callable[[], object], timeout: float = 60.0) -> None:
    """Poll `check` until it is true; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


THROTTLE_KEYS = {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}


def dynamic_configs(admin: AdminClient, kind: ResourceType, name: str) -> dict[str, str]:
    """The dynamic configs of a topic or broker (`kind`), as an operator's tools show them."""
    resource = ConfigResource(kind, name)
    entries = admin.describe_configs([resource])[resource].result()
    own = {ConfigSource.DYNAMIC_TOPIC_CONFIG.value, ConfigSource.DYNAMIC_BROKER_CONFIG.value}
    return {k: e.value for k, e in entries.items() if e.source in own}
