"""TLS on a real broker: the client trusting the CA made by `local up --security tls` works; a
client pointed at another CA fails with one sentence, with nothing changed; no secret of the
cluster (the key store password) shows up in what the tool printed or wrote."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.local import certificates, security
from reconciler.local.state import LocalCluster
from reconciler.local.toolchain import find_java
from tests.security.conftest import Transcript, admin_of, topics_view, write_repo

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def admin(tls: LocalCluster) -> AdminClient:
    return admin_of(tls)


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA of its own (made the same way), which never signed the broker's certificate."""
    directory = tmp_path_factory.mktemp("other-ca")
    certificates.make(directory, uuid.uuid4().hex, find_java()[0], cn="other")
    return directory / "ca.pem"


def _client(ca: Path) -> dict[str, str]:
    return {"security.protocol": "SSL", "ssl.ca.location": str(ca)}


def test_trusted_ca_plans_and_applies(
    tls: LocalCluster, admin: AdminClient, transcript: Transcript, tmp_path: Path
) -> None:
    """The reconciler.yaml snippet `local up --security tls` wrote works as it is."""
    transcript.dirs.append(tmp_path)
    prefix = f"tls.{uuid.uuid4().hex[:6]}."
    snippet = (tls.state_dir / "security" / security.CLIENT_YAML).read_text()
    assert 'security.protocol: "SSL"' in snippet and "ca.pem" in snippet
    topics = [{"name": f"{prefix}a", "partitions": 2, "replication_factor": 1}]
    ca = tls.state_dir / "security" / "ca.pem"
    repo = write_repo(tmp_path, tls.bootstrap, prefix, _client(ca), topics)
    applied = transcript.run(repo, "apply", "--auto-approve", "--cluster", "sec", env={})
    assert applied.code == 0, applied.stderr
    assert topics_view(admin, prefix)[f"{prefix}a"]["partitions"] == 2
    status = transcript.run(tmp_path, "local", "--state-dir", str(tls.state_dir), "status",
                            env={})  # fmt: skip
    assert status.code == 0, status.stderr
    assert f"security: SSL listener, server certificate signed by the CA {ca}" in status.stdout
    assert "credentials: " in status.stdout


@pytest.mark.parametrize("command", [("plan",), ("apply", "--auto-approve")])
def test_untrusted_certificate_is_one_sentence(
    tls: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    other_ca: Path,
    tmp_path: Path,
    command: tuple[str, ...],
) -> None:
    """A client trusting another CA: exit 1, one sentence naming the failed certificate check
    and the CA file it used, as soon as the handshake fails (a 10-minute request timeout would
    outlast the run's 3-minute bound); the cluster unchanged."""
    transcript.dirs.append(tmp_path)
    prefix = f"tls.{uuid.uuid4().hex[:6]}."
    shutil.copy(other_ca, tmp_path / "ca.pem")
    client = {**_client(tmp_path / "ca.pem"), "request.timeout.ms": "600000"}
    topics = [{"name": f"{prefix}a", "partitions": 1, "replication_factor": 1}]
    repo = write_repo(tmp_path, tls.bootstrap, prefix, client, topics)
    result = transcript.run(repo, *command, "--cluster", "sec", env={})
    assert result.code == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    assert f"the TLS handshake with cluster 'sec' at {tls.bootstrap} failed" in lines[0]
    assert "certificate verify failed" in lines[0]
    assert f"ssl.ca.location ({tmp_path / 'ca.pem'})" in lines[0]
    assert topics_view(admin, prefix) == {}


def test_no_store_password_in_anything_printed_or_written(
    tls: LocalCluster, transcript: Transcript
) -> None:
    """The key/trust store password never leaves the 0600 files of the state directory."""
    secret = security.broker_properties(tls.state_dir, "tls")["ssl.keystore.password"]
    transcript.dirs.append(tls.state_dir / "n1" / "kafka.log")
    assert len(transcript.runs) >= 4
    assert transcript.leaks(secret) == []
    assert {oct(p.stat().st_mode & 0o777) for p in (tls.state_dir / "security").iterdir()} == {
        "0o600"
    }
