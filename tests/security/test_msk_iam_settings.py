"""AWS MSK IAM `client:` settings reconciler cannot log in with: one sentence each, before any
connection (the bootstrap address is a closed port), exit 1, no traceback; and the shape of the
token botocore signs (what the local verifier and MSK decode)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from reconciler.cluster.adapter import msk_iam
from tests.security.conftest import write_repo

CLIENT = {
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.oauthbearer.method": "aws_msk_iam",
    "aws.region": "eu-west-1",
}
KEY_ID = "AKIAEXAMPLEKEY000001"
SECRET = "an-example-secret-access-key-0123456789"
NO_AWS_FILES = {
    "AWS_CONFIG_FILE": "/nonexistent",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def _run(repo: Path, env: dict[str, str], pythonpath: str = "") -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    if pythonpath:
        base["PYTHONPATH"] = pythonpath
    proc = subprocess.run(
        [sys.executable, "-m", "reconciler", "--repo", str(repo), "plan", "-c", "sec"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**base, "NO_COLOR": "1", **NO_AWS_FILES, **env},
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
    return proc.returncode, proc.stderr


def _errors(stderr: str) -> list[str]:
    """The error lines (a busy machine may add the heartbeat's `... still planning` first)."""
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_a_missing_region_names_the_file_and_line(tmp_path: Path) -> None:
    client = {k: v for k, v in CLIENT.items() if k != "aws.region"}
    repo = write_repo(tmp_path, "127.0.0.1:9", "m.", client, [{"name": "m.a"}])
    code, stderr = _run(repo, {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET})
    assert code == 1
    lines = (repo / "reconciler.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.strip() == "client:") + 1
    assert f"reconciler.yaml:{line}:" in stderr
    assert "clusters.sec.client has no 'aws.region': it is" in stderr


def test_no_credentials_is_one_sentence(tmp_path: Path) -> None:
    repo = write_repo(tmp_path, "127.0.0.1:9", "m.", CLIENT, [{"name": "m.a"}])
    code, stderr = _run(repo, {})
    assert code == 1
    assert _errors(stderr) == [
        "error: cluster 'sec': no AWS credentials were found to sign its MSK IAM token with "
        "the AWS credentials of the default chain: set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, or aws.profile, or run where an instance or container role is "
        "available."
    ]


def test_without_botocore_the_sentence_names_the_extra(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "botocore"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no botocore here')\n")
    repo = write_repo(tmp_path / "repo", "127.0.0.1:9", "m.", CLIENT, [{"name": "m.a"}])
    env = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET}
    code, stderr = _run(repo, env, pythonpath=str(shadow.parent))
    assert code == 1
    assert _errors(stderr) == [
        "error: cluster 'sec' logs in with AWS MSK IAM, which needs botocore: install the msk "
        "extra (pip install 'kafka-topic-reconciler[msk]')."
    ]


def test_the_token_is_a_presigned_connect_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """base64url without padding of kafka.<region>'s URL presigned for kafka-cluster:Connect,
    900 s, User-Agent appended; librdkafka is told the expiry."""
    for name, value in {**NO_AWS_FILES, "AWS_ACCESS_KEY_ID": KEY_ID,
                        "AWS_SECRET_ACCESS_KEY": SECRET}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    before = time.time()
    signer = msk_iam.Signer(msk_iam.Aws(cluster="c", region="eu-west-1"))
    value, expires_at, principal, extensions = signer.librdkafka_callback()("")
    assert "=" not in value
    url = urlsplit(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode())
    assert (url.scheme, url.netloc, url.path) == ("https", "kafka.eu-west-1.amazonaws.com", "/")
    query = dict(parse_qsl(url.query))
    assert query["Action"] == "kafka-cluster:Connect"
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert query["X-Amz-Credential"].startswith(KEY_ID + "/")
    assert query["X-Amz-Credential"].endswith("/eu-west-1/kafka-cluster/aws4_request")
    assert query["X-Amz-Expires"] == "900"
    assert query["User-Agent"] == msk_iam.USER_AGENT
    assert url.query.endswith("&User-Agent=" + msk_iam.USER_AGENT)  # after the signature
    assert before + 900 <= expires_at <= time.time() + 900
    assert principal == "the AWS credentials of the default chain"
    assert extensions == {}
    assert signer.token() is signer.token()  # fresh: not signed again
    assert signer.signed == 1
