"""A cluster's `users:` against the SCRAM credentials Kafka shows and the digests on record: a
credential created, its secret changed (by the digest), its iterations changed, a secret not
known to reconciler said in words, a credential not listed deleted only within policy.manage
and only once approved; never the secret nor its digest in any output."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from reconciler.cluster.protocol.scram import ClusterScram, ScramCredential, SecretDigest
from reconciler.cluster.secret_digest import digest_of
from reconciler.planning.drift import drift
from reconciler.planning.drift import to_json as drift_json
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import Plan, make_plan
from reconciler.planning.scram_secrets import same_secret
from reconciler.render.drift_report import render_drift_markdown, render_drift_text
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.model import Acknowledgment, ClusterConfig, Policy
from reconciler.spec.scram_users import ScramUser
from tests.planning.factories import checked_json, cluster, desired

SECRET = "s3cr3t-Pl4n-Me"
SHA512 = "SCRAM-SHA-512"
NONE = Policy()
DRIFT_SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "drift.schema.json").read_text()
)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BILLING_PW", SECRET)


def _user(name: str = "billing", iterations: int = 4096) -> ScramUser:
    return ScramUser(name, SHA512, iterations, "BILLING_PW")


def _plan(
    want: tuple[ScramUser, ...] | None,
    have: tuple[ScramCredential, ...],
    digests: tuple[SecretDigest, ...] = (),
    policy: Policy = NONE,
    client: tuple[tuple[str, str], ...] = (),
) -> Plan:
    state = dataclasses.replace(cluster(), scram=ClusterScram(have, digests))
    config = ClusterConfig("c", "b:9092", client=client, policy=policy, users=want)
    return make_plan(desired(), state, config, "x")


def _outputs(plan: Plan) -> str:
    return render_text(plan) + render_markdown(plan) + json.dumps(checked_json(plan))


def test_a_new_user_is_created_from_its_variable() -> None:
    plan = _plan((_user(),), ())
    (change,) = plan.users
    assert (change.action, change.reasons, change.variable) == ("create", ("secret set",),
                                                                "BILLING_PW")  # fmt: skip
    assert plan.applyable and not plan.empty
    text = render_text(plan)
    assert "+ user billing SCRAM-SHA-512: secret set (from ${BILLING_PW})" in text
    assert "1 SCRAM user change" in text
    assert SECRET not in _outputs(plan)


def test_an_unchanged_secret_plans_nothing_and_a_changed_one_an_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_record = digest_of("billing", SHA512, SECRET.encode())
    have = (ScramCredential("billing", SHA512, 4096),)
    assert _plan((_user(),), have, (on_record,)).users == ()
    monkeypatch.setenv("BILLING_PW", SECRET + "-rotated")
    (change,) = _plan((_user(),), have, (on_record,)).users
    assert (change.action, change.reasons) == ("update", ("secret changed",))
    (change,) = _plan((_user(iterations=8192),), have, (on_record,)).users
    assert change.reasons == ("iterations 4096 -> 8192", "secret changed")


def test_a_credential_without_a_digest_on_record_is_said_in_words() -> None:
    plan = _plan((_user(),), (ScramCredential("billing", SHA512, 4096),))
    (change,) = plan.users
    assert change.action == "update"
    assert "secret not known to reconciler (no digest on record)" in render_text(plan)


def test_a_credential_not_listed_is_deleted_within_manage_once_approved() -> None:
    have = (ScramCredential("payments-api", SHA512, 4096), ScramCredential("other", SHA512, 4096),
            ScramCredential("reconciler", SHA512, 4096))  # fmt: skip
    everything = _plan((), have, client=(("sasl.username", "reconciler"),))
    # the user reconciler logs in as is never deleted (apply would lock itself out)
    assert [u.name for u in everything.users] == ["other", "payments-api"]
    scoped = _plan((), have, policy=Policy(manage=("^payments-",)))
    (change,) = scoped.users
    (hazard,) = change.hazards
    item = {"key": "payments-api SCRAM-SHA-512", "from": "present", "to": "absent"}
    assert hazard.code == "user_delete" and hazard.approve_with == {"user_delete": item}
    assert not scoped.applyable
    assert "- user payments-api SCRAM-SHA-512: deleted" in render_text(scoped)
    approved = Policy(manage=("^payments-",),
                      acknowledge=(Acknowledgment.of({"user_delete": item}),))  # fmt: skip
    assert _plan((), have, policy=approved).applyable


def test_no_users_declared_or_not_read_plans_none() -> None:
    assert _plan(None, (ScramCredential("x", SHA512, 4096),)).users == ()
    config = ClusterConfig("c", "b:9092", users=(_user(),))
    assert make_plan(desired(), cluster(), config, "x").users == ()


def test_the_json_plan_names_the_variable_never_the_secret_and_reads_back() -> None:
    plan = _plan((_user(),), (ScramCredential("gone", SHA512, 8192),))
    data = checked_json(plan)
    assert data["users"][0]["password_from"] == "BILLING_PW"
    assert from_json(data).users == plan.users
    assert SECRET not in json.dumps(data)


def test_drift_reports_each_credential_that_differs_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_record = digest_of("billing", SHA512, SECRET.encode())
    have = (ScramCredential("billing", SHA512, 4096),)
    state = dataclasses.replace(cluster(), scram=ClusterScram(have, (on_record,)))
    config = ClusterConfig("c", "b:9092", users=(_user(),))
    assert drift(make_plan(desired(), state, config, "x"), desired(), state).in_sync
    monkeypatch.setenv("BILLING_PW", SECRET + "-rotated")
    report = drift(make_plan(desired(), state, config, "sha256:" + "0" * 64), desired(), state)
    assert not report.in_sync
    data = drift_json(report)
    jsonschema.validate(data, DRIFT_SCHEMA)
    assert data["users"] == [{"name": "billing", "mechanism": SHA512, "action": "update",
                              "reasons": ["secret changed"]}]  # fmt: skip
    text = render_drift_text(report) + render_drift_markdown(report)
    assert "user billing SCRAM-SHA-512: secret changed (from ${BILLING_PW})" in text
    assert SECRET not in text + json.dumps(data)


def test_a_change_carries_a_salted_digest_of_its_secret_for_the_saved_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan((_user(),), ())
    (change,) = plan.users
    assert change.secret_digest is not None and same_secret("BILLING_PW", change.secret_digest)
    assert change.secret_digest not in render_text(plan) + render_markdown(plan)
    assert from_json(checked_json(plan)).users[0].secret_digest == change.secret_digest
    monkeypatch.setenv("BILLING_PW", SECRET + "-other")
    assert not same_secret("BILLING_PW", change.secret_digest)
