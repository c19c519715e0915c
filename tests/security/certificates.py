"""Certificates for the TLS tests, made with `cryptography`: a CA, and key pairs it signs, in
the forms `client:` takes them (PEM files, PEM text, PKCS#12 key and trust stores)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
    pkcs12,
)

from reconciler.local import certificates as local_certificates


@dataclass(frozen=True)
class KeyPair(local_certificates.KeyPair):
    def cert_pem(self) -> str:
        return self.cert.public_bytes(Encoding.PEM).decode()

    def key_pem(self, password: str | None = None) -> str:
        how = BestAvailableEncryption(password.encode()) if password else NoEncryption()
        return self.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, how).decode()


def make(name: str, issuer: KeyPair | None = None, sans: tuple[str, ...] = ()) -> KeyPair:
    """A key pair for CN=name, signed by `issuer` (else self-signed, a CA), valid two days: as
    `local up` makes its own (reconciler/local/certificates.py)."""
    made = local_certificates.key_pair(name, issuer, sans, datetime.timedelta(days=2))
    return KeyPair(made.key, made.cert)


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
