"""AWS MSK IAM login on real brokers, without AWS: `local up --security msk-iam` checks the
SigV4-signed tokens with reconciler's own verifier (MskIamVerifier.java) against a static test
key; the client signs with botocore, credentials from the environment (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, botocore's default chain).

Plan, apply (kafka-python's reassignment included) and drift through the CLI; a wrong secret
key, an expired token (this machine's signing clock 20 minutes slow) and another region each
exit 1 with one sentence saying what is wrong and what to do, nothing changed; no key id, secret
or token in any output, --debug included, or in the broker's log; a token lifetime shortened to
seconds is refreshed by both clients of one long-lived connection, past the first token's
expiry, while the broker re-authenticates its sessions (connections.max.reauth.ms).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.cluster.adapter import Cluster, Connection, msk_iam
from reconciler.local import msk_iam_verifier, security
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.kafka_fixtures import own_cluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.security.conftest import Transcript, topics_view, write_repo

pytestmark = pytest.mark.kafka

# base64url of "https://kafka.us-east-1.amazonaws.com/?Action": how every token here starts
TOKEN_START = "aHR0cHM6Ly9rYWZrYS51cy1lYXN0LTEuYW1hem9uYXdzLmNvbS8_QWN0aW9u"
REAUTH_MS = 4000  # the brokers end a session this long after its login unless it logs in again


@pytest.fixture(scope="module")
def msk(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[LocalCluster]:
    """Two brokers (a replication-factor change needs two; they talk over PLAINTEXT)."""
    with own_cluster(
        request, tmp_path_factory, kafka_dist, "secured-msk-iam", 2,
        security_mode=security.MSK_IAM,
        overrides={"connections.max.reauth.ms": str(REAUTH_MS)},
    ) as cl:  # fmt: skip
        yield cl


@pytest.fixture(scope="module")
def keys(msk: LocalCluster) -> dict[str, str]:
    """The static test key, as environment variables of botocore's default chain."""
    text = (msk.state_dir / "security" / msk_iam_verifier.CREDENTIALS_FILE).read_text()
    found = dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line)
    return {
        "AWS_ACCESS_KEY_ID": found["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": found["aws_secret_access_key"],
    }


@pytest.fixture(scope="module")
def admin(msk: LocalCluster) -> AdminClient:
    """The test's own view of the cluster, over the brokers' PLAINTEXT listener."""
    internal = ",".join(f"127.0.0.1:{n.internal_port}" for n in msk.nodes)
    return AdminClient({"bootstrap.servers": internal}, logger=QUIET_LIBRDKAFKA)


CLIENT = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.oauthbearer.method": "aws_msk_iam",
    "aws.region": msk_iam_verifier.REGION,
}


def _topics(prefix: str, *names: str, replicas: int = 1) -> list[dict[str, Any]]:
    return [{"name": f"{prefix}{n}", "partitions": 2, "replication_factor": replicas,
             "config": {"retention.ms": "1d"}} for n in names]  # fmt: skip


def _env(keys: dict[str, str], **more: str) -> dict[str, str]:
    # no profile or credentials file of this machine's user: the environment's key only
    return {**keys, "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE":
            "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true", **more}  # fmt: skip


def test_plan_apply_drift_over_msk_iam(
    msk: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    keys: dict[str, str],
    tmp_path: Path,
) -> None:
    transcript.dirs.append(tmp_path)
    env = _env(keys)
    prefix = f"m.{uuid.uuid4().hex[:6]}."
    repo = write_repo(tmp_path, msk.bootstrap, prefix, CLIENT, _topics(prefix, "a", "b"),
                      allow_delete=True)  # fmt: skip
    plan_file = tmp_path / "plan.json"
    planned = transcript.run(repo, "plan", "-c", "sec", "-o", str(plan_file), env=env)
    assert planned.code == 0, planned.stderr
    assert f"+ create {prefix}a" in planned.stdout
    applied = transcript.run(repo, "apply", "-c", "sec", str(plan_file), env=env)
    assert applied.code == 0, applied.stderr
    view = topics_view(admin, prefix)
    assert sorted(view) == [f"{prefix}a", f"{prefix}b"]
    assert all(t["config"]["retention.ms"] == "86400000" for t in view.values())
    # prune `b`; `a` to two replicas: kafka-python's reassignment, signed by the same signer
    (repo / "topics" / "main.yaml").write_text(
        yaml_text.safe_dump({"topics": _topics(prefix, "a", replicas=2)})
    )
    pruned = transcript.run(repo, "--debug", "apply", "-c", "sec", "--prune", "--auto-approve",
                            env=env)  # fmt: skip
    assert pruned.code == 0, pruned.stderr
    assert list(topics_view(admin, prefix)) == [f"{prefix}a"]
    partitions = admin.list_topics(f"{prefix}a", timeout=30).topics[f"{prefix}a"].partitions
    assert [len(p.replicas) for p in partitions.values()] == [2, 2]
    drift = transcript.run(repo, "--debug", "drift", "-c", "sec", env=env)
    assert drift.code == 0, drift.stdout + drift.stderr
    # the local cluster's own snippet (profile in its credentials file) works as written
    snippet = security.client_config(msk.state_dir, security.MSK_IAM)
    other = write_repo(tmp_path / "snippet", msk.bootstrap, prefix, snippet,
                       _topics(prefix, "a", replicas=2))  # fmt: skip
    same = transcript.run(other, "plan", "-c", "sec", "--detailed-exitcode", env=_env({}))
    assert same.code == 0, same.stdout + same.stderr


CASES = {
    "wrong secret key": (
        {"AWS_SECRET_ACCESS_KEY": "not-the-secret-of-this-key-0123456789"}, {},
        "the signature does not match the secret access key of the token's access key id; "
        "check the secret access key that goes with the access key id",
    ),
    "expired token": (
        {msk_iam.CLOCK_OFFSET_ENV: "-1200"}, {},
        "check this machine's clock (NTP): a token is stamped with its time and valid for 15 "
        "minutes.",
    ),
    "another region": (
        {}, {"aws.region": "eu-west-1"},
        "the token is signed for region eu-west-1 but this cluster is in region us-east-1; "
        "set aws.region (now eu-west-1) to the region of the MSK cluster.",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("debug", [(), ("--debug",)], ids=["quiet", "debug"])
def test_refused_login_is_one_sentence(
    msk: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    keys: dict[str, str],
    tmp_path: Path,
    case: str,
    debug: tuple[str, ...],
) -> None:
    """Exit 1, one sentence naming the cluster, what the broker found wrong and what to do,
    long before a 10-minute request timeout; nothing created."""
    transcript.dirs.append(tmp_path)
    env_change, client_change, expected = CASES[case]
    prefix = f"m.{uuid.uuid4().hex[:6]}."
    client = {**CLIENT, "request.timeout.ms": "600000", **client_change}
    repo = write_repo(tmp_path, msk.bootstrap, prefix, client, _topics(prefix, "a"))
    result = transcript.run(repo, *debug, "apply", "--auto-approve", "-c", "sec",
                            env=_env(keys, **env_change), timeout=120)  # fmt: skip
    assert result.code == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(
        f"error: cluster 'sec' at {msk.bootstrap} refused the AWS MSK IAM login of the AWS "
        "credentials of the default chain: "
    ), errors[0]
    assert expected in errors[0], errors[0]
    if not debug:
        assert [line for line in result.stderr.splitlines() if line.strip()] == errors
    assert topics_view(admin, prefix) == {}


def test_tokens_are_refreshed_past_their_expiry(
    msk: LocalCluster, keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tokens valid 6 s: one connection's librdkafka and kafka-python clients keep reading
    after the first token expired (librdkafka asks oauth_cb again at 80% of the lifetime; the
    brokers end sessions after REAUTH_MS or the token's expiry unless the client logs in
    again), and the brokers saw logins with tokens signed at different times."""
    lifetime = 6
    for name, value in _env(keys, **{msk_iam.LIFETIME_ENV: str(lifetime)}).items():
        monkeypatch.setenv(name, value)
    connection = Connection("refresh", msk.bootstrap, tuple(CLIENT.items()))
    signer = connection.tokens()
    assert isinstance(signer, msk_iam.Signer)
    with Cluster(connection) as cluster:
        first = signer.token()
        assert first.expires_at - first.signed_at == lifetime
        assert len(cluster.read_state().brokers) == 2
        assert cluster.reassignments() == ()
        # past the first token's expiry and two re-authentication periods: a wait on the
        # clock the test is about, not on the machine's speed
        time.sleep(max(lifetime, 2 * REAUTH_MS / 1000) + 1)
        assert time.time() > first.expires_at
        assert len(cluster.read_state().brokers) == 2
        assert cluster.reassignments() == ()
        assert signer.token().value != first.value
    assert signer.signed >= 2
    logins = [
        line
        for node in msk.nodes
        for line in (msk.node_dir(node) / "kafka.log").read_text().splitlines()
        if "MSK IAM login of " + msk_iam_verifier.ARN in line
    ]
    signed_at = {line.split(" signed at ")[1].split()[0] for line in logins}
    assert len(signed_at) >= 2, logins[-5:]


def test_no_key_secret_or_token_in_any_output(
    msk: LocalCluster, transcript: Transcript, keys: dict[str, str], tmp_path: Path
) -> None:
    """Everything the CLI printed in this module (runs with and without --debug), every file
    it wrote and the brokers' logs: no access key id, no secret, no token."""
    transcript.dirs.append(tmp_path)
    prefix = f"m.{uuid.uuid4().hex[:6]}."
    repo = write_repo(tmp_path, msk.bootstrap, prefix, CLIENT, _topics(prefix, "a"))
    for debug in ((), ("--debug",)):
        transcript.run(repo, *debug, "plan", "-c", "sec", "-o",
                       str(tmp_path / f"plan{len(debug)}.json"), env=_env(keys))  # fmt: skip
        transcript.run(repo, *debug, "snapshot", "-c", "sec", "-o",
                       str(tmp_path / f"snapshot{len(debug)}.json"), env=_env(keys))  # fmt: skip
    audit = str(tmp_path / "audit.json")
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", "--auto-approve",
                             "--audit-json", audit, env=_env(keys))  # fmt: skip
    assert applied.code == 0, applied.stderr
    status = transcript.run(tmp_path, "local", "--state-dir", str(msk.state_dir), "status",
                            env={})  # fmt: skip
    assert status.code == 0, status.stderr
    assert "AWS MSK IAM tokens checked by reconciler's local verifier" in status.stdout
    transcript.dirs += [msk.node_dir(n) / "kafka.log" for n in msk.nodes]
    debug_runs = [r for r in transcript.runs if "--debug" in r.args]
    assert any("OAUTHBEARER" in r.stderr for r in debug_runs)  # --debug did log the login
    assert len(transcript.runs) >= 10
    for value in (keys["AWS_ACCESS_KEY_ID"], keys["AWS_SECRET_ACCESS_KEY"], TOKEN_START,
                  "X-Amz-Signature"):  # fmt: skip
        assert transcript.leaks(value) == [], value
