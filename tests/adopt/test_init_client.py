"""`init --client KEY=VALUE`: the settings plan reads from `client:`, written there as given and
checked as plan checks them; a literal secret or a malformed option refuses, writing nothing.
(Logging in with them against a SASL cluster: tests/security/test_sasl_acls.py.) How long init
waits for the cluster: `--timeout`, as every command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reconciler.cluster import wait_limit
from reconciler.errors import ClusterError, ConfigError
from reconciler.init_repo import client_pairs, scaffold
from reconciler.workflow.connection import INIT_WAIT, init_client, reported_cluster
from reconciler.workflow.context import Context
from tests.spec_repo import RECONCILER

SASL = (
    ("security.protocol", "SASL_SSL"),
    ("sasl.mechanism", "SCRAM-SHA-512"),
    ("sasl.username", "${KAFKA_USERNAME}"),
    ("sasl.password", "${KAFKA_PASSWORD}"),
)


def _write(root: Path, client: tuple[tuple[str, str], ...]) -> None:
    for new in scaffold("prod", "kafka-1.example.com:9092", client=client):
        (root / new.path).parent.mkdir(parents=True, exist_ok=True)
        (root / new.path).write_text(new.text)


def test_the_settings_are_written_as_given_and_read_as_plan_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, SASL)
    text = (tmp_path / "reconciler.yaml").read_text()
    assert '"sasl.password": "${KAFKA_PASSWORD}"' in text
    monkeypatch.setenv("KAFKA_USERNAME", "svc")
    monkeypatch.setenv("KAFKA_PASSWORD", "s3cret-value")
    assert dict(init_client(tmp_path, "prod")) == {
        **dict(SASL),
        "sasl.username": "svc",
        "sasl.password": "s3cret-value",
    }
    assert dict(Context(tmp_path).cluster_config("prod").client) == dict(
        init_client(tmp_path, "prod")
    )


def test_without_settings_the_file_keeps_the_commented_example(tmp_path: Path) -> None:
    _write(tmp_path, ())
    text = (tmp_path / "reconciler.yaml").read_text()
    assert "    client: {}\n    # client:\n" in text
    assert init_client(tmp_path, "prod") == ()


def test_a_value_without_key_is_one_sentence() -> None:
    with pytest.raises(ConfigError, match=r"--client 'sasl.password': give KEY=VALUE"):
        client_pairs(("sasl.password",))
    assert client_pairs(("a=b=c",)) == (("a", "b=c"),)


@pytest.mark.parametrize(
    ("client", "says"),
    [
        ("sasl.password=hunter2", "the secret sasl.password of cluster prod is written literally"),
        ("sasl.password=${UNSET_FOR_THIS_TEST}", "UNSET_FOR_THIS_TEST is not set"),
        ("no-equals-sign", "give KEY=VALUE"),
    ],
)
def test_a_refused_setting_writes_nothing(tmp_path: Path, client: str, says: str) -> None:
    repo = tmp_path / "specs"
    env = {k: v for k, v in os.environ.items() if k != "UNSET_FOR_THIS_TEST"}
    done = subprocess.run(
        [*RECONCILER, "init", str(repo), "--bootstrap", "127.0.0.1:1", "--cluster", "prod",
         "--client", "security.protocol=SASL_PLAINTEXT", "--client", "sasl.mechanism=PLAIN",
         "--client", "sasl.username=u", "--client", client],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "hunter2" not in done.stdout + done.stderr
    assert not repo.exists()


@pytest.mark.parametrize(("given", "waited"), [(None, INIT_WAIT), (1.0, 1.0), (45.0, 45.0)])
def test_init_asks_the_cluster_for_as_long_as_timeout_says(
    monkeypatch: pytest.MonkeyPatch, given: float | None, waited: float
) -> None:
    """`--timeout` bounds init's one question to the cluster as it bounds every other
    command's; without it init waits INIT_WAIT, and goes on without the cluster's id."""
    from reconciler.cluster import adapter

    asked: list[float | None] = []

    def unanswered(connection: adapter.Connection) -> adapter.Cluster:
        asked.append(connection.timeout)
        raise ClusterError("did not answer")

    monkeypatch.setattr(adapter, "Cluster", unanswered)
    with wait_limit.limited(given):
        reported = reported_cluster("prod", "kafka-1.example.com:9092")
    assert asked == [waited]
    assert (reported.cluster_id, reported.refused) == (None, "did not answer")
