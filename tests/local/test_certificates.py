"""The certificates of `local up --security tls|mtls` (reconciler/local/certificates.py): the
files, what they hold, and that Java reads the truststore's CA as trusted. That a broker serves
them and both clients accept them: tests/security/test_tls.py and test_mtls.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import pkcs12

from reconciler.local import certificates
from reconciler.local.toolchain import find_java

pytestmark = pytest.mark.slow  # one keytool JVM


def test_the_stores_hold_the_chains_the_broker_and_client_present(tmp_path: Path) -> None:
    java = find_java()[0]
    certificates.make(tmp_path, "store-pw-1", java, "client-pw-2")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "broker.p12", "ca.p12", "ca.pem", "client.p12", "truststore.p12",
    ]  # fmt: skip
    assert {oct(p.stat().st_mode & 0o777) for p in tmp_path.iterdir()} == {"0o600"}
    ca = x509.load_pem_x509_certificate((tmp_path / "ca.pem").read_bytes())
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    broker = pkcs12.load_pkcs12((tmp_path / "broker.p12").read_bytes(), b"store-pw-1")
    assert broker.key is not None and broker.cert is not None
    assert [c.certificate for c in broker.additional_certs] == [ca]
    assert broker.cert.certificate.issuer == ca.subject
    sans = broker.cert.certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert [str(ip) for ip in sans.value.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert sans.value.get_values_for_type(x509.DNSName) == ["localhost"]
    client = pkcs12.load_pkcs12((tmp_path / "client.p12").read_bytes(), b"client-pw-2")
    assert client.cert is not None and client.cert.certificate.issuer == ca.subject
    assert client.cert.certificate.subject.rfc4514_string() == "CN=reconciler-client"
    # Java's view: the CA as a trusted entry (no key), which is what a truststore is for
    keytool = Path(os.path.realpath(java)).parent / "keytool"
    listed = subprocess.run(
        [str(keytool), "-list", "-keystore", str(tmp_path / "truststore.p12"), "-storetype",
         "PKCS12", "-storepass:env", "PW"],
        capture_output=True, text=True, env={**os.environ, "PW": "store-pw-1"}, check=True,
    )  # fmt: skip
    assert "1 entry" in listed.stdout and "trustedCertEntry" in listed.stdout, listed.stdout


def test_tls_alone_makes_no_client_keystore(tmp_path: Path) -> None:
    certificates.make(tmp_path, "store-pw-1", find_java()[0])
    assert not (tmp_path / certificates.CLIENT_KEYSTORE).exists()
