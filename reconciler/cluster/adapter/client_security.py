"""The security settings of a cluster's `client:`, as each of the two Kafka clients takes them.

`client:` holds librdkafka properties. librdkafka (confluent-kafka) takes them as they are;
kafka-python (KIP-455 reassignments, fenced brokers, consumer groups) takes other names, and
for TLS one `ssl.SSLContext` built here from the same settings, so both clients trust the same
CAs, present the same certificate and check host names the same way. The table of what each
setting becomes is `reconciler.cluster.client_settings.TABLE` (outside this package so that
`validate` checks the settings without loading a Kafka client); this module carries it out.

Two settings are reconciler's own, for both clients: `ssl.truststore.location` (PKCS#12 or PEM)
and `ssl.truststore.password`. librdkafka has no PKCS#12 truststore, so the certificates are read
here and handed to librdkafka as `ssl.ca.pem` and to kafka-python's context as CA data.
"""

from __future__ import annotations

import os
import secrets
import socket
import ssl
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reconciler import readable
from reconciler.cluster.client_settings import SASL_PROTOCOLS, SSL_PROTOCOLS, check, mechanism_of
from reconciler.errors import ClusterError
from reconciler.printable import printable

TRUSTSTORE_KEYS = ("ssl.truststore.location", "ssl.truststore.password")


def librdkafka_settings(cluster: str, client: Mapping[str, str]) -> dict[str, str]:
    """`client:` as librdkafka takes it: a truststore becomes `ssl.ca.pem`."""
    check(cluster, client)
    conf = {k: v for k, v in client.items() if k not in TRUSTSTORE_KEYS}
    if "ssl.truststore.location" in client:
        conf["ssl.ca.pem"] = _truststore_pem(cluster, client)
    return conf


Report = Callable[[str], None]  # told a failed TLS handshake's reason


def kafka_python_settings(
    cluster: str, client: Mapping[str, str], report: Report | None = None
) -> dict[str, Any]:
    """The keyword arguments of kafka-python's clients for `client:`'s security settings;
    `report` hears why a TLS handshake failed (kafka-python itself only logs it)."""
    check(cluster, client)
    protocol = client.get("security.protocol", "PLAINTEXT").upper()
    found: dict[str, Any] = {"security_protocol": protocol}
    if protocol in SASL_PROTOCOLS:
        found["sasl_mechanism"] = mechanism_of(client)
        found["sasl_plain_username"] = client.get("sasl.username")
        found["sasl_plain_password"] = client.get("sasl.password")
    if protocol in SSL_PROTOCOLS:
        found["ssl_context"] = ssl_context(cluster, client, report=report)
    return found


def ssl_context(
    cluster: str,
    client: Mapping[str, str],
    verify: bool | None = None,
    report: Report | None = None,
) -> ssl.SSLContext:
    """One TLS context from `client:`'s settings, checking what librdkafka checks for them
    (`verify=False`: neither the certificate nor the name, whatever the settings say);
    `report` hears why a handshake failed."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2  # librdkafka's and Kafka's floor
    if report is not None:
        context.sslsocket_class = _reporting(report)
    if verify is None:
        verify = client.get("enable.ssl.certificate.verification", "true").lower() == "true"
    hostname = client.get("ssl.endpoint.identification.algorithm", "https").lower() == "https"
    context.check_hostname = verify and hostname
    context.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE
    _load_cas(cluster, client, context)
    if "ssl.cipher.suites" in client:
        try:
            context.set_ciphers(client["ssl.cipher.suites"])
        except ssl.SSLError as exc:
            raise ClusterError(
                f"cluster '{cluster}': ssl.cipher.suites {client['ssl.cipher.suites']!r} "
                f"names no cipher OpenSSL knows ({exc.reason}): correct it."
            ) from exc
    if "ssl.crl.location" in client:
        _load(cluster, "ssl.crl.location", client["ssl.crl.location"],
              lambda p: context.load_verify_locations(cafile=p))  # fmt: skip
        context.verify_flags |= ssl.VERIFY_CRL_CHECK_LEAF
    _load_client_certificate(cluster, client, context)
    return context


def _reporting(report: Report) -> type[ssl.SSLSocket]:
    """An SSLSocket class that tells `report` why its handshake failed, in librdkafka's words
    for a failed certificate check ("certificate verify failed: <OpenSSL's reason>")."""

    class Reporting(ssl.SSLSocket):
        def do_handshake(self, block: bool = False) -> None:
            try:
                super().do_handshake(block)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                raise
            except ssl.SSLCertVerificationError as exc:
                report(f"SSL handshake failed: certificate verify failed: {exc.verify_message}")
                raise
            except ssl.SSLError as exc:  # an alert (a refused client certificate, ...);
                report(f"SSL handshake failed: {exc}")  # not a reset: that may pass
                raise

    return Reporting


def why_unverified(cluster: str, bootstrap: str, client: Mapping[str, str]) -> str | None:
    """Why the brokers' certificate fails the check, in OpenSSL's words ("IP address mismatch,
    certificate is not valid for '10.0.0.7'", "unable to get local issuer certificate", ...),
    from one handshake of our own with the same settings; None if no bootstrap server shows
    it. librdkafka says "broker certificate could not be verified" whatever the cause, so a
    failure of either client is named by this one answer (the same sentence from both)."""
    context = ssl_context(cluster, client)
    for server in bootstrap.split(","):
        host, _, port = server.strip().rpartition(":")
        host = host.strip("[]")
        try:
            with (
                socket.create_connection((host, int(port)), timeout=5) as raw,
                context.wrap_socket(raw, server_hostname=host),
            ):
                continue
        except ssl.SSLCertVerificationError as exc:
            return f"SSL handshake failed: certificate verify failed: {exc.verify_message}"
        except (OSError, ValueError):
            continue
    return None


def _load_cas(cluster: str, client: Mapping[str, str], context: ssl.SSLContext) -> None:
    location = client.get("ssl.ca.location")
    if "ssl.ca.pem" in client:
        _load(cluster, "ssl.ca.pem", "(text)",
              lambda _: context.load_verify_locations(cadata=client["ssl.ca.pem"]))  # fmt: skip
    elif "ssl.truststore.location" in client:
        pem = _truststore_pem(cluster, client)
        context.load_verify_locations(cadata=pem)
    elif location is None or location == "probe":
        context.load_default_certs()
    elif Path(location).is_dir():
        _load(cluster, "ssl.ca.location", location,
              lambda p: context.load_verify_locations(capath=p))  # fmt: skip
    else:
        _load(cluster, "ssl.ca.location", location,
              lambda p: context.load_verify_locations(cafile=p))  # fmt: skip


def _load(cluster: str, key: str, where: str, load: Any) -> None:
    try:
        load(where)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise ClusterError(
            f"cluster '{cluster}': could not read {key} ({where}): "
            f"{getattr(exc, 'strerror', None) or exc}; correct the setting or the file."
        ) from exc


def _truststore_pem(cluster: str, client: Mapping[str, str]) -> str:
    """The certificates of `ssl.truststore.location` (PKCS#12 or PEM) as PEM text."""
    from cryptography.hazmat.primitives.serialization import Encoding, pkcs12

    path = client["ssl.truststore.location"]
    data = _read(cluster, "ssl.truststore.location", path)
    if b"-----BEGIN CERTIFICATE-----" in data:
        return data.decode("ascii", "replace")
    password = client.get("ssl.truststore.password")
    try:
        store = pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError as exc:
        raise ClusterError(
            f"cluster '{cluster}': could not open the truststore {path} (ssl.truststore."
            "location): it is neither PEM nor a PKCS#12 file ssl.truststore.password opens."
        ) from exc
    certs = [c.certificate for c in store.additional_certs]
    if store.cert is not None:
        certs.append(store.cert.certificate)
    if not certs:
        raise ClusterError(
            f"cluster '{cluster}': the truststore {path} (ssl.truststore.location) holds no "
            "certificate: add the CA certificates the brokers' certificates are signed by."
        )
    return "".join(c.public_bytes(Encoding.PEM).decode() for c in certs)


def _read(cluster: str, key: str, path: str) -> bytes:
    try:
        return readable.read_bytes(Path(path), readable.CLIENT_FILE_CAP)
    except readable.Unfit as exc:
        raise ClusterError(
            f"cluster '{cluster}': {key} ({printable(path)}) {exc.why}; correct the setting or "
            "the file."
        ) from None
    except OSError as exc:
        raise ClusterError(
            f"cluster '{cluster}': could not read {key} ({path}): {exc.strerror}; correct the "
            "setting or the file."
        ) from exc


def _load_client_certificate(
    cluster: str, client: Mapping[str, str], context: ssl.SSLContext
) -> None:
    """The client's key and certificate chain, from PEM files, PEM text or a PKCS#12 keystore."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    if "ssl.keystore.location" in client:
        path = client["ssl.keystore.location"]
        data = _read(cluster, "ssl.keystore.location", path)
        password = client.get("ssl.keystore.password")
        try:
            store = pkcs12.load_pkcs12(data, password.encode() if password else None)
        except ValueError as exc:
            raise ClusterError(
                f"cluster '{cluster}': could not open the PKCS#12 keystore {path} "
                "(ssl.keystore.location): wrong ssl.keystore.password, or not a PKCS#12 file."
            ) from exc
        if store.key is None or store.cert is None:
            raise ClusterError(
                f"cluster '{cluster}': the keystore {path} (ssl.keystore.location) holds no "
                "private key with its certificate: add the client's key pair."
            )
        chain = [store.cert.certificate, *(c.certificate for c in store.additional_certs)]
        _use_chain(context, store.key, chain)
        return
    cert_pem, key_pem = client.get("ssl.certificate.pem"), client.get("ssl.key.pem")
    cert_file, key_file = client.get("ssl.certificate.location"), client.get("ssl.key.location")
    if cert_pem is None and key_pem is None:
        if cert_file is not None:
            password = client.get("ssl.key.password")
            _load(cluster, "ssl.certificate.location", cert_file,
                  lambda p: context.load_cert_chain(p, key_file, password))  # fmt: skip
        return
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    certs = (cert_pem or "").encode() or _read(cluster, "ssl.certificate.location", cert_file or "")
    key = (key_pem or "").encode() or _read(cluster, "ssl.key.location", key_file or "")
    password = client.get("ssl.key.password")
    try:
        chain = x509.load_pem_x509_certificates(certs)
        private = load_pem_private_key(key, password.encode() if password else None)
    except (ValueError, TypeError) as exc:
        raise ClusterError(
            f"cluster '{cluster}': could not read the client certificate and key (ssl."
            "certificate.pem / ssl.key.pem): not PEM, or the wrong ssl.key.password."
        ) from exc
    _use_chain(context, private, chain)


def _use_chain(context: ssl.SSLContext, key: Any, chain: list[Any]) -> None:
    """Load a key and its certificate chain: Python's ssl reads them only from a file, so they
    go through a private temporary file, the key encrypted with a one-time password (nothing
    decrypted ever reaches the disk), removed at once."""
    from cryptography.hazmat.primitives.serialization import (
        BestAvailableEncryption,
        Encoding,
        PrivateFormat,
    )

    once = secrets.token_urlsafe(24)
    text = key.private_bytes(
        Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(once.encode())
    ) + b"".join(c.public_bytes(Encoding.PEM) for c in chain)
    with tempfile.TemporaryDirectory(prefix="reconciler-tls-") as directory:
        path = os.path.join(directory, "chain.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(text)
        context.load_cert_chain(path, path, once)
