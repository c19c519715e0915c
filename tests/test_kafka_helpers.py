"""tests/kafka_helpers.py's clients: the fixture cluster's own security settings, and every
client closed when its block ends (on the test's thread)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.local.security import SECRETS, security_dir
from reconciler.local.state import LocalCluster
from tests.kafka_helpers import client_settings, clients


def test_a_secured_cluster_gives_its_clients_its_login(tmp_path: Path) -> None:
    """The settings are the cluster's super user's, as `reconciler local` wrote them."""
    security_dir(tmp_path).mkdir(parents=True)
    (security_dir(tmp_path) / SECRETS).write_text("admin.password=s3cret\n")
    cluster = LocalCluster(tmp_path, "4.1.1", "id", (), 0.0, security="sasl_scram")
    settings = client_settings(cluster, {"linger.ms": "0"})
    assert settings["security.protocol"] == "SASL_PLAINTEXT"
    assert (settings["sasl.username"], settings["sasl.password"]) == ("admin", "s3cret")
    assert settings["linger.ms"] == "0"
    assert client_settings("127.0.0.1:9092") == {"bootstrap.servers": "127.0.0.1:9092"}


def test_clients_are_closed_when_the_block_ends(kafka1: LocalCluster, ns: str) -> None:
    """A topic made through the helper is shown; its consumer and producer are closed at the
    block's end (a closed consumer refuses to be used, a closed producer to produce)."""
    with clients(kafka1) as made:
        shown = made.create_topic(f"{ns}.a", partitions=2)
        assert len(shown.partitions) == 2
        consumer = made.consumer()
        producer = made.producer()
        producer.produce(f"{ns}.a", b"one")
    with pytest.raises(RuntimeError, match="closed"):
        consumer.assignment()
    with pytest.raises(RuntimeError, match="closed"):
        producer.produce(f"{ns}.a", b"two")
