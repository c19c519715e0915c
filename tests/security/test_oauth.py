"""OAuth 2.0 / OIDC (SASL OAUTHBEARER) on a real broker whose listener checks tokens with Kafka's
own OIDC validator, against the token issuer `local up --security oauth` starts.

The reconciler.yaml snippet `local up` wrote plans, applies a saved plan, changes a replication
factor and prunes as it is (librdkafka's client-credentials settings; kafka-python reads and
makes the reassignments with the same token). A wrong
client secret, an unreachable token endpoint and a token the broker refuses (another issuer,
another audience: a second issuer process signing with the same key) each exit 1 with one
sentence naming the token endpoint and the client id, long before the request timeout, with
nothing changed. No client secret and no token shows up in anything printed or written.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka.admin import AdminClient

from reconciler.local import security, sidecars
from reconciler.local.free_port import free_port
from reconciler.local.sidecars import Sidecar
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.security.conftest import Transcript, admin_of, topics_view, write_repo

pytestmark = pytest.mark.kafka

# Every JWT the issuer signs starts with this header: {"alg":"RS256","typ":"JWT",...
TOKEN_START = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCI"
SECRET_ENV = security.PASSWORD_ENV


@pytest.fixture(scope="module")
def admin(oauth: LocalCluster) -> AdminClient:
    return admin_of(oauth)


@pytest.fixture(scope="module")
def secret(oauth: LocalCluster) -> str:
    return security.client_config(oauth.state_dir, "oauth")["sasl.oauthbearer.client.secret"]


@pytest.fixture(scope="module")
def snippet_client(oauth: LocalCluster) -> dict[str, str]:
    """`client:` of the reconciler.yaml snippet `local up --security oauth` wrote."""
    text = (oauth.state_dir / "security" / security.CLIENT_YAML).read_text()
    client: dict[str, str] = yaml.safe_load(text)["local"]["client"]
    return client


def _issuer(oauth: LocalCluster, *args: str) -> Iterator[str]:
    """Another issuer process, signing with the cluster's key but claiming `args`: yields its
    token endpoint; stopped by pid afterwards."""
    config = oauth.state_dir / "security" / security.ISSUER_CONFIG
    port = free_port()
    command = [sys.executable, "-m", "reconciler.local.token_issuer", str(config),
               "--port", str(port), *args]  # fmt: skip
    log = config.parent / f"issuer-{port}.log"
    started = sidecars.launch(Sidecar("other-issuer", port, str(config)), command, log, None, 30)
    try:
        yield f"http://127.0.0.1:{port}/token"
    finally:
        sidecars.stop(started)


@pytest.fixture(scope="module")
def other_issuer(oauth: LocalCluster) -> Iterator[str]:
    yield from _issuer(oauth)  # `iss` is its own address, not the one the brokers expect


@pytest.fixture(scope="module")
def other_audience(oauth: LocalCluster) -> Iterator[str]:
    yield from _issuer(oauth, "--issuer", _expected_issuer(oauth), "--audience", "not-kafka")


def _expected_issuer(oauth: LocalCluster) -> str:
    config = json.loads((oauth.state_dir / "security" / security.ISSUER_CONFIG).read_text())
    return str(config["issuer"])


def _topics(prefix: str, *names: str, replicas: int = 1) -> list[dict[str, Any]]:
    return [{"name": f"{prefix}{n}", "partitions": 2, "replication_factor": replicas,
             "config": {"retention.ms": "1d"}} for n in names]  # fmt: skip


def test_snippet_plans_applies_and_prunes(
    oauth: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    snippet_client: dict[str, str],
    secret: str,
    tmp_path: Path,
) -> None:
    transcript.dirs.append(tmp_path)
    assert snippet_client["sasl.oauthbearer.client.secret"] == f"${{{SECRET_ENV}}}"
    assert snippet_client["sasl.mechanism"] == "OAUTHBEARER"
    assert snippet_client["sasl.oauthbearer.method"] == "oidc"
    env = {SECRET_ENV: secret}
    prefix = f"o.{uuid.uuid4().hex[:6]}."
    repo = write_repo(tmp_path, oauth.bootstrap, prefix, snippet_client,
                      _topics(prefix, "a", "b"), allow_delete=True)  # fmt: skip
    plan_file = tmp_path / "plan.json"
    planned = transcript.run(repo, "plan", "-c", "sec", "-o", str(plan_file), env=env)
    assert planned.code == 0, planned.stderr
    assert f"+ create {prefix}a" in planned.stdout
    applied = transcript.run(repo, "apply", "-c", "sec", str(plan_file), env=env)
    assert applied.code == 0, applied.stderr
    view = topics_view(admin, prefix)
    assert sorted(view) == [f"{prefix}a", f"{prefix}b"]
    assert all(t["partitions"] == 2 for t in view.values())
    assert all(t["config"]["retention.ms"] == "86400000" for t in view.values())
    # prune `b`, no longer declared; `a` to two replicas (kafka-python's reassignment, same token)
    main = {"topics": _topics(prefix, "a", replicas=2)}
    (repo / "topics" / "main.yaml").write_text(yaml_text.safe_dump(main))
    pruned = transcript.run(repo, "--debug", "apply", "-c", "sec", "--prune", "--auto-approve",
                            env=env)  # fmt: skip
    assert pruned.code == 0, pruned.stderr
    assert list(topics_view(admin, prefix)) == [f"{prefix}a"]
    partitions = admin.list_topics(f"{prefix}a", timeout=30).topics[f"{prefix}a"].partitions
    assert [len(p.replicas) for p in partitions.values()] == [2, 2]
    again = transcript.run(repo, "plan", "-c", "sec", "--detailed-exitcode", env=env)
    assert again.code == 0, again.stdout + again.stderr
    drift = transcript.run(repo, "--debug", "drift", "-c", "sec", env=env)
    assert drift.code == 0, drift.stdout + drift.stderr


def test_status_names_the_token_endpoint(
    oauth: LocalCluster, transcript: Transcript, tmp_path: Path
) -> None:
    status = transcript.run(tmp_path, "local", "--state-dir", str(oauth.state_dir), "status",
                            env={})  # fmt: skip
    assert status.code == 0, status.stderr
    endpoint = security.client_config(oauth.state_dir, "oauth")[
        "sasl.oauthbearer.token.endpoint.url"
    ]
    assert f"token endpoint {endpoint}, client id {security.OAUTH_CLIENT}" in status.stdout
    issuer = oauth.sidecar(sidecars.TOKEN_ISSUER)
    assert issuer is not None and issuer.running()
    assert f"token-issuer: 127.0.0.1:{issuer.port}  pid={issuer.pid}\n" in status.stdout


CASES = {
    "wrong client secret": (
        "secret", "refused to issue a token (HTTP 401 invalid_client): check "
        "sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret",
    ),
    "unreachable token endpoint": (
        "endpoint", "check sasl.oauthbearer.token.endpoint.url and that the identity provider "
        "is running and reachable from here",
    ),
    "token of another issuer": (
        "issuer", "refused the OAuth token the token endpoint",
    ),
    "token for another audience": (
        "audience", "refused the OAuth token the token endpoint",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("debug", [(), ("--debug",)], ids=["quiet", "debug"])
def test_login_failure_is_one_sentence(
    oauth: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    snippet_client: dict[str, str],
    secret: str,
    other_issuer: str,
    other_audience: str,
    tmp_path: Path,
    case: str,
    debug: tuple[str, ...],
) -> None:
    """Exit 1 with one sentence naming the token endpoint, the client id and what to check,
    as soon as the login fails: a 10-minute request timeout would outlast the run's 3-minute
    bound. Nothing was created."""
    transcript.dirs.append(tmp_path)
    kind, expected = CASES[case]
    client = {**snippet_client, "request.timeout.ms": "600000"}
    env = {SECRET_ENV: secret}
    if kind == "secret":
        env = {SECRET_ENV: f"not-{secret}"}
    elif kind == "endpoint":
        client["sasl.oauthbearer.token.endpoint.url"] = f"http://127.0.0.1:{free_port()}/token"
    else:
        client["sasl.oauthbearer.token.endpoint.url"] = (
            other_issuer if kind == "issuer" else other_audience
        )
    prefix = f"o.{uuid.uuid4().hex[:6]}."
    repo = write_repo(tmp_path, oauth.bootstrap, prefix, client, _topics(prefix, "a"))
    result = transcript.run(repo, *debug, "apply", "--auto-approve", "-c", "sec", env=env)
    assert result.code == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    endpoint = client["sasl.oauthbearer.token.endpoint.url"]
    assert f"token endpoint {endpoint} (client id '{security.OAUTH_CLIENT}')" in errors[0]
    assert expected in errors[0], errors[0]
    assert "reachable from here, and are its" not in errors[0]
    assert topics_view(admin, prefix) == {}


def test_no_secret_or_token_in_any_output_or_file(
    oauth: LocalCluster,
    transcript: Transcript,
    snippet_client: dict[str, str],
    secret: str,
    tmp_path: Path,
) -> None:
    """Every byte the CLI printed in this module, with and without --debug, every file it wrote,
    the broker's log and the issuer's: no client secret, no token (every token this issuer
    signs starts the same way)."""
    transcript.dirs.append(tmp_path)
    env = {SECRET_ENV: secret}
    prefix = f"o.{uuid.uuid4().hex[:6]}."
    repo = write_repo(tmp_path, oauth.bootstrap, prefix, snippet_client, _topics(prefix, "a"))
    for debug in ((), ("--debug",)):
        plan_file = tmp_path / f"plan{len(debug)}.json"
        transcript.run(repo, *debug, "plan", "-c", "sec", "-o", str(plan_file), env=env)
        transcript.run(repo, *debug, "snapshot", "-c", "sec", "-o",
                       str(tmp_path / f"snapshot{len(debug)}.json"), env=env)  # fmt: skip
        transcript.run(repo, *debug, "import", "-c", "sec", "--out",
                       str(tmp_path / f"imported{len(debug)}"), env=env)  # fmt: skip
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", "--auto-approve",
                             "--audit-json", str(tmp_path / "audit.json"), env=env)  # fmt: skip
    assert applied.code == 0, applied.stderr
    # the broker's own log (after the refused tokens of the tests before) and the issuer's
    transcript.dirs += [oauth.node_dir(n) for n in oauth.nodes]
    transcript.dirs.append(oauth.state_dir / "security" / "token-issuer.log")
    debug_runs = [r for r in transcript.runs if "--debug" in r.args]
    assert any("OAUTHBEARER" in r.stderr for r in debug_runs)  # --debug did log the login
    assert transcript.leaks(secret) == []
    assert transcript.leaks(TOKEN_START) == []
