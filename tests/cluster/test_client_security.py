"""The security settings of `client:` as each client takes them (reconciler/cluster/
client_settings.py, reconciler/cluster/adapter/client_security.py), without a broker: what is
refused and in which words, and what librdkafka's config and kafka-python's TLS context hold.
The same settings against a real broker: tests/security/test_mtls.py."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from reconciler.cluster import client_settings
from reconciler.cluster.adapter import client_security
from reconciler.cluster.protocol.failures import Unauthenticated
from reconciler.errors import ClusterError
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.security import certificates
from tests.spec_repo import run_cli

SECRET = "s3cret-keystore-password"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A CA, a client key pair it signed, in every form `client:` takes."""
    d = tmp_path_factory.mktemp("pki")
    ca = certificates.make("test-ca")
    client = certificates.make("client", ca)
    files = {
        "ca.pem": ca.cert_pem().encode(),
        "client.pem": client.cert_pem().encode(),
        "client.key": client.key_pem("keypass").encode(),
        "client.p12": certificates.keystore(client, [ca], SECRET),
        "trust.p12": certificates.truststore([ca], SECRET),
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    return {name: d / name for name in files}


def _refused(client: dict[str, str]) -> str:
    with pytest.raises(ClusterError) as caught:
        client_settings.check("prod", client)
    return str(caught.value)


@pytest.mark.parametrize(
    "key",
    ["ssl.engine.location", "ssl.providers", "ssl.sigalgs.list", "ssl.curves.list",
     "sasl.oauthbearer.config", "enable.sasl.oauthbearer.unsecure.jwt", "ssl.keystore.type",
     "ssl_engine_callback_data", "ssl.ca.certificate.stores", "security.providers"],
)  # fmt: skip
def test_a_security_setting_one_client_cannot_take_is_one_sentence(key: str) -> None:
    said = _refused({"security.protocol": "SSL", key: "x"})
    assert said.startswith(f"cluster 'prod': `client:` setting {key} is not one reconciler")
    assert "reconciler help security" in said


@pytest.mark.parametrize(
    "client",
    [
        {"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"},
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "gssapi"},
        {"security.protocol": "SASL_SSL"},  # librdkafka's default mechanism is GSSAPI
        {"security.protocol": "SASL_PLAINTEXT", "sasl.kerberos.service.name": "kafka"},
    ],
)
def test_gssapi_is_said_plainly(client: dict[str, str]) -> None:
    said = _refused(client)
    assert said.startswith("cluster 'prod': GSSAPI (Kerberos) login is not available")
    assert "libsasl2" in said and "from source" in said


def test_the_wheels_librdkafka_really_has_no_gssapi() -> None:
    """The premise of the GSSAPI sentence, asked of the installed librdkafka: if a wheel ever
    carries GSSAPI, this fails and the sentence must change."""
    with pytest.raises(KafkaException, match="No provider for SASL mechanism GSSAPI"):
        AdminClient(
            {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "GSSAPI"},
            logger=QUIET_LIBRDKAFKA,
        )


@pytest.mark.parametrize(
    ("client", "words"),
    [
        ({"sasl.mechanism": "AWS_UNKNOWN", "security.protocol": "SASL_SSL"}, "sasl.mechanism"),
        ({"ssl.endpoint.identification.algorithm": "dns"}, "use https"),
        ({"enable.ssl.certificate.verification": "no"}, "use true or false"),
        ({"ssl.ca.location": "/a", "ssl.truststore.location": "/b"}, "names the CAs twice"),
    ],
)
def test_bad_values_are_one_sentence(client: dict[str, str], words: str) -> None:
    assert words in _refused(client)


def test_every_setting_of_the_table_is_accepted() -> None:
    values = {"ssl.endpoint.identification.algorithm": "none", "sasl.mechanism": "PLAIN",
              "sasl.mechanisms": "PLAIN", "security.protocol": "SSL",
              "enable.ssl.certificate.verification": "true"}  # fmt: skip
    for key in client_settings.TABLE:
        client_settings.check("prod", {key: values.get(key, "x")})


def test_verification_settings_shape_the_context_as_librdkafka_checks() -> None:
    default = client_security.ssl_context("prod", {})
    assert default.verify_mode == ssl.CERT_REQUIRED and default.check_hostname
    no_name = client_security.ssl_context("prod", {"ssl.endpoint.identification.algorithm": "none"})
    assert no_name.verify_mode == ssl.CERT_REQUIRED and not no_name.check_hostname
    off = client_security.ssl_context("prod", {"enable.ssl.certificate.verification": "false"})
    assert off.verify_mode == ssl.CERT_NONE and not off.check_hostname


def test_a_pkcs12_truststore_reaches_both_clients(pki: dict[str, Path]) -> None:
    client = {"security.protocol": "SSL", "ssl.truststore.location": str(pki["trust.p12"]),
              "ssl.truststore.password": SECRET}  # fmt: skip
    conf = client_security.librdkafka_settings("prod", client)
    assert "ssl.truststore.location" not in conf and "ssl.truststore.password" not in conf
    assert conf["ssl.ca.pem"].strip() == pki["ca.pem"].read_text().strip()
    AdminClient(
        {"bootstrap.servers": "127.0.0.1:9", **conf}, logger=QUIET_LIBRDKAFKA
    )  # librdkafka takes it
    context = client_security.kafka_python_settings("prod", client)["ssl_context"]
    assert [c["subject"] for c in context.get_ca_certs()] == [((("commonName", "test-ca"),),)]


def test_a_pem_truststore_is_taken_as_it_is(pki: dict[str, Path]) -> None:
    client = {"ssl.truststore.location": str(pki["ca.pem"])}
    assert client_security.librdkafka_settings("prod", client)["ssl.ca.pem"] == (
        pki["ca.pem"].read_text()
    )


@pytest.mark.parametrize("form", ["keystore", "files", "text"])
def test_the_client_certificate_is_loaded_in_each_form(pki: dict[str, Path], form: str) -> None:
    """Each form yields a context that presents a certificate (load_cert_chain raised
    otherwise), and librdkafka accepts the same settings."""
    forms = {
        "keystore": {"ssl.keystore.location": str(pki["client.p12"]),
                     "ssl.keystore.password": SECRET},
        "files": {"ssl.certificate.location": str(pki["client.pem"]),
                  "ssl.key.location": str(pki["client.key"]), "ssl.key.password": "keypass"},
        "text": {"ssl.certificate.pem": pki["client.pem"].read_text(),
                 "ssl.key.pem": pki["client.key"].read_text(), "ssl.key.password": "keypass"},
    }  # fmt: skip
    client = {"security.protocol": "SSL", "ssl.ca.location": str(pki["ca.pem"]), **forms[form]}
    client_security.ssl_context("prod", client)
    AdminClient({"bootstrap.servers": "127.0.0.1:9", **client_security.librdkafka_settings(
        "prod", client)}, logger=QUIET_LIBRDKAFKA)  # fmt: skip


def test_no_decrypted_key_is_left_on_disk(pki: dict[str, Path], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    client = {"ssl.keystore.location": str(pki["client.p12"]), "ssl.keystore.password": SECRET}
    client_security.ssl_context("prod", client)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("client", "words"),
    [
        ({"ssl.keystore.location": "client.p12", "ssl.keystore.password": "wrong"},
         "could not open the PKCS#12 keystore"),
        ({"ssl.truststore.location": "client.p12", "ssl.truststore.password": "wrong"},
         "could not open the truststore"),
        ({"ssl.certificate.pem": "client.pem", "ssl.key.pem": "client.key",
          "ssl.key.password": "wrong"}, "not PEM, or the wrong ssl.key.password"),
        ({"ssl.ca.location": "missing.pem"}, "could not read ssl.ca.location"),
        ({"ssl.keystore.location": "trust.p12", "ssl.keystore.password": SECRET},
         "holds no private key"),
    ],
)  # fmt: skip
def test_an_unreadable_store_or_key_is_one_sentence_without_its_password(
    pki: dict[str, Path], client: dict[str, str], words: str
) -> None:
    resolved = {
        k: (pki[v].read_text() if k.endswith(".pem") else str(pki[v]))
        if v in pki else (str(pki["ca.pem"].parent / v) if v.endswith(".pem") else v)
        for k, v in client.items()
    }  # fmt: skip
    with pytest.raises(ClusterError) as caught:
        client_security.kafka_python_settings("prod", {"security.protocol": "SSL", **resolved})
    said = str(caught.value)
    assert said.startswith("cluster 'prod': ") and words in said, said
    assert SECRET not in said and "wrong" not in said.replace("wrong ssl.", "")


def test_a_name_mismatch_has_its_own_sentence() -> None:
    """OpenSSL's reason for a name the certificate lacks (as why_unverified reports it, for
    either client) names the fix; librdkafka's own words cannot tell the causes apart, so
    they keep the sentence naming both."""
    python = (
        "SSL handshake failed: certificate verify failed: IP address mismatch, certificate is "
        "not valid for '127.0.0.2'."
    )
    librdkafka = (
        "ssl://127.0.0.2:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::"
        "certificate verify failed: broker certificate could not be verified, verify that "
        "ssl.ca.location is correctly configured or root CA certificates are installed "
        "(install ca-certificates package) (after 3ms in state SSL_HANDSHAKE)"
    )

    def sentence(reason: str) -> str:
        return Unauthenticated("c", "127.0.0.2:9093", "User:A", "tls", reason).sentence()

    assert sentence(python) == (
        "the TLS handshake with cluster 'c' at 127.0.0.2:9093 failed (SSL handshake failed: "
        "certificate verify failed: IP address mismatch, certificate is not valid for "
        "'127.0.0.2'): the broker's certificate does not name the address it was reached at: "
        "connect by a name or IP address its certificate lists (subject alternative names), "
        "or set ssl.endpoint.identification.algorithm: none to skip only the name check."
    )
    assert "is not signed by a CA in the system CAs, or its name" in sentence(librdkafka)


@pytest.mark.parametrize("command", [("validate",), ("plan", "--cluster", "prod")])
def test_gssapi_is_one_sentence_from_validate_and_any_command(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Before any connection (the bootstrap answers nothing): exit 1, the sentence alone."""
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "t.yaml").write_text("topics: []\n")
    (tmp_path / "reconciler.yaml").write_text(
        "clusters:\n  prod:\n    bootstrap: 127.0.0.1:9\n    client:\n"
        "      security.protocol: SASL_SSL\n      sasl.mechanism: GSSAPI\n"
    )
    result = run_cli(tmp_path, "127.0.0.1:9", *command, timeout=60)
    assert result.code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("error: cluster 'prod': GSSAPI (Kerberos) login is not available")


def test_the_documented_table_is_the_table() -> None:
    """docs/security.md's table names every setting client_settings.TABLE accepts, and no other
    ssl./sasl. setting (the table's rows may group several keys)."""
    import re

    doc = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    section = doc.split("## Both clients, one table", 1)[1].split("\nChoices made", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = {
        f"sasl.oauthbearer{key}" if key.startswith(".") else key
        for cell in rows
        for key in re.findall(r"`([\w.]+)`", cell)
    }
    assert named - {"client.id", "reconciler"} == set(client_settings.TABLE)


def test_the_table_takes_every_oidc_setting_oauth_takes() -> None:
    from reconciler.cluster.adapter import oauth

    assert set(client_settings.TABLE) >= oauth.OIDC_KEYS
