"""Certificates for the TLS tests, made with `cryptography`: a CA, and key pairs it signs, in
the forms `client:` takes them (PEM files, PEM text, PKCS#12 key and trust stores)."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
    pkcs12,
)
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class KeyPair:
    key: rsa.RSAPrivateKey
    cert: x509.Certificate

    def cert_pem(self) -> str:
        return self.cert.public_bytes(Encoding.PEM).decode()

    def key_pem(self, password: str | None = None) -> str:
        how = BestAvailableEncryption(password.encode()) if password else NoEncryption()
        return self.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, how).decode()


def make(name: str, issuer: KeyPair | None = None, sans: tuple[str, ...] = ()) -> KeyPair:
    """A key pair for CN=name, signed by `issuer` (else self-signed, a CA)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.cert.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if sans:
        names: list[x509.GeneralName] = []
        for san in sans:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(san)))
            except ValueError:
                names.append(x509.DNSName(san))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(issuer.key if issuer else key, hashes.SHA256())
    return KeyPair(key, cert)


def keystore(pair: KeyPair, chain: list[KeyPair], password: str) -> bytes:
    """A PKCS#12 keystore holding the key pair and its chain."""
    return pkcs12.serialize_key_and_certificates(
        b"client", pair.key, pair.cert, [c.cert for c in chain],
        BestAvailableEncryption(password.encode()),
    )  # fmt: skip


def truststore(cas: list[KeyPair], password: str) -> bytes:
    """A PKCS#12 truststore holding only certificates."""
    return pkcs12.serialize_key_and_certificates(
        None, None, None, [c.cert for c in cas], BestAvailableEncryption(password.encode())
    )


def from_keystore(path: Path, password: str) -> tuple[str, str]:
    """The (certificate chain, unencrypted key) PEM text of a PKCS#12 keystore."""
    store = pkcs12.load_pkcs12(path.read_bytes(), password.encode())
    assert store.key is not None and store.cert is not None
    chain = [store.cert.certificate, *(c.certificate for c in store.additional_certs)]
    key = store.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    return "".join(c.public_bytes(Encoding.PEM).decode() for c in chain), key


def reencrypt(key_pem: str, password: str) -> str:
    key = load_pem_private_key(key_pem.encode(), None)
    how = BestAvailableEncryption(password.encode())
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, how).decode()
