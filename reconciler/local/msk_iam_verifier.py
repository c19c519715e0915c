"""The broker side of `local up --security msk-iam`: our own SigV4 token verifier, in Java.

The verifier (java/dev/reconciler/local/MskIamVerifier.java, shipped in the package) is Kafka's
`AuthenticateCallbackHandler` for OAuthBearerValidatorCallback; its comment says what it checks
and what it does not. It is compiled with the JDK's javac against the broker's own jars (the
cached Kafka distribution, kafka-clients among them) when a cluster starts, into
`$RECONCILER_CACHE/msk-iam-verifier/<digest>/`, the digest being of the source and the Kafka
version: a second `up` reuses it, and an edited source or another Kafka compiles again.

The static test credentials (one access key id, its secret, the ARN it logs in as) live in
`<state>/security/`: `msk-iam-keys.properties` for the brokers and `aws-credentials`, an AWS
shared credentials file (profile `reconciler-local`) for the clients; both mode 0600.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import string
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from reconciler.errors import EnvironmentProblem, LocalClusterError
from reconciler.local.distribution import Distribution, cache_dir
from reconciler.resources import package_file

CLASS = "dev.reconciler.local.MskIamVerifier"
SOURCE = package_file("local", "java", "dev", "reconciler", "local", "MskIamVerifier.java")
REGION = "us-east-1"  # the local cluster's region: tokens signed for another are refused
PROFILE = "reconciler-local"
ARN = "arn:aws:iam::000000000000:user/reconciler-admin"
KEYS_FILE = "msk-iam-keys.properties"  # the brokers' access key id -> secret and ARN
CREDENTIALS_FILE = "aws-credentials"  # the clients' AWS shared credentials file


def make_credentials(sec: Path, write_private: Callable[[Path, str], None]) -> tuple[str, str]:
    """A random access key id and secret, written for the brokers and the clients."""
    alphabet = string.ascii_uppercase + string.digits
    key_id = "AKIA" + "".join(secrets.choice(alphabet) for _ in range(16))
    secret = secrets.token_urlsafe(30)
    write_private(sec / KEYS_FILE, f"key.{key_id}.secret={secret}\nkey.{key_id}.arn={ARN}\n")
    write_private(
        sec / CREDENTIALS_FILE,
        f"[{PROFILE}]\naws_access_key_id = {key_id}\naws_secret_access_key = {secret}\n",
    )
    return key_id, secret


def _javac(java: str) -> str:
    beside = Path(os.path.realpath(java)).parent / "javac"
    found = str(beside) if beside.exists() else shutil.which("javac")
    if found is None:
        raise EnvironmentProblem(
            "javac was not found next to java or on PATH: `local up --security msk-iam` "
            "compiles its token verifier, so install a JDK, not only a JRE (e.g. `apt-get "
            "install openjdk-17-jdk-headless`)."
        )
    return found


def classes(java: str, dist: Distribution) -> Path:
    """The compiled verifier's class directory for this Kafka, compiled on first use."""
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source + dist.version.encode()).hexdigest()[:16]
    target = cache_dir() / "msk-iam-verifier" / digest
    if (target / "complete").exists():
        return target / "classes"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        src = Path(work) / "MskIamVerifier.java"
        src.write_bytes(source)
        out = Path(work) / "out"
        compiled = subprocess.run(
            [_javac(java), "-nowarn", "-cp", dist.classpath, "-d", str(out / "classes"),
             str(src)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if compiled.returncode != 0:
            raise LocalClusterError(
                f"javac could not compile the MSK IAM token verifier against Kafka "
                f"{dist.version}'s jars in {dist.libs}:\n{compiled.stderr.strip()}"
            )
        (out / "complete").write_text(CLASS + "\n")
        try:
            out.rename(target)  # atomic; another `up` may have won the race: keep its copy
        except OSError:
            if not (target / "complete").exists():
                raise
    return target / "classes"
