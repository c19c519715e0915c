"""The security settings a cluster's `client:` may hold: the one table of what each librdkafka
property becomes for kafka-python, and the one sentence for a setting both clients cannot take.

reconciler talks to every cluster with two clients: librdkafka (confluent-kafka), which takes
`client:` as it is, and kafka-python, which gets what `TABLE` says (adapter/client_security.py
carries it out). A security property not in the table (`ssl.`, `sasl.`, `security.`, ...) is
refused rather than reaching one client and not the other. GSSAPI is refused in plain words:
the confluent-kafka wheels' librdkafka has no GSSAPI. Pure: `validate` runs it without loading
a Kafka client.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.errors import ClusterError

KAFKA_PYTHON_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")

# oauth.py's OIDC_KEYS (tests/cluster/test_client_security.py keeps them one list)
_OIDC = ("method", "client.id", "client.secret", "token.endpoint.url", "scope", "extensions",
         "grant.type")  # fmt: skip

# Every security property reconciler accepts -> what kafka-python gets for it.
TABLE: dict[str, str] = {
    "security.protocol": "security_protocol",
    "sasl.mechanism": "sasl_mechanism",
    "sasl.mechanisms": "sasl_mechanism",
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "ssl.ca.location": "ssl_context: the CA file, or directory of hashed CA files (`probe`: "
    "the system CAs)",
    "ssl.ca.pem": "ssl_context: the CA certificates as text",
    "ssl.truststore.location": "(reconciler's own, PKCS#12 or PEM) ssl_context: its "
    "certificates as CA data; librdkafka gets them as ssl.ca.pem",
    "ssl.truststore.password": "(reconciler's own) opens the PKCS#12 truststore",
    "ssl.certificate.location": "ssl_context: the client certificate (PEM file)",
    "ssl.key.location": "ssl_context: the client key (PEM file)",
    "ssl.key.password": "ssl_context: the client key's password",
    "ssl.certificate.pem": "ssl_context: the client certificate as text",
    "ssl.key.pem": "ssl_context: the client key as text",
    "ssl.keystore.location": "ssl_context: key, certificate and chain of the PKCS#12 keystore",
    "ssl.keystore.password": "ssl_context: opens the PKCS#12 keystore",
    "enable.ssl.certificate.verification": "ssl_context: `false` checks neither the "
    "certificate nor its name",
    "ssl.endpoint.identification.algorithm": "ssl_context: `https` (the default) checks the "
    "broker's name against its certificate, `none` does not",
    "ssl.cipher.suites": "ssl_context: the same OpenSSL cipher list",
    "ssl.crl.location": "ssl_context: the CRL file, checked for the broker's certificate",
    **{f"sasl.oauthbearer.{key}": "sasl_oauth_token_provider: the same tokens" for key in _OIDC},
    "https.ca.location": "the token endpoint's CA (oauth.py; no Kafka connection uses it)",
}
_PREFIXES = ("ssl.", "ssl_", "sasl.", "security.", "enable.ssl.", "https.", "enable.sasl.")
SASL_PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")
SSL_PROTOCOLS = ("SSL", "SASL_SSL")


def check(cluster: str, client: Mapping[str, str]) -> None:
    """Raise the one sentence for a security setting that both clients cannot take."""
    for key in sorted(client):
        if key.startswith("sasl.kerberos."):
            raise ClusterError(_gssapi(cluster))
        if key.startswith(_PREFIXES) and key not in TABLE:
            raise ClusterError(
                f"cluster '{cluster}': `client:` setting {key} is not one reconciler can give "
                "both of its Kafka clients (librdkafka and kafka-python must connect alike): "
                "remove it, or use the settings `reconciler help security` lists."
            )
    mechanism = mechanism_of(client)
    if mechanism == "GSSAPI":
        raise ClusterError(_gssapi(cluster))
    if mechanism and mechanism not in KAFKA_PYTHON_MECHANISMS:
        raise ClusterError(
            f"cluster '{cluster}': sasl.mechanism {mechanism} is not one reconciler supports: "
            f"use one of {', '.join(KAFKA_PYTHON_MECHANISMS)}."
        )
    algorithm = client.get("ssl.endpoint.identification.algorithm", "https").lower()
    if algorithm not in ("https", "none"):
        raise ClusterError(
            f"cluster '{cluster}': ssl.endpoint.identification.algorithm is "
            f"{client['ssl.endpoint.identification.algorithm']!r}: use https (check the "
            "broker's name against its certificate) or none."
        )
    verification = client.get("enable.ssl.certificate.verification", "true").lower()
    if verification not in ("true", "false"):
        raise ClusterError(
            f"cluster '{cluster}': enable.ssl.certificate.verification is {verification!r}: "
            "use true or false."
        )
    timeout = client.get("request.timeout.ms")
    if timeout is not None and not (
        timeout.isdigit() and len(timeout) <= 9 and 1000 <= int(timeout) <= 900_000
    ):
        # librdkafka takes 1..900000, and the connection setup a command derives from it at
        # least 1000 (wait_limit.SHORTEST)
        raise ClusterError(
            f"cluster '{cluster}': `client:` request.timeout.ms is {timeout!r}: give whole "
            "milliseconds from 1000 to 900000, the range librdkafka takes."
        )
    cas = [k for k in ("ssl.ca.location", "ssl.ca.pem", "ssl.truststore.location") if k in client]
    if len(cas) > 1:
        raise ClusterError(
            f"cluster '{cluster}': `client:` names the CAs twice ({' and '.join(cas)}): keep one."
        )


def _gssapi(cluster: str) -> str:
    return (
        f"cluster '{cluster}': GSSAPI (Kerberos) login is not available: the confluent-kafka "
        "wheels' librdkafka is built without it (its SASL mechanisms are PLAIN, SCRAM and "
        "OAUTHBEARER); it would need a librdkafka built with libsasl2 (confluent-kafka built "
        "from source against it), so use SCRAM, OAUTHBEARER or mutual TLS instead."
    )


def mechanism_of(client: Mapping[str, str]) -> str:
    """The SASL mechanism; librdkafka's default, GSSAPI, on a SASL listener when unset."""
    named = client.get("sasl.mechanism", client.get("sasl.mechanisms", "")).strip().upper()
    protocol = client.get("security.protocol", "PLAINTEXT").upper()
    return named or ("GSSAPI" if protocol in SASL_PROTOCOLS else "")


def certificate_key(client: Mapping[str, str]) -> str | None:
    """The setting holding the client certificate, if any (mutual TLS)."""
    keys = ("ssl.keystore.location", "ssl.certificate.location", "ssl.certificate.pem")
    return next((key for key in keys if client.get(key)), None)


def ca_source(client: Mapping[str, str]) -> str:
    """The CAs a broker's certificate is checked with, as a sentence names them."""
    for key in ("ssl.ca.location", "ssl.truststore.location"):
        if client.get(key):
            return f"{key} ({client[key]})"
    return "ssl.ca.pem" if client.get("ssl.ca.pem") else "the system CAs"
