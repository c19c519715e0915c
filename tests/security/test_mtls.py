"""Mutual TLS on a real broker (`local up --security mtls`: `ssl.client.auth=required`), setting
by setting, with both Kafka clients: librdkafka (DescribeCluster) and kafka-python
(ListPartitionReassignments, which only it sends). A PKCS#12 keystore plans, applies and reports
drift; the same key pair as PEM files or PEM text, a PKCS#12 or PEM truststore, each connects
both clients; no client certificate is refused by both; a name the broker's certificate does not
list is refused by both with the same sentence, and accepted by both once the name check (or all
verification) is off."""

from __future__ import annotations

import contextlib
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions

from reconciler.cluster.adapter import Cluster, Connection, probe
from reconciler.errors import ClusterError
from reconciler.local import security
from reconciler.local.state import LocalCluster
from tests.security import certificates
from tests.security.conftest import Transcript, admin_of, topics_view, write_repo

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def admin(mtls: LocalCluster) -> AdminClient:
    return admin_of(mtls)


def _sec(cl: LocalCluster) -> Path:
    return cl.state_dir / "security"


def _password(cl: LocalCluster) -> str:
    return cl.client_config()["ssl.keystore.password"]


def _both(cl: LocalCluster, client: dict[str, str], bootstrap: str | None = None) -> None:
    """librdkafka's and kafka-python's requests both answered with these settings, each on a
    connection of its own (so neither rides on the other's success)."""
    settings = tuple(sorted({"security.protocol": "SSL", **client}.items()))
    with Cluster(Connection("sec", bootstrap or cl.bootstrap, settings, 20.0)) as kafka:
        assert [b.id for b in kafka.describe().brokers] == [1]
    with Cluster(Connection("sec", bootstrap or cl.bootstrap, settings, 20.0)) as kafka:
        assert kafka.reassignments() == ()


def _refused(cl: LocalCluster, client: dict[str, str], bootstrap: str) -> tuple[str, str]:
    """The sentence of librdkafka's refusal and of kafka-python's, each on its own connection."""
    settings = tuple(sorted({"security.protocol": "SSL", **client}.items()))

    def librdkafka(kafka: Cluster) -> object:
        return kafka.describe()

    def kafka_python(kafka: Cluster) -> object:
        return kafka.reassignments()

    said = []
    for read in (librdkafka, kafka_python):
        with (
            pytest.raises(ClusterError) as caught,
            Cluster(Connection("sec", bootstrap, settings, 8.0)) as kafka,
        ):
            read(kafka)
        said.append(str(caught.value))
    return said[0], said[1]


def test_the_keystore_snippet_plans_applies_and_reports_drift(
    mtls: LocalCluster, admin: AdminClient, transcript: Transcript, tmp_path: Path
) -> None:
    """The reconciler.yaml snippet `local up --security mtls` wrote (a PKCS#12 keystore) works
    for every command: plan and drift read reassignments through kafka-python."""
    transcript.dirs.append(tmp_path)
    snippet = (_sec(mtls) / security.CLIENT_YAML).read_text()
    assert "client.p12" in snippet and "${RECONCILER_LOCAL_PASSWORD}" in snippet
    env = {"RECONCILER_LOCAL_PASSWORD": _password(mtls)}
    prefix = f"mtls.{uuid.uuid4().hex[:6]}."
    client = {"security.protocol": "SSL", "ssl.ca.location": str(_sec(mtls) / "ca.pem"),
              "ssl.keystore.location": str(_sec(mtls) / "client.p12"),
              "ssl.keystore.password": "${RECONCILER_LOCAL_PASSWORD}"}  # fmt: skip
    topics = [{"name": f"{prefix}a", "partitions": 2, "replication_factor": 1}]
    repo = write_repo(tmp_path, mtls.bootstrap, prefix, client, topics)
    planned = transcript.run(repo, "plan", "--cluster", "sec", env=env)
    assert planned.code == 0 and f"{prefix}a" in planned.stdout, planned.stderr
    applied = transcript.run(repo, "apply", "--auto-approve", "--cluster", "sec", env=env)
    assert applied.code == 0, applied.stderr
    assert topics_view(admin, prefix)[f"{prefix}a"]["partitions"] == 2
    clean = transcript.run(repo, "drift", "--cluster", "sec", env=env)
    assert clean.code == 0, clean.stderr
    admin.create_partitions([NewPartitions(f"{prefix}a", 3)])[f"{prefix}a"].result(30)
    drifted = transcript.run(repo, "drift", "--cluster", "sec", env=env)
    assert drifted.code == 2, drifted.stderr


@pytest.mark.parametrize("form", ["keystore", "pem files", "pem text"])
@pytest.mark.parametrize("trust", ["ca file", "pkcs12 truststore", "pem truststore", "ca pem"])
def test_each_form_of_the_key_pair_and_the_cas_connects_both_clients(
    mtls: LocalCluster, tmp_path: Path, form: str, trust: str
) -> None:
    sec, password = _sec(mtls), _password(mtls)
    chain, key = certificates.from_keystore(sec / "client.p12", password)
    (tmp_path / "client.pem").write_text(chain)
    (tmp_path / "client.key").write_text(certificates.reencrypt(key, "key-pass"))
    ca_pem = (sec / "ca.pem").read_text()
    store = security.broker_properties(mtls.state_dir, "mtls")["ssl.truststore.password"]
    keys = {
        "keystore": {"ssl.keystore.location": str(sec / "client.p12"),
                     "ssl.keystore.password": password},
        "pem files": {"ssl.certificate.location": str(tmp_path / "client.pem"),
                      "ssl.key.location": str(tmp_path / "client.key"),
                      "ssl.key.password": "key-pass"},
        "pem text": {"ssl.certificate.pem": chain,
                     "ssl.key.pem": certificates.reencrypt(key, "key-pass"),
                     "ssl.key.password": "key-pass"},
    }  # fmt: skip
    cas = {
        "ca file": {"ssl.ca.location": str(sec / "ca.pem")},
        "pkcs12 truststore": {"ssl.truststore.location": str(sec / "truststore.p12"),
                              "ssl.truststore.password": store},
        "pem truststore": {"ssl.truststore.location": str(sec / "ca.pem")},
        "ca pem": {"ssl.ca.pem": ca_pem},
    }  # fmt: skip
    _both(mtls, {**keys[form], **cas[trust]})


def test_no_client_certificate_is_refused_by_both(mtls: LocalCluster) -> None:
    first, second = _refused(mtls, {"ssl.ca.location": str(_sec(mtls) / "ca.pem")},
                             mtls.bootstrap)  # fmt: skip
    for said in (first, second):
        assert f"cluster 'sec' at {mtls.bootstrap}" in said, said


@contextlib.contextmanager
def _relay(target: str) -> Iterator[str]:
    """A TCP relay on 127.0.0.2 (an address the broker's certificate does not list) to the
    broker: what a client reaches is the real broker, by a name its certificate lacks."""
    host, port = target.rsplit(":", 1)
    server = socket.create_server(("127.0.0.2", 0))
    stop = threading.Event()

    def pipe(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted, _ = server.accept()
            except TimeoutError:
                continue
            upstream = socket.create_connection((host, int(port)))
            for a, b in ((accepted, upstream), (upstream, accepted)):
                threading.Thread(target=pipe, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.2:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        server.close()


def test_a_name_the_certificate_lacks_is_the_same_sentence_from_both(mtls: LocalCluster) -> None:
    sec = _sec(mtls)
    client = {"ssl.ca.location": str(sec / "ca.pem"),
              "ssl.keystore.location": str(sec / "client.p12"),
              "ssl.keystore.password": _password(mtls)}  # fmt: skip
    with _relay(mtls.bootstrap) as elsewhere:
        first, second = _refused(mtls, client, elsewhere)
        assert first == second
        assert first.startswith(f"the TLS handshake with cluster 'sec' at {elsewhere} failed (")
        assert (
            "certificate verify failed: IP address mismatch, certificate is not valid for "
            "'127.0.0.2'" in first
        )
        assert "does not name the address it was reached at" in first
        assert "ssl.endpoint.identification.algorithm: none" in first
        # Both accept once the name check is off, or all verification; the advertised
        # address (127.0.0.1) is then used, which the certificate lists anyway.
        _both(mtls, {**client, "ssl.endpoint.identification.algorithm": "none"}, elsewhere)
        _both(mtls, {**client, "enable.ssl.certificate.verification": "false"}, elsewhere)


def test_no_keystore_password_in_anything_printed_or_written(
    mtls: LocalCluster, transcript: Transcript
) -> None:
    transcript.dirs.append(mtls.state_dir / "n1" / "kafka.log")
    assert len(transcript.runs) >= 4
    assert transcript.leaks(_password(mtls)) == []


def test_the_probe_presents_the_client_certificate(mtls: LocalCluster) -> None:
    """The probe that names silent brokers asks with the same key pair: a broker requiring
    client certificates answers it, and would not answer a probe without one."""
    sec = _sec(mtls)
    ca = {"security.protocol": "SSL", "ssl.ca.location": str(sec / "ca.pem")}
    keystore = {"ssl.keystore.location": str(sec / "client.p12"),
                "ssl.keystore.password": _password(mtls)}  # fmt: skip
    with_key = Connection("sec", mtls.bootstrap, tuple(sorted({**ca, **keystore}.items())), 10.0)
    assert probe.unanswered(with_key, []) == []
    without = Connection("sec", mtls.bootstrap, tuple(sorted(ca.items())), 10.0)
    assert [why for _, why in probe.unanswered(without, [])] != []
