"""The certificates of `local up --security tls|mtls`, made in this process with `cryptography`.

A CA, a broker key pair it signs for 127.0.0.1/localhost and (mtls) a client key pair it signs,
each written as the files Kafka and the clients read: PKCS#12 key stores and PEM. One JVM only:
Java trusts the certificates of a PKCS#12 truststore only when they carry its own attribute
(the "trusted key usage" that `keytool -importcert` writes), which `cryptography` cannot
write, so `truststore.p12` is still made by keytool. The thirteen keytool JVMs this replaced
cost some 15 CPU s per mtls cluster.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    pkcs12,
)
from cryptography.x509.oid import NameOID

from reconciler.errors import LocalClusterError

CLIENT_KEYSTORE = "client.p12"
VALID = datetime.timedelta(days=30)  # a local cluster is remade by each `up`
# keytool's one run: the quick JIT tier, one GC thread (a JVM that lives a second)
_KEYTOOL_JVM = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData")


@dataclass(frozen=True)
class KeyPair:
    key: rsa.RSAPrivateKey
    cert: x509.Certificate


def key_pair(
    cn: str,
    issuer: KeyPair | None = None,
    sans: tuple[str, ...] = (),
    valid: datetime.timedelta = VALID,
) -> KeyPair:
    """An RSA-2048 key pair for CN=cn, signed by `issuer` (else self-signed, a CA), valid for
    the addresses and names in `sans`."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.cert.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + valid)
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if sans:
        names: list[x509.GeneralName] = []
        for san in sans:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(san)))
            except ValueError:
                names.append(x509.DNSName(san))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return KeyPair(key, builder.sign(issuer.key if issuer else key, hashes.SHA256()))


def _write(path: Path, data: bytes) -> None:
    """0600 from the first byte."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _keystore(path: Path, alias: str, pair: KeyPair, chain: list[KeyPair], password: str) -> None:
    data = pkcs12.serialize_key_and_certificates(
        alias.encode(), pair.key, pair.cert, [c.cert for c in chain],
        BestAvailableEncryption(password.encode()),
    )  # fmt: skip
    _write(path, data)


def _keytool(java: str) -> str:
    beside = Path(os.path.realpath(java)).parent / "keytool"
    found = str(beside) if beside.exists() else shutil.which("keytool")
    if found is None:
        raise LocalClusterError("keytool (part of the JDK) was not found next to java or on PATH")
    return found


def _truststore(directory: Path, password: str, java: str) -> None:
    """`truststore.p12` holding ca.pem as a trusted entry (keytool: see the module's note). The
    password goes to keytool through the environment, never on a command line."""
    env = {**os.environ, "RECONCILER_STOREPASS": password}
    args = ["-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem",
            "-keystore", "truststore.p12", "-storetype", "PKCS12",
            "-storepass:env", "RECONCILER_STOREPASS"]  # fmt: skip
    out = subprocess.run(
        [_keytool(java), *_KEYTOOL_JVM, *args],
        capture_output=True, text=True, env=env, cwd=directory, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        raise LocalClusterError(
            "keytool -importcert failed while making the local cluster's truststore: "
            f"{(out.stderr or out.stdout).strip()}"
        )
    (directory / "truststore.p12").chmod(0o600)


def make(
    directory: Path, password: str, java: str, client_password: str | None = None,
    cn: str = "local",
) -> None:  # fmt: skip
    """A CA (`ca.p12`, `ca.pem`), a broker key pair it signed for 127.0.0.1/localhost
    (`broker.p12`, with the chain) and `truststore.p12` holding the CA, all with `password`;
    with `client_password`, `client.p12` too: a client key pair for CN=reconciler-client the
    CA signed, with the CA in its chain."""
    ca = key_pair(f"reconciler-{cn}-ca")
    _keystore(directory / "ca.p12", "ca", ca, [], password)
    _write(directory / "ca.pem", ca.cert.public_bytes(Encoding.PEM))
    broker = key_pair("localhost", ca, ("127.0.0.1", "localhost"))
    _keystore(directory / "broker.p12", "broker", broker, [ca], password)
    if client_password is not None:
        client = key_pair("reconciler-client", ca)
        _keystore(directory / CLIENT_KEYSTORE, "client", client, [ca], client_password)
    _truststore(directory, password, java)
