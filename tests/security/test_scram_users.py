"""SCRAM users as code on a real broker (`local up --security sasl_scram`, the module's one
cluster): a user applied logs in with its password and not with another; its `${VAR}` changed
plans "secret changed" (the digest on record decides), and once applied the old password is
refused; removed from the spec it is a user_delete hazard, and once approved its logins are
refused. Every byte the runs wrote (stdout, stderr at --debug, saved plan, files) is searched for
each secret and its base64 and hex forms (docs/access.md#scram-users).
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from reconciler.local.state import LocalCluster
from tests.security.conftest import SCRAM_CLIENT, Transcript, admin_of, make_user

pytestmark = pytest.mark.kafka

_QUIET = logging.getLogger("tests.security.scram")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def _logs_in(
    sasl: LocalCluster, user: str, password: str, mechanism: str = "SCRAM-SHA-512"
) -> bool:
    """Whether `user` with `password` logs in (a Metadata request answered); a refused login
    is librdkafka's _AUTHENTICATION error."""
    errors: list[KafkaError] = []
    conf: dict[str, Any] = {
        "bootstrap.servers": sasl.bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
        "error_cb": errors.append,
    }
    admin = AdminClient(conf, logger=_QUIET)
    try:
        admin.list_topics(timeout=10)
    except KafkaException:
        deadline = time.monotonic() + 10
        while not errors and time.monotonic() < deadline:
            admin.poll(0.2)  # the error callback is served by poll
        assert any(e.code() == KafkaError._AUTHENTICATION for e in errors), errors
        return False
    return True


def _until(
    sasl: LocalCluster, user: str, password: str, expected: bool, mechanism: str = "SCRAM-SHA-512"
) -> None:
    """Credentials reach the broker through the metadata log: poll, bounded, for the answer."""
    deadline = time.monotonic() + 60
    while _logs_in(sasl, user, password, mechanism) is not expected:
        assert time.monotonic() < deadline, f"{user}: login never became {expected}"
        time.sleep(0.5)


def _write(repo: Path, sasl: LocalCluster, users: list[dict[str, Any]], scope: str,
           acknowledge: list[dict[str, Any]] | None = None) -> None:  # fmt: skip
    policy: dict[str, Any] = {"manage": [f"^{scope}"], "ignore": ["^(?!t-never-)"]}
    if acknowledge:
        policy["acknowledge"] = acknowledge
    cluster = {"bootstrap": sasl.bootstrap, "client": SCRAM_CLIENT, "policy": policy,
               "users": users}  # fmt: skip
    (repo / "topics").mkdir(parents=True, exist_ok=True)
    (repo / "topics" / "main.yaml").write_text("topics: []\n")
    config = {"topics": "topics/", "clusters": {"sec": cluster}}
    (repo / "reconciler.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def _forms(secret: str) -> list[str]:
    raw = secret.encode()
    return [secret, base64.b64encode(raw).decode(), raw.hex(), base64.b64encode(raw).decode()[:-2]]


def _super_env(sasl: LocalCluster) -> dict[str, str]:
    """reconciler logs in as the cluster's super user; a test's users are named `s-HEX-...`."""
    config = sasl.client_config()
    return {"KUSER": config["sasl.username"], "KPASS": config["sasl.password"]}


def test_a_user_applied_logs_in_rotated_and_deleted_its_secret_in_no_output(
    sasl: LocalCluster, transcript: Transcript, tmp_path: Path
) -> None:
    env, scope = _super_env(sasl), f"s-{uuid.uuid4().hex[:8]}-"
    user = f"{scope}billing"
    first, second = (f"pw-{secrets.token_urlsafe(18)}" for _ in range(2))
    repo = tmp_path / "repo"
    transcript.dirs.append(tmp_path)
    entry = {"name": user, "password": "${BILLING_PW}"}
    _write(repo, sasl, [entry], scope)

    # created: logs in with its password, not with another
    saved = tmp_path / "plan.json"
    planned = transcript.run(repo, "plan", "-c", "sec", "--out", str(saved),
                             env={**env, "BILLING_PW": first})  # fmt: skip
    assert planned.code == 0, planned.stderr
    assert f"+ user {user} SCRAM-SHA-512: secret set (from ${{BILLING_PW}})" in planned.stdout
    # the saved plan carries a salted digest of the secret, never the secret: applied with
    # another one in the variable, it is refused before anything changes
    stale = transcript.run(repo, "apply", "-c", "sec", str(saved), "--auto-approve",
                           env={**env, "BILLING_PW": second})  # fmt: skip
    assert stale.code == 1, stale.stdout + stale.stderr
    assert "is not the one the saved plan was made with" in " ".join(stale.stderr.split())
    assert not _logs_in(sasl, user, second)
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", str(saved),
                             "--auto-approve", env={**env, "BILLING_PW": first})  # fmt: skip
    assert applied.code == 0, applied.stderr
    _until(sasl, user, first, True)
    assert not _logs_in(sasl, user, second)
    again = transcript.run(repo, "--debug", "plan", "-c", "sec", env={**env, "BILLING_PW": first})
    assert again.code == 0 and "No changes" in again.stdout, again.stdout
    drift = transcript.run(repo, "drift", "-c", "sec", "--format", "json",
                           env={**env, "BILLING_PW": first})  # fmt: skip
    assert drift.code == 0, drift.stdout + drift.stderr

    # the variable changed: the digest on record says so; applied, the old password is refused
    for fmt in ("text", "json", "markdown"):
        rotated = transcript.run(repo, "plan", "-c", "sec", "--format", fmt,
                                 env={**env, "BILLING_PW": second})  # fmt: skip
        assert rotated.code == 0 and "secret changed" in rotated.stdout, rotated.stdout
    drifted = transcript.run(repo, "--debug", "drift", "-c", "sec",
                             env={**env, "BILLING_PW": second})  # fmt: skip
    assert drifted.code == 2 and "secret changed" in drifted.stdout, drifted.stdout
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", "--auto-approve",
                             env={**env, "BILLING_PW": second})  # fmt: skip
    assert applied.code == 0, applied.stderr
    _until(sasl, user, first, False)
    assert _logs_in(sasl, user, second)

    # import: every credential with a placeholder; one made by hand has no digest on record,
    # which the plan says in words, and the first apply records (the same password: it still
    # logs in)
    by_hand = make_user(admin_of(sasl), f"{scope}by-hand")
    imported = transcript.run(
        repo, "import", "-c", "sec", "--users", env={**env, "BILLING_PW": second}
    )
    assert imported.code == 0, imported.stderr
    entries = [u for u in yaml.safe_load(imported.stdout)["users"] if u["name"].startswith(scope)]
    assert entries == [
        {"name": user, "password": "${RECONCILER_USER_" + user.upper().replace("-", "_") + "}"},
        {"name": by_hand.user, "iterations": 8192,
         "password": "${RECONCILER_USER_" + by_hand.user.upper().replace("-", "_") + "}"},
    ], imported.stdout  # fmt: skip
    _write(repo, sasl, entries, scope)
    values = {entries[0]["password"][2:-1]: second, entries[1]["password"][2:-1]: by_hand.password}
    unknown = transcript.run(repo, "plan", "-c", "sec", env={**env, **values})
    assert unknown.code == 0, unknown.stderr
    assert f"~ user {by_hand.user} SCRAM-SHA-512: secret not known to reconciler" in unknown.stdout
    assert f"user {user} " not in unknown.stdout  # its digest is on record: unchanged
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env={**env, **values})
    assert applied.code == 0, applied.stderr
    assert "No changes" in transcript.run(repo, "plan", "-c", "sec", env={**env, **values}).stdout
    assert _logs_in(sasl, by_hand.user, by_hand.password)

    # a snapshot holds no credential: a plan from it says it shows no user change (P137)
    snap = tmp_path / "snap.json"
    taken = transcript.run(repo, "--debug", "snapshot", "-c", "sec", "-o", str(snap),
                           env={**env, **values})  # fmt: skip
    assert taken.code == 0, taken.stderr
    offline = transcript.run(repo, "plan", "-c", "sec", "--state", str(snap),
                             env={**env, **values})  # fmt: skip
    assert "P137" in offline.stdout + offline.stderr and "SCRAM" in offline.stdout + offline.stderr

    # removed from the spec: a hazard apply refuses until the policy approves it
    _write(repo, sasl, [], scope)
    refused = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=env)
    assert refused.code == 1 and "user_delete" in refused.stdout + refused.stderr, refused.stdout
    assert _logs_in(sasl, user, second)
    items = [{"user_delete": {"key": f"{who} SCRAM-SHA-512", "from": "present", "to": "absent"}}
             for who in (by_hand.user, user)]  # fmt: skip
    _write(repo, sasl, [], scope, items)
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", "--auto-approve", env=env)
    assert applied.code == 0, applied.stderr
    _until(sasl, user, second, False)

    for secret in (first, second, by_hand.password):
        for form in _forms(secret):
            assert transcript.leaks(form) == [], form


def test_a_sha_256_credential_logs_in_with_its_mechanism_only_and_its_iterations_change(
    sasl: LocalCluster, transcript: Transcript, tmp_path: Path
) -> None:
    env, scope = _super_env(sasl), f"s-{uuid.uuid4().hex[:8]}-"
    user, password = f"{scope}orders.api", f"pw-{secrets.token_urlsafe(18)}"
    transcript.dirs.append(tmp_path)
    repo = tmp_path / "repo"
    entry = {"name": user, "mechanism": "SCRAM-SHA-256", "iterations": 8192,
             "password": "${ORDERS_PW}"}  # fmt: skip
    _write(repo, sasl, [entry], scope)
    run_env = {**env, "ORDERS_PW": password}
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=run_env)
    assert applied.code == 0, applied.stderr
    assert f"+ user {user} SCRAM-SHA-256: secret set" in applied.stdout, applied.stdout
    _until(sasl, user, password, True, "SCRAM-SHA-256")
    assert not _logs_in(sasl, user, password)  # no SCRAM-SHA-512 credential
    entry["iterations"] = 4096
    _write(repo, sasl, [entry], scope)
    planned = transcript.run(repo, "plan", "-c", "sec", "--format", "json", env=run_env)
    assert planned.code == 0, planned.stderr
    (change,) = json.loads(planned.stdout)["users"]
    assert change["reasons"] == ["iterations 8192 -> 4096"], change
    assert change["iterations"] == {"before": 8192, "after": 4096}
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=run_env)
    assert applied.code == 0, applied.stderr
    assert "No changes" in transcript.run(repo, "plan", "-c", "sec", env=run_env).stdout
    assert _logs_in(sasl, user, password, "SCRAM-SHA-256")
    for form in _forms(password):
        assert transcript.leaks(form) == [], form
