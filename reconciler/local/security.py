"""Real security on a local cluster: `local up --security sasl_scram|tls`.

- `sasl_scram`: every broker's client (and inter-broker) listener is SASL_PLAINTEXT with
  SCRAM-SHA-512; the StandardAuthorizer enforces ACLs (`allow.everyone.if.no.acl.found=false`);
  the super users are `User:admin` (created at format time, `--add-scram`) and `User:controller`
  (the PLAIN principal of the controller listener: SCRAM credentials live in the metadata log,
  so KRaft cannot use them on the listener that serves that log).
- `tls`: the client (and inter-broker) listener is SSL with a broker certificate signed by a CA
  generated on the spot with the JDK's keytool; no authorizer.

Secrets and certificates live in `<state>/security/` (directory 0700, files 0600) and are never
printed: `status` names the files. Passwords are random per cluster. The controller listener
(node 1 only) stays on 127.0.0.1.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from reconciler.errors import LocalClusterError

MODES = ("none", "sasl_scram", "tls")
SECURITY_DIR = "security"
CLIENT_PROPERTIES = "client.properties"  # librdkafka/Java client properties, with secrets
CLIENT_YAML = "reconciler-client.yaml"  # a `clusters.<name>:` snippet with ${ENV} references
SECRETS = "secrets.properties"  # what the broker configs are generated from
ADMIN = "admin"
CONTROLLER = "controller"
MECHANISM = "SCRAM-SHA-512"
PASSWORD_ENV = "RECONCILER_LOCAL_PASSWORD"


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


def prepare(state_dir: Path, mode: str, java: str) -> None:
    """Create the secrets (and for tls the CA and stores) of a new cluster in state_dir."""
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
    write_private(sec / SECRETS, "".join(f"{k}={v}\n" for k, v in values.items()))
    if mode == "tls":
        make_ca_and_broker_cert(sec, values["store.password"], java)


def _keytool(java: str) -> str:
    beside = Path(os.path.realpath(java)).parent / "keytool"
    found = str(beside) if beside.exists() else shutil.which("keytool")
    if found is None:
        raise LocalClusterError("keytool (part of the JDK) was not found next to java or on PATH")
    return found


def make_ca_and_broker_cert(directory: Path, password: str, java: str, cn: str = "local") -> None:
    """A CA (`ca.p12`, `ca.pem`) and a broker key pair it signed for 127.0.0.1/localhost
    (`broker.p12`, with the chain), plus `truststore.p12` holding the CA. The store password
    goes to keytool through the environment, never on a command line."""
    keytool = _keytool(java)
    env = {**os.environ, "RECONCILER_STOREPASS": password}
    store = ["-storetype", "PKCS12", "-storepass:env", "RECONCILER_STOREPASS"]
    san = "SAN=ip:127.0.0.1,dns:localhost"

    def run(*args: str) -> None:
        out = subprocess.run(
            [keytool, *args], capture_output=True, text=True, env=env, cwd=directory, check=False
        )
        if out.returncode != 0:
            raise LocalClusterError(
                f"keytool {args[0]} failed while making the local cluster's certificates: "
                f"{(out.stderr or out.stdout).strip()}"
            )

    keypair = ["-genkeypair", "-keyalg", "RSA", "-keysize", "2048", "-validity", "30"]
    run(*keypair, "-alias", "ca", "-dname", f"CN=reconciler-{cn}-ca", "-ext", "bc:c",
        "-keystore", "ca.p12", *store)  # fmt: skip
    run("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", *store, "-file", "ca.pem")
    run(*keypair, "-alias", "broker", "-dname", "CN=localhost", "-ext", san,
        "-keystore", "broker.p12", *store)  # fmt: skip
    run("-certreq", "-alias", "broker", "-keystore", "broker.p12", *store, "-file", "broker.csr")
    run("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", *store, "-ext", san,
        "-validity", "30", "-infile", "broker.csr", "-outfile", "broker.pem")  # fmt: skip
    run("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "broker.p12",
        *store)  # fmt: skip
    run("-importcert", "-noprompt", "-alias", "broker", "-file", "broker.pem",
        "-keystore", "broker.p12", *store)  # fmt: skip
    run("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem",
        "-keystore", "truststore.p12", *store)  # fmt: skip
    for path in directory.iterdir():
        path.chmod(0o600)


# ---------------------------------------------------------------------------- broker side


def protocol(mode: str) -> str:
    """The security protocol of the client (and inter-broker) listener."""
    return {"none": "PLAINTEXT", "sasl_scram": "SASL_PLAINTEXT", "tls": "SSL"}[mode]


def broker_properties(state_dir: Path, mode: str) -> dict[str, str]:
    """server.properties entries a node needs for mode (listeners are set by the caller)."""
    if mode == "none":
        return {}
    values = _secrets(state_dir)
    sec = security_dir(state_dir)
    if mode == "tls":
        password = values["store.password"]
        return {
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
        "sasl.enabled.mechanisms": MECHANISM,
        "sasl.mechanism.inter.broker.protocol": MECHANISM,
        "sasl.mechanism.controller.protocol": "PLAIN",
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scram,
        "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.controller.plain.sasl.jaas.config": plain,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found": "false",
        "super.users": f"User:{ADMIN};User:{CONTROLLER}",
    }


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
    if mode == "tls":
        return {
            "security.protocol": "SSL",
            "ssl.ca.location": str(security_dir(state_dir) / "ca.pem"),
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
    shown: Mapping[str, str] = {
        k: (f"${{{PASSWORD_ENV}}}" if k == "sasl.password" else v) for k, v in conf.items()
    }
    where = (
        [f"# Export {PASSWORD_ENV} as sasl.password in {sec / CLIENT_PROPERTIES}."]
        if mode == "sasl_scram"
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


def describe_lines(state_dir: Path, mode: str) -> list[str]:
    """What `status` says about security: the listener and where the credentials are."""
    if mode == "none":
        return []
    sec = security_dir(state_dir)
    if mode == "sasl_scram":
        what = (
            f"SASL_PLAINTEXT listener, {MECHANISM}, ACLs enforced (StandardAuthorizer); "
            f"super user User:{ADMIN}"
        )
    else:
        what = f"SSL listener, server certificate signed by the CA {sec / 'ca.pem'}"
    return [
        f"security: {what}",
        f"credentials: {sec / CLIENT_PROPERTIES} (reconciler.yaml snippet: {sec / CLIENT_YAML})",
    ]
