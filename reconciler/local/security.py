"""Real security on a local cluster: `local up --security sasl_scram|tls`.

- `sasl_scram`: every broker's client (and inter-broker) listener is SASL_PLAINTEXT with
  SCRAM-SHA-512; the StandardAuthorizer enforces ACLs (`allow.everyone.if.no.acl.found=false`);
  the super users are `User:admin` (created at format time, `--add-scram`) and `User:controller`
  (the PLAIN principal of the controller listener: SCRAM credentials live in the metadata log,
  so KRaft cannot use them on the listener that serves that log).
- `tls`: the client (and inter-broker) listener is SSL with a broker certificate signed by a CA
  generated on the spot (certificates.py); no authorizer.
- `mtls`: `tls` whose brokers require a client certificate (`ssl.client.auth=required`); the
  client's key pair, signed by the same CA, is a PKCS#12 keystore (`client.p12`).
- `oauth`: the client listener is SASL_PLAINTEXT with OAUTHBEARER, tokens checked by Kafka's
  own OIDC validator (`OAuthBearerValidatorCallbackHandler`: signature against the JWKS,
  audience, issuer, expiry) against a local token issuer (token_issuer.py, started before the
  brokers, its RSA key made at `up`); brokers talk to each other over a PLAINTEXT listener on
  127.0.0.1 (INTERNAL); no authorizer.
- `msk-iam`: the client listener is SASL_PLAINTEXT with OAUTHBEARER carrying AWS MSK IAM tokens
  (SigV4-presigned URLs), checked by our own verifier (msk_iam_verifier.py) against one static
  test access key made at `up`; inter-broker traffic as for oauth; no authorizer. Plaintext on
  loopback: the tokens are bearer credentials for 15 minutes, fine for a local cluster only.

Secrets and certificates live in `<state>/security/` (directory 0700, files 0600) and are never
printed: `status` names the files. Passwords are random per cluster. The controller listener
(node 1 only) stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.errors import LocalClusterError
from reconciler.local import certificates, jwt_signing, msk_iam_verifier
from reconciler.local.free_port import free_port
from reconciler.local.sidecars import Sidecar

if TYPE_CHECKING:
    from reconciler.local.distribution import Distribution
MODES = ("none", "sasl_scram", "tls", "mtls", "oauth", "msk-iam")
TLS_MODES = ("tls", "mtls")
CLIENT_KEYSTORE = certificates.CLIENT_KEYSTORE  # mtls: the client's key pair, the CA signed
MSK_IAM = "msk-iam"
VERIFIER_CLASSES = "msk-iam-classes"  # msk-iam: where the compiled verifier is
SECURITY_DIR = "security"
CLIENT_PROPERTIES = "client.properties"  # librdkafka/Java client properties, with secrets
CLIENT_YAML = "reconciler-client.yaml"  # a `clusters.<name>:` snippet with ${ENV} references
SECRETS = "secrets.properties"  # what the broker configs are generated from
ADMIN = "admin"
CONTROLLER = "controller"
MECHANISM = "SCRAM-SHA-512"
PASSWORD_ENV = "RECONCILER_LOCAL_PASSWORD"
INTERNAL_LISTENER = "INTERNAL"  # oauth: inter-broker traffic, PLAINTEXT on 127.0.0.1
ISSUER_CONFIG = "token-issuer.json"
ISSUER_KEY = "token-issuer-key.json"
OAUTH_CLIENT = "reconciler"  # the client id `local up --security oauth` registers
OAUTH_AUDIENCE = "kafka"
OAUTH_SCOPE = "kafka"
VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
BROKER_JWT_VALIDATOR = "org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator"
# Kafka 4.0+ fetches only the OAuth URLs this JVM system property lists (KIP-1139 style guard).
ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls"


def security_dir(state_dir: Path) -> Path:
    return state_dir / SECURITY_DIR


def write_private(path: Path, text: str) -> None:
    """Create or replace path with mode 0600 from the first byte (no window of 0644)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def _read_properties(path: Path) -> dict[str, str]:
    props = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            props[key] = value
    return props


def _secrets(state_dir: Path) -> dict[str, str]:
    path = security_dir(state_dir) / SECRETS
    try:
        return _read_properties(path)
    except OSError as exc:
        raise LocalClusterError(
            f"the secured local cluster in {state_dir} lost {path} ({exc.strerror}); run "
            "`reconciler local down` and `reconciler local up` again."
        ) from exc


# ---------------------------------------------------------------------------- creating


def prepare(state_dir: Path, mode: str, java: str, dist: Distribution | None = None) -> None:
    """Create the secrets (and for tls the CA and stores, for msk-iam the verifier) of a new
    cluster in state_dir."""
    if mode not in MODES:
        raise LocalClusterError(f"unknown security mode {mode!r}: use one of {', '.join(MODES)}")
    sec = security_dir(state_dir)
    if sec.exists():
        shutil.rmtree(sec)
    if mode == "none":
        return
    sec.mkdir(mode=0o700, parents=True)
    values = {
        "admin.password": secrets.token_urlsafe(24),
        "controller.password": secrets.token_urlsafe(24),
        "store.password": secrets.token_urlsafe(24),
    }
    if mode == "oauth":
        values["client.secret"] = secrets.token_urlsafe(24)
    if mode == "mtls":
        values["client.password"] = secrets.token_urlsafe(24)
    if mode == MSK_IAM:
        assert dist is not None  # cluster.start passes it
        (sec / VERIFIER_CLASSES).write_text(f"{msk_iam_verifier.classes(java, dist)}\n")
        values["aws.secret.access.key"] = msk_iam_verifier.make_credentials(sec, write_private)[1]
    write_private(sec / SECRETS, "".join(f"{k}={v}\n" for k, v in values.items()))
    if mode in TLS_MODES:
        certificates.make(sec, values["store.password"], java, values.get("client.password"))
    if mode == "oauth":
        _make_issuer(sec, values["client.secret"])


def _make_issuer(sec: Path, client_secret: str) -> None:
    """The token issuer's RSA key and config, on a free port chosen now."""
    port = free_port()
    write_private(sec / ISSUER_KEY, jwt_signing.generate().to_json())
    config = {
        "port": port,
        "issuer": f"http://127.0.0.1:{port}",
        "audience": OAUTH_AUDIENCE,
        "clients": {OAUTH_CLIENT: client_secret},
        "key": str(sec / ISSUER_KEY),
    }
    write_private(sec / ISSUER_CONFIG, json.dumps(config, indent=2) + "\n")


def _issuer_config(state_dir: Path) -> dict[str, object] | None:
    path = security_dir(state_dir) / ISSUER_CONFIG
    if not path.exists():
        return None
    loaded: dict[str, object] = json.loads(path.read_text())
    return loaded


def token_issuer(state_dir: Path, mode: str) -> tuple[Sidecar, list[str], Path] | None:
    """The issuer process to start for mode oauth: (sidecar, command, log file), else None."""
    config = _issuer_config(state_dir) if mode == "oauth" else None
    if config is None:
        return None
    path = security_dir(state_dir) / ISSUER_CONFIG
    command = [sys.executable, "-m", "reconciler.local.token_issuer", str(path)]
    sidecar = Sidecar("token-issuer", int(str(config["port"])), str(path))
    return sidecar, command, security_dir(state_dir) / "token-issuer.log"


def oauth_urls(state_dir: Path) -> tuple[str, str] | None:
    """(token endpoint, JWKS endpoint) of this cluster's issuer, if it has one."""
    config = _issuer_config(state_dir)
    if config is None:
        return None
    return f"{config['issuer']}/token", f"{config['issuer']}/jwks"


def needs_internal_listener(mode: str) -> bool:
    """oauth, msk-iam: the brokers cannot get tokens themselves, so they talk over PLAINTEXT."""
    return mode in ("oauth", MSK_IAM)


def classpath(state_dir: Path) -> list[str]:
    """Classpath entries a node needs besides Kafka's jars: msk-iam's compiled verifier."""
    path = security_dir(state_dir) / VERIFIER_CLASSES
    return [path.read_text().strip()] if path.exists() else []


def jvm_options(state_dir: Path) -> list[str]:
    """JVM system properties a node needs: the OAuth URLs Kafka 4.x may fetch."""
    urls = oauth_urls(state_dir)
    return [f"-D{ALLOWED_URLS}={','.join(urls)}"] if urls else []


# ---------------------------------------------------------------------------- broker side


def protocol(mode: str) -> str:
    """The security protocol of the client (and inter-broker) listener."""
    return {
        "none": "PLAINTEXT", "sasl_scram": "SASL_PLAINTEXT", "tls": "SSL", "mtls": "SSL",
        "oauth": "SASL_PLAINTEXT", MSK_IAM: "SASL_PLAINTEXT",
    }[mode]  # fmt: skip


def broker_properties(state_dir: Path, mode: str) -> dict[str, str]:
    """server.properties entries a node needs for mode (listeners are set by the caller)."""
    if mode == "none":
        return {}
    values = _secrets(state_dir)
    sec = security_dir(state_dir)
    if mode == "oauth":
        return _oauth_broker_properties(state_dir)
    if mode == MSK_IAM:
        return _msk_iam_broker_properties(state_dir)
    if mode in TLS_MODES:
        password = values["store.password"]
        required = {"ssl.client.auth": "required"} if mode == "mtls" else {}
        return required | {
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": str(sec / "broker.p12"),
            "ssl.keystore.password": password,
            "ssl.key.password": password,
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(sec / "truststore.p12"),
            "ssl.truststore.password": password,
        }
    admin, controller = values["admin.password"], values["controller.password"]
    scram = (
        f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{ADMIN}" '
        f'password="{admin}";'
    )
    plain = (
        f"org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{CONTROLLER}" password="{controller}" user_{CONTROLLER}="{controller}";'
    )
    return {
        # both SCRAM mechanisms, so that users: of either can log in (`reconciler help access`)
        "sasl.enabled.mechanisms": f"{MECHANISM},SCRAM-SHA-256",
        "sasl.mechanism.inter.broker.protocol": MECHANISM,
        "sasl.mechanism.controller.protocol": "PLAIN",
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scram,
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": scram,
        "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.controller.plain.sasl.jaas.config": plain,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found": "false",
        "super.users": f"User:{ADMIN};User:{CONTROLLER}",
    }


def _oauth_broker_properties(state_dir: Path) -> dict[str, str]:
    config = _issuer_config(state_dir)
    urls = oauth_urls(state_dir)
    assert config is not None and urls is not None  # prepare() wrote them
    prefix = "listener.name.sasl_plaintext.oauthbearer."
    # The listener's own login is never used to connect (inter-broker traffic is PLAINTEXT);
    # the unsecured login handler only needs a subject to start.
    login = (
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        'unsecuredLoginStringClaim_sub="broker";'
    )
    return {
        "sasl.enabled.mechanisms": "OAUTHBEARER",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "OAUTHBEARER",
        prefix + "sasl.jaas.config": login,
        prefix + "sasl.server.callback.handler.class": VALIDATOR,
        # Kafka 4.1's handler builds its JWT validator from this class; its default there
        # (DefaultJwtValidator, made without a key resolver) falls back to the client-side
        # validator, which checks no signature, issuer or audience. 3.9 and 4.0 ignore the key.
        "sasl.oauthbearer.jwt.validator.class": BROKER_JWT_VALIDATOR,
        "sasl.oauthbearer.jwks.endpoint.url": urls[1],
        "sasl.oauthbearer.expected.audience": str(config["audience"]),
        "sasl.oauthbearer.expected.issuer": str(config["issuer"]),
    }


def _msk_iam_broker_properties(state_dir: Path) -> dict[str, str]:
    prefix = "listener.name.sasl_plaintext.oauthbearer."
    keys = security_dir(state_dir) / msk_iam_verifier.KEYS_FILE
    # The login module's options reach the verifier (its region and keys); its own login is
    # never used to connect (inter-broker traffic is PLAINTEXT), the subject only lets it start.
    login = (
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        f'unsecuredLoginStringClaim_sub="broker" region="{msk_iam_verifier.REGION}" '
        f'credentialsFile="{keys}";'
    )
    return {
        "sasl.enabled.mechanisms": "OAUTHBEARER",
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "OAUTHBEARER",
        prefix + "sasl.jaas.config": login,
        prefix + "sasl.server.callback.handler.class": msk_iam_verifier.CLASS,
    }


def zookeeper_broker_properties(state_dir: Path, mode: str) -> dict[str, str]:
    """server.properties entries of a ZooKeeper-mode broker (Kafka before 3.9) for mode:
    `sasl_scram` only (its credentials live in ZooKeeper: zookeeper_scram_args), the
    inter-broker traffic SCRAM too, ZooKeeper's AclAuthorizer (Kafka 2.4+, KIP-504)."""
    if mode == "none":
        return {}
    admin = _secrets(state_dir)["admin.password"]
    scram = (
        f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{ADMIN}" '
        f'password="{admin}";'
    )
    return {
        "security.inter.broker.protocol": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": MECHANISM,
        "sasl.mechanism.inter.broker.protocol": MECHANISM,
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scram,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "allow.everyone.if.no.acl.found": "false",
        "super.users": f"User:{ADMIN}",
    }


def admin_password(state_dir: Path) -> str:
    return _secrets(state_dir)["admin.password"]


def zookeeper_scram_args(zookeeper: str, user: str, password: str) -> list[str]:
    """ConfigCommand arguments writing `user`'s SCRAM credentials into ZooKeeper (ZooKeeper
    mode keeps them there; Kafka before 2.7 has no AlterUserScramCredentials)."""
    return ["kafka.admin.ConfigCommand", "--zookeeper", zookeeper, "--alter",
            "--add-config", f"{MECHANISM}=[iterations=4096,password={password}]",
            "--entity-type", "users", "--entity-name", user]  # fmt: skip


def controller_protocol(mode: str) -> str:
    return "SASL_PLAINTEXT" if mode == "sasl_scram" else "PLAINTEXT"


def format_args(state_dir: Path, mode: str) -> list[str]:
    """StorageTool arguments creating the admin's SCRAM credentials (KRaft: at format time)."""
    if mode != "sasl_scram":
        return []
    password = _secrets(state_dir)["admin.password"]
    return ["--add-scram", f"{MECHANISM}=[name={ADMIN},password={password}]"]


def redact(state_dir: Path, text: str) -> str:
    """text with this cluster's secrets replaced by *** (a failed tool's output may echo them)."""
    path = security_dir(state_dir) / SECRETS
    if path.exists():
        for value in _read_properties(path).values():
            text = text.replace(value, "***")
    return text


# ---------------------------------------------------------------------------- client side


def client_config(state_dir: Path, mode: str) -> dict[str, str]:
    """librdkafka properties for the super user (what `status` and the fixtures connect with)."""
    if mode == "none":
        return {}
    if mode in TLS_MODES:
        ca = str(security_dir(state_dir) / "ca.pem")
        tls = {"security.protocol": "SSL", "ssl.ca.location": ca}
        if mode == "tls":
            return tls
        return tls | {
            "ssl.keystore.location": str(security_dir(state_dir) / CLIENT_KEYSTORE),
            "ssl.keystore.password": _secrets(state_dir)["client.password"],
        }
    if mode == "oauth":
        urls = oauth_urls(state_dir)
        assert urls is not None
        return {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.method": "oidc",
            "sasl.oauthbearer.client.id": OAUTH_CLIENT,
            "sasl.oauthbearer.client.secret": _secrets(state_dir)["client.secret"],
            "sasl.oauthbearer.token.endpoint.url": urls[0],
            "sasl.oauthbearer.scope": OAUTH_SCOPE,
        }
    if mode == MSK_IAM:
        return {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.oauthbearer.method": "aws_msk_iam",
            "aws.region": msk_iam_verifier.REGION,
            "aws.profile": msk_iam_verifier.PROFILE,
            "aws.shared_credentials_file": str(
                security_dir(state_dir) / msk_iam_verifier.CREDENTIALS_FILE
            ),
        }
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": MECHANISM,
        "sasl.username": ADMIN,
        "sasl.password": _secrets(state_dir)["admin.password"],
    }


def write_client_files(state_dir: Path, mode: str, bootstrap: str) -> None:
    """client.properties (with the secret, 0600) and a reconciler.yaml snippet that refers to
    the secret through ${RECONCILER_LOCAL_PASSWORD} instead of holding it."""
    if mode == "none":
        return
    sec = security_dir(state_dir)
    conf = client_config(state_dir, mode)
    write_private(
        sec / CLIENT_PROPERTIES,
        f"bootstrap.servers={bootstrap}\n" + "".join(f"{k}={v}\n" for k, v in conf.items()),
    )
    secret_keys = ("sasl.password", "sasl.oauthbearer.client.secret", "ssl.keystore.password")
    shown: Mapping[str, str] = {
        k: (f"${{{PASSWORD_ENV}}}" if k in secret_keys else v) for k, v in conf.items()
    }
    secret_key = next((k for k in secret_keys if k in conf), None)
    where = (
        [f"# Export {PASSWORD_ENV} as {secret_key} in {sec / CLIENT_PROPERTIES}."]
        if secret_key
        else []
    )
    lines = [
        "# Under `clusters:` in reconciler.yaml.",
        *where,
        "local:",
        f"  bootstrap: {bootstrap}",
        "  client:",
        *(f'    {k}: "{v}"' for k, v in shown.items()),
    ]
    write_private(sec / CLIENT_YAML, "\n".join(lines) + "\n")


def describe_lines(state_dir: Path, mode: str, zookeeper: bool = False) -> list[str]:
    """What `status` says about security: the listener and where the credentials are."""
    if mode == "none":
        return []
    sec = security_dir(state_dir)
    if mode == "sasl_scram":
        what = (
            f"SASL_PLAINTEXT listener, {MECHANISM}, ACLs enforced "
            f"({'AclAuthorizer' if zookeeper else 'StandardAuthorizer'}); "
            f"super user User:{ADMIN}"
        )
    elif mode == MSK_IAM:
        what = (
            "SASL_PLAINTEXT listener, OAUTHBEARER with AWS MSK IAM tokens checked by "
            f"reconciler's local verifier; region {msk_iam_verifier.REGION}, principal "
            f"{msk_iam_verifier.ARN}"
        )
    elif mode == "oauth":
        urls = oauth_urls(state_dir)
        what = (
            f"SASL_PLAINTEXT listener, OAUTHBEARER checked by Kafka's OIDC validator; token "
            f"endpoint {urls[0] if urls else '?'}, client id {OAUTH_CLIENT}"
        )
    elif mode == "mtls":
        what = (
            f"SSL listener, server certificate signed by the CA {sec / 'ca.pem'}; client "
            f"certificates required (the keystore {sec / CLIENT_KEYSTORE})"
        )
    else:
        what = f"SSL listener, server certificate signed by the CA {sec / 'ca.pem'}"
    return [
        f"security: {what}",
        f"credentials: {sec / CLIENT_PROPERTIES} (reconciler.yaml snippet: {sec / CLIENT_YAML})",
    ]
