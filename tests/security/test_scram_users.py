"""SCRAM users as code on a real broker (`local up --security sasl_scram`: `scram_cluster`,
shared with test_sasl_acls and test_access_acls): a user applied logs in with its password and
not with another; its `${VAR}` changed plans "secret changed" (the digest on record decides),
and once applied the old password is refused; removed from the spec it is a user_delete
hazard, and once approved its logins are refused. Every byte the runs wrote (stdout, stderr at
--debug, saved plan, files) is searched for each secret and its base64 and hex forms
(docs/access.md#scram-users). A snapshot of ACLs, quotas and users plans, with `plan
--state`, the access, quota and user changes the live plan plans, and holds no secret, salt or
digest (docs/cluster-state.md).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from reconciler.cluster import jsonl
from reconciler.cluster.protocol.reserved import USERS_TOPIC
from reconciler.cluster.snapshot import load_snapshot
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.security.conftest import SCRAM_CLIENT, Transcript, admin_of, make_user

pytestmark = pytest.mark.kafka

_QUIET = logging.getLogger("tests.security.scram")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def _logs_in(
    sasl: LocalCluster, user: str, password: str, mechanism: str = "SCRAM-SHA-512"
) -> bool:
    """Whether `user` with `password` logs in (a Metadata request answered); a refused login
    is librdkafka's _AUTHENTICATION error, answered as soon as the broker refuses (a refused
    client's Metadata request is never answered: waiting on it alone waits out its timeout)."""
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
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            admin.list_topics(timeout=0.5)
            return True
        except KafkaException:
            admin.poll(0.1)  # the error callback is served by poll
        if any(e.code() == KafkaError._AUTHENTICATION for e in errors):
            return False
    raise AssertionError(f"{user}: neither logged in nor refused in 20 s: {errors}")


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
    (repo / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))


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

    # a snapshot holds no secret or digest: a plan from it says it cannot show a changed
    # secret (P137; the snapshot's own test is below)
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


def _digest_records(sasl: LocalCluster) -> list[dict[str, Any]]:
    """The records of `_reconciler_users` (the salted digests apply keeps), read to the end."""
    consumer = Consumer({
        "bootstrap.servers": sasl.bootstrap, **sasl.client_config(), "group.id": uuid.uuid4().hex,
        "enable.auto.commit": False, "enable.partition.eof": True,
    }, logger=_QUIET)  # fmt: skip
    consumer.assign([TopicPartition(USERS_TOPIC, 0, -2)])  # OFFSET_BEGINNING
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(1)
            if message is None:
                continue
            error = message.error()
            if error is not None and error.code() == KafkaError._PARTITION_EOF:
                return found
            assert error is None, error
            found.append(json.loads(message.value() or b"null"))
    finally:
        consumer.close()
    raise AssertionError("the end of _reconciler_users was never reached")


def _changes(plan: dict[str, Any]) -> dict[str, Any]:
    """A JSON plan's access, quota and user changes (a change's `secret_digest` is salted
    afresh by each plan: left out)."""
    return {
        "access": {c["topic"]: c["access"] for c in plan["changes"] if c.get("access")},
        "acls": plan.get("acls", []),
        "quotas": plan.get("quotas", []),
        "users": [{k: v for k, v in u.items() if k != "secret_digest"} for u in plan["users"]],
    }


def _access_repo(repo: Path, sasl: LocalCluster, scope: str, second: bool) -> None:
    """A topic whose access grants a producer and a consumer, a user's quota and the user
    itself; `second`: another consumer in a group, the quota raised and a second key, the
    user's iterations doubled and a new user (the hand-made one not listed: a delete)."""
    billing, consumer = f"{scope}billing", f"User:{scope}audit"
    consumers: list[dict[str, Any]] = [{"principal": consumer}]
    quota: dict[str, Any] = {"user": billing, "producer_byte_rate": 1048576}
    users: list[dict[str, Any]] = [{"name": billing, "password": "${BILLING_PW}"}]
    if second:
        consumers = [{"principal": f"User:{scope}other", "groups": [f"{scope}group"]}]
        quota |= {"producer_byte_rate": 2097152, "consumer_byte_rate": 1048576}
        users = [users[0] | {"iterations": 8192}, {"name": f"{scope}new", "password": "${NEW_PW}"}]
    access = {"producers": [{"principal": f"User:{billing}"}], "consumers": consumers}
    topic = {"name": f"{scope}orders", "partitions": 1, "replication_factor": 1, "access": access}
    (repo / "topics").mkdir(parents=True, exist_ok=True)
    (repo / "topics" / "main.yaml").write_text(yaml_text.safe_dump({"topics": [topic]}))
    cluster = {"bootstrap": sasl.bootstrap, "client": SCRAM_CLIENT,
               "policy": {"manage": [f"^{scope}"]}, "quotas": [quota], "users": users}  # fmt: skip
    config = {"topics": "topics/", "clusters": {"sec": cluster}}
    (repo / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))


def test_a_snapshot_plans_access_quotas_and_users_as_the_live_plan_and_holds_no_secret(
    sasl: LocalCluster, transcript: Transcript, tmp_path: Path
) -> None:
    scope = f"s-{uuid.uuid4().hex[:8]}-"
    passwords = {"BILLING_PW": f"pw-{secrets.token_urlsafe(18)}",
                 "NEW_PW": f"pw-{secrets.token_urlsafe(18)}"}  # fmt: skip
    env = {**_super_env(sasl), **passwords}
    repo = tmp_path / "repo"
    transcript.dirs.append(tmp_path)
    _access_repo(repo, sasl, scope, second=False)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=env)
    assert applied.code == 0, applied.stdout + applied.stderr
    # what apply set reaches the reads through the metadata log: once a plan shows nothing
    # left, the snapshot and the live plan below read the same cluster
    deadline = time.monotonic() + 60
    while "No changes" not in (done := transcript.run(repo, "plan", "-c", "sec", env=env)).stdout:
        assert time.monotonic() < deadline, done.stdout + done.stderr
        time.sleep(0.5)
    # a credential made by hand, with a salt of the test's own, to look for in the snapshot
    by_hand, hand_password, salt = f"{scope}by-hand", secrets.token_urlsafe(18), os.urandom(32)
    admin = admin_of(sasl)
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)
    upsert = UserScramCredentialUpsertion(by_hand, info, hand_password.encode(), salt)
    for future in admin.alter_user_scram_credentials([upsert]).values():
        future.result(30)
    _until(sasl, by_hand, hand_password, True)

    _access_repo(repo, sasl, scope, second=True)
    snap, lines = tmp_path / "snap.json", tmp_path / "snap.jsonl"
    for out in (snap, lines):
        taken = transcript.run(repo, "snapshot", "-c", "sec", "-o", str(out), env=env)
        assert taken.code == 0, taken.stderr
    live = transcript.run(repo, "plan", "-c", "sec", "--format", "json", env=env)
    offline = transcript.run(
        repo, "plan", "-c", "sec", "--state", str(snap), "--format", "json", env=env
    )
    # not applyable, both: the consumer's revoke and the user's delete are hazards to approve
    assert (live.code, offline.code) == (1, 1), live.stderr + offline.stderr
    planned, from_snapshot = json.loads(live.stdout), json.loads(offline.stdout)
    assert _changes(from_snapshot) == _changes(planned)
    changes = _changes(planned)
    assert {a["action"] for a in changes["access"][f"{scope}orders"]} == {"grant", "revoke"}
    assert [(q["key"], q["before"], q["after"]) for q in changes["quotas"]] == [
        ("consumer_byte_rate", None, 1048576), ("producer_byte_rate", 1048576, 2097152),
    ]  # fmt: skip
    assert [(u["name"], u["action"], u["reasons"]) for u in changes["users"]] == [
        (f"{scope}billing", "update", ["iterations 4096 -> 8192"]),
        (by_hand, "delete", ["deleted: not in users:"]),
        (f"{scope}new", "create", ["secret set"]),
    ]
    # the one thing a snapshot cannot show: whether a secret changed
    warned = [d["message"] for d in from_snapshot["diagnostics"] if d["code"] == "P137"]
    assert len(warned) == 1 and "keeps no SCRAM secret or digest" in warned[0], warned
    # the JSON Lines form holds the same parts
    _, state = load_snapshot(snap)
    _, _, from_lines = jsonl.load(lines)
    assert (from_lines.acls, from_lines.quotas, from_lines.scram, from_lines.unread) == (
        state.acls, state.quotas, state.scram, (),
    )  # fmt: skip

    # no secret, salt or digest: Kafka's salt of the hand-made user, reconciler's records
    records = [r for r in _digest_records(sasl) if str(r.get("user", "")).startswith(scope)]
    assert records, "apply recorded no digest"
    held = {f"{r['user']} {r['mechanism']}" for r in records}
    assert held == {f"{scope}billing SCRAM-SHA-512"}, held
    kept = [r[k] for r in records for k in ("salt", "digest")]
    raw = [salt.hex(), base64.b64encode(salt).decode(), *kept, '"salt"', '"digest"']
    for path in (snap, lines):
        text = path.read_text()
        for secret in (*passwords.values(), hand_password):
            assert not [f for f in _forms(secret) if f in text], path
        assert [x for x in raw if x in text] == [], path
        assert salt not in path.read_bytes()
    for secret in (*passwords.values(), hand_password):
        for form in _forms(secret):
            assert transcript.leaks(form) == [], form
