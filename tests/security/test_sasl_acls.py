"""SASL/SCRAM-SHA-512 with ACLs on a real broker: good credentials work; a wrong password and
each missing ACL fail with one sentence naming what is missing, with nothing changed; no
password ever shows up in what the tool printed or wrote.

One cluster (`local up --security sasl_scram` code), shared with test_scram_users.py and
test_access_acls.py (`scram_cluster`, tests/security/conftest.py). Each test makes its own
SCRAM user (random password) with the admin, grants it ACLs on its own topic prefix, and runs
the CLI as that user, the password passed through ${KPASS} in reconciler.yaml.

The ACL port's contract (`acl_side`, at the end) runs on the fake and on this cluster, as
tests/contract/ does for the other ports: its fake half uses no broker, so it carries no
`kafka` marker (tests/conftest.py marks each test using the cluster) and `make check` runs it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from reconciler.cluster import acls
from reconciler.cluster.adapter import Cluster, Connection
from reconciler.cluster.protocol import acls as acls_protocol
from reconciler.cluster.protocol.reserved import USERS_TOPIC
from reconciler.errors import ClusterError
from reconciler.local import security
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.contract.conftest import Port, shown
from tests.fakes.cluster import FakeKafka
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.security.conftest import (
    SCRAM_CLIENT,
    SIX,
    Principal,
    Run,
    Transcript,
    admin_of,
    all_but,
    create_acls,
    grant,
    make_user,
    topics_view,
    write_repo,
)

CLIENT = SCRAM_CLIENT
PASSWORDS: list[str] = []  # every password this module used: none may leak


@pytest.fixture(scope="module")
def admin(sasl: LocalCluster) -> AdminClient:
    PASSWORDS.append(security.client_config(sasl.state_dir, "sasl_scram")["sasl.password"])
    return admin_of(sasl)


@pytest.fixture
def prefix(request: pytest.FixtureRequest) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:40]
    return f"s.{slug}.{uuid.uuid4().hex[:6]}."


def _user(admin: AdminClient, ops: set[str], prefix: str) -> Principal:
    who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")
    PASSWORDS.append(who.password)
    grant(admin, who.user, prefix, ops)
    return who


def _create(admin: AdminClient, *names: str) -> None:
    if not names:
        return
    futures = admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1)
                                   for n in names])  # fmt: skip
    for future in futures.values():
        future.result(30)


def _error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, stderr
    return lines[0]


def _refused_on_cluster(result: Run, who: Principal, missing: str, why: str) -> None:
    """Exit 1 with the one sentence naming `missing` on the cluster, needed for `why`."""
    assert result.code == 1, result.stdout + result.stderr
    line = _error_line(result.stderr)
    expected = f"principal User:{who.user} lacks {missing} on cluster 'sec' (needed to {why})"
    assert expected in line, line
    assert "nothing was changed" in line, line


# ---------------------------------------------------------------------------- good credentials


def test_good_credentials_plan_and_apply_everything(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """A principal holding the six operations (Describe, DescribeConfigs, Create, Alter,
    AlterConfigs, Delete) can plan and apply a create, a partition increase, a config change and
    a prune delete over SASL/SCRAM-SHA-512 with ACLs enforced."""
    transcript.dirs.append(tmp_path)
    _create(admin, f"{prefix}orders", f"{prefix}extra")
    who = _user(admin, all_but(""), prefix)
    topics = [
        {"name": f"{prefix}orders", "partitions": 2, "replication_factor": 1,
         "config": {"retention.ms": "14d"}},
        {"name": f"{prefix}new", "partitions": 1, "replication_factor": 1},
    ]  # fmt: skip
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, topics, allow_delete=True)
    plan = transcript.run(repo, "plan", "--cluster", "sec", "--prune", "-o",
                          str(tmp_path / "plan.json"), env=who.env)  # fmt: skip
    assert plan.code == 0, plan.stderr
    assert "Plan: 1 to create, 1 to update, 1 to delete" in plan.stdout
    applied = transcript.run(repo, "apply", "-c", "sec", str(tmp_path / "plan.json"),
                             "--auto-approve", "--audit-json", str(tmp_path / "audit.json"),
                             env=who.env)  # fmt: skip
    assert applied.code == 0, applied.stderr
    view = topics_view(admin, prefix)
    assert sorted(view) == [f"{prefix}new", f"{prefix}orders"]
    assert view[f"{prefix}orders"]["partitions"] == 2
    assert view[f"{prefix}orders"]["config"]["retention.ms"] == str(14 * 86400000)
    again = transcript.run(repo, "plan", "--cluster", "sec", "--prune", env=who.env)
    assert again.code == 0 and "No changes" in again.stdout


def test_wrong_password_is_one_sentence(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """A wrong password: exit 1 and one sentence saying the cluster refused the credentials,
    as soon as it does: with a request timeout of 10 minutes, waiting for it would outlast the
    run's 3-minute bound (a hang detector, not a speed check)."""
    transcript.dirs.append(tmp_path)
    who = _user(admin, all_but(""), prefix)
    wrong = Principal(who.user, who.password[::-1])
    PASSWORDS.append(wrong.password)
    client = {**CLIENT, "request.timeout.ms": "600000"}
    topics = [{"name": f"{prefix}a", "partitions": 1, "replication_factor": 1}]
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, client, topics)
    for command in (("plan",), ("apply", "--auto-approve")):
        result = transcript.run(repo, *command, "--cluster", "sec", env=wrong.env)
        assert result.code == 1
        line = _error_line(result.stderr)
        assert f"refused the credentials of User:{who.user}" in line, line
        assert "check sasl.username, sasl.password and sasl.mechanism" in line
    assert topics_view(admin, prefix) == {}


# ---------------------------------------------------------------------------- missing ACLs

# missing operation -> (command, cluster topics before, spec topics, allow_delete, resource)
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...], list[dict[str, Any]], bool, str]] = {
    "Describe": (("plan",), ("orders",),
                 [{"name": "orders", "partitions": 1, "replication_factor": 1}], False,
                 "cluster 'sec'"),
    "DescribeConfigs": (("plan",), ("orders",),
                        [{"name": "orders", "partitions": 1, "replication_factor": 1}], False,
                        "topic {p}orders of cluster 'sec'"),
    "Create": (("apply", "--auto-approve"), (),
               [{"name": "new", "partitions": 1, "replication_factor": 1}], False,
               "topic {p}new of cluster 'sec'"),
    "Alter": (("apply", "--auto-approve"), ("orders",),
              [{"name": "orders", "partitions": 2, "replication_factor": 1}], False,
              "topic {p}orders of cluster 'sec'"),
    "AlterConfigs": (("apply", "--auto-approve"), ("orders",),
                     [{"name": "orders", "partitions": 1, "replication_factor": 1,
                       "config": {"retention.ms": "14d"}}], False,
                     "topic {p}orders of cluster 'sec'"),
    "Delete": (("apply", "--auto-approve", "--prune"), ("orders", "extra"),
               [{"name": "orders", "partitions": 1, "replication_factor": 1}], True,
               "topic {p}extra of cluster 'sec'"),
}  # fmt: skip


@pytest.mark.parametrize("missing", list(CASES))
def test_each_missing_acl_is_one_sentence_and_changes_nothing(
    sasl: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    missing: str,
) -> None:
    """A principal granted all but one of the six operations: the command exits 1 with one
    sentence naming the principal, the missing operation and the resource; the cluster is as
    it was (checked as the admin)."""
    transcript.dirs.append(tmp_path)
    command, existing, topics, allow_delete, resource = CASES[missing]
    _create(admin, *(prefix + t for t in existing))
    who = _user(admin, all_but(missing), prefix)
    specs = [{**t, "name": prefix + t["name"]} for t in topics]
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, specs, allow_delete)
    before = topics_view(admin, prefix)
    result = transcript.run(repo, *command, "--cluster", "sec", env=who.env)
    assert result.code == 1, result.stdout + result.stderr
    line = _error_line(result.stderr)
    expected = f"principal User:{who.user} lacks {missing} on {resource.format(p=prefix)} ("
    assert expected in line, line
    assert "nothing was changed" in line
    assert topics_view(admin, prefix) == before


# Client quotas are the cluster's configs: the operation missing on the cluster -> the command
# that needs it first and what the sentence says it was needed for. Without DescribeConfigs on
# the cluster, the broker defaults' read (KIP-464) is refused before the quotas' (both need it);
# the quota read's own sentence is test_permission_sentences.py's.
QUOTA_CASES = {"DescribeConfigs": (("plan",), "describe the configs of 1")}


@pytest.mark.parametrize("missing", list(QUOTA_CASES))
def test_quotas_without_the_cluster_acl_they_need_are_one_sentence_and_change_nothing(
    sasl: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    missing: str,
) -> None:
    """DescribeClientQuotas needs DescribeConfigs on the cluster (AlterClientQuotas's
    AlterConfigs: the pre-flight test below). A principal holding every operation on its
    topics but lacking it on the cluster, with `quotas:` and a topic create: exit 1, one
    sentence naming the operation and what it was needed for, and neither the topic nor the
    quota is made."""
    transcript.dirs.append(tmp_path)
    who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")
    PASSWORDS.append(who.password)
    grant(admin, who.user, prefix, all_but(""), on_cluster=all_but(missing))
    specs = [{"name": f"{prefix}new", "partitions": 1, "replication_factor": 1}]
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, specs)
    config = yaml.safe_load((repo / "reconciler.yaml").read_text())
    config["clusters"]["sec"]["quotas"] = [{"user": who.user, "producer_byte_rate": 1048576}]
    (repo / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))
    command, why = QUOTA_CASES[missing]
    result = transcript.run(repo, *command, "--cluster", "sec", env=who.env)
    _refused_on_cluster(result, who, missing, why)
    assert topics_view(admin, prefix) == {}
    conn = Connection("sec", sasl.bootstrap, tuple(sasl.client_config().items()))
    with Cluster(conn) as cluster:  # Kafka's DescribeClientQuotas, as the super user
        held = [q for q in cluster.quotas().quotas if q.entity.user == who.user]
    assert held == []


# Apply's pre-flight (apply/check/access.py): a change of the cluster's access, with a topic
# create, as a principal holding Describe and DescribeConfigs on the cluster (so it plans) but
# not the operation that change needs: the kind -> that operation and what it is needed for
PREFLIGHT_CASES = {
    "acl": ("Alter", "grant and revoke ACLs"),  # CreateAcls, DeleteAcls
    "user": ("Alter", "change SCRAM users"),  # AlterUserScramCredentials
    "quota": ("AlterConfigs", "change client quotas"),  # AlterClientQuotas
}


@pytest.mark.parametrize("kind", list(PREFLIGHT_CASES))
def test_an_access_change_without_its_cluster_acl_is_refused_before_any_change(
    sasl: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    kind: str,
) -> None:
    """The sentence the fake's test expects (tests/apply/test_access_apply.py), from a real
    broker's KIP-430 answer: exit 1, one sentence naming the operation on the cluster and what
    it was needed for, and nothing changed (read back as the super user): neither the topic
    created before it in the plan, nor the grant, the credential or the quota."""
    transcript.dirs.append(tmp_path)
    missing, why = PREFLIGHT_CASES[kind]
    who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")
    PASSWORDS.append(who.password)
    grant(admin, who.user, prefix, all_but(""), on_cluster=all_but(missing))
    # The SCRAM digests' topic, which a user change reads. Read implies Describe, so once
    # another module has created the topic every read lists it and asks its configs: the
    # DescribeConfigs every plan principal holds on every topic (`reconciler help security`)
    create_acls(admin, who.user, [
        AclBinding(ResourceType.TOPIC, USERS_TOPIC, ResourcePatternType.LITERAL,
                   f"User:{who.user}", "*", op, AclPermissionType.ALLOW)
        for op in (AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                   AclOperation.DESCRIBE_CONFIGS)
    ])  # fmt: skip
    newcomer = f"n-{uuid.uuid4().hex[:8]}"  # the principal the change is about
    topic: dict[str, Any] = {"name": f"{prefix}new", "partitions": 1, "replication_factor": 1}
    if kind == "acl":
        topic["access"] = {"consumers": [{"principal": f"User:{newcomer}"}]}
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, [topic])
    config = yaml.safe_load((repo / "reconciler.yaml").read_text())
    cluster = config["clusters"]["sec"]
    # the test's topics and its own user: the other tests' users are not this one's to delete
    cluster["policy"]["manage"] = [re.escape(prefix), f"^{re.escape(newcomer)}$"]
    if kind == "user":
        cluster["users"] = [{"name": newcomer, "password": "${NEWCOMER_PASSWORD}"}]
    if kind == "quota":
        cluster["quotas"] = [{"user": newcomer, "producer_byte_rate": 1048576}]
    (repo / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))
    secret = secrets.token_urlsafe(18)
    PASSWORDS.append(secret)
    env = {**who.env, "NEWCOMER_PASSWORD": secret}
    result = transcript.run(repo, "apply", "--auto-approve", "--cluster", "sec", env=env)
    _refused_on_cluster(result, who, missing, why)
    assert topics_view(admin, prefix) == {}
    conn = Connection("sec", sasl.bootstrap, tuple(sasl.client_config().items()))
    with Cluster(conn) as super_user:  # Kafka's own answers, as the super user
        assert not [b for b in super_user.acls().bindings if newcomer in b.principal]
        assert not [c for c in super_user.scram().credentials if c.user == newcomer]
        assert not [q for q in super_user.quotas().quotas if q.entity.user == newcomer]


@pytest.mark.parametrize("command", [("plan",), ("apply", "--auto-approve")])
def test_describe_missing_on_the_topic_only_is_caught_before_a_create(
    sasl: LocalCluster,
    admin: AdminClient,
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    command: tuple[str, ...],
) -> None:
    """Without Describe on a topic (Describe on the cluster granted), Kafka hides it from the
    topic list, so it looks absent and a plan would propose to create a topic that exists: plan
    and apply name the missing Describe on that topic instead."""
    transcript.dirs.append(tmp_path)
    _create(admin, f"{prefix}orders")
    who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")
    PASSWORDS.append(who.password)
    on_topics = {"DescribeConfigs", "Create", "AlterConfigs"}
    grant(admin, who.user, prefix, on_topics, on_cluster=on_topics | {"Describe"})
    specs = [{"name": f"{prefix}orders", "partitions": 1, "replication_factor": 1}]
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, specs)
    before = topics_view(admin, prefix)
    result = transcript.run(repo, *command, "--cluster", "sec", env=who.env)
    assert result.code == 1
    line = _error_line(result.stderr)
    assert f"principal User:{who.user} lacks Describe on topic {prefix}orders" in line, line
    assert "Kafka hides it, so it looks absent" in line
    assert topics_view(admin, prefix) == before


def test_status_names_listener_and_credentials_file_never_the_password(
    sasl: LocalCluster, transcript: Transcript, tmp_path: Path
) -> None:
    """`local status` of a `--security sasl_scram` cluster names the SCRAM listener, the ACLs and
    the credentials file; the secrets live only in files of mode 0600."""
    status = transcript.run(tmp_path, "local", "--state-dir", str(sasl.state_dir), "status",
                            env={})  # fmt: skip
    assert status.code == 0, status.stderr
    assert "security: SASL_PLAINTEXT listener, SCRAM-SHA-512, ACLs enforced" in status.stdout
    creds = sasl.state_dir / "security" / "client.properties"
    assert f"credentials: {creds}" in status.stdout
    assert "sasl.password=" in creds.read_text()
    secret_files = [*(sasl.state_dir / "security").iterdir(), sasl.state_dir / "n1" /
                    "server.properties"]  # fmt: skip
    assert {f.name: oct(f.stat().st_mode & 0o777) for f in secret_files} == {
        f.name: "0o600" for f in secret_files
    }
    assert oct((sasl.state_dir / "security").stat().st_mode & 0o777) == "0o700"
    again = transcript.run(tmp_path, "local", "--state-dir", str(sasl.state_dir), "up",
                           "--security", "sasl_scram", env={})  # fmt: skip
    assert again.code == 0 and "already running" in again.stderr
    assert "security: SASL_PLAINTEXT listener" in again.stdout
    other = transcript.run(tmp_path, "local", "--state-dir", str(sasl.state_dir), "up",
                           "--security", "tls", env={})  # fmt: skip
    assert other.code == 1
    assert "has --security sasl_scram, not tls; run `reconciler local down` first" in other.stderr


# ---------------------------------------------------------------------------- no secret leaks


def test_no_password_in_anything_printed_or_written(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """Every byte the CLI printed in this module (with and without --debug) and every file it
    wrote (repositories, plan files, snapshots, audit JSON, and the audit records read back from
    the cluster) holds no password of any principal used, nor the admin's."""
    transcript.dirs.append(tmp_path)
    _create(admin, f"{prefix}orders")
    who = _user(admin, all_but(""), prefix)
    good = [{"name": f"{prefix}orders", "partitions": 2, "replication_factor": 1}]
    repo = write_repo(tmp_path / "good", sasl.bootstrap, prefix, CLIENT, good)
    plan_file, audit_file = tmp_path / "plan.json", tmp_path / "audit.json"
    for debug in ((), ("--debug",)):
        transcript.run(repo, *debug, "plan", "--cluster", "sec", "-o", str(plan_file), env=who.env)
        transcript.run(repo, *debug, "snapshot", "--cluster", "sec", "-o",
                       str(tmp_path / f"snapshot{len(debug)}.json"), env=who.env)  # fmt: skip
        transcript.run(repo, *debug, "validate", env=who.env)
    applied = transcript.run(repo, "--debug", "apply", "-c", "sec", str(plan_file),
                             "--auto-approve", "--audit-json", str(audit_file),
                             env=who.env)  # fmt: skip
    assert applied.code == 0, applied.stderr
    # Failures with --debug too: a wrong password and a missing ACL.
    wrong = Principal(who.user, who.password + "x")
    PASSWORDS.append(wrong.password)
    slow = write_repo(tmp_path / "fast", sasl.bootstrap, prefix,
                      {**CLIENT, "request.timeout.ms": "8000"}, good)  # fmt: skip
    assert transcript.run(slow, "--debug", "plan", "--cluster", "sec", env=wrong.env).code == 1
    limited = _user(admin, all_but("AlterConfigs"), prefix)
    changed = [{**good[0], "config": {"retention.ms": "14d"}}]
    bad = write_repo(tmp_path / "bad", sasl.bootstrap, prefix, CLIENT, changed)
    refused = transcript.run(bad, "--debug", "apply", "--auto-approve", "--cluster", "sec",
                             env=limited.env)  # fmt: skip
    assert refused.code == 1 and "lacks AlterConfigs" in refused.stderr
    # The audit records as they are stored on the cluster, read back as the admin.
    conn = Connection("sec", sasl.bootstrap, tuple(sasl.client_config().items()))
    with Cluster(conn) as cluster:
        records = cluster.read_audit()
    assert records, "the apply wrote no audit record"
    (tmp_path / "audit-read-back.jsonl").write_bytes(b"\n".join(records))
    assert json.loads(audit_file.read_text())  # the files scanned below really were written
    assert plan_file.exists() and (tmp_path / "snapshot0.json").exists()

    # The broker's own log must not hold them either (its config dump hides passwords).
    transcript.dirs.append(sasl.state_dir / "n1" / "kafka.log")
    leaks = {secret[:4] + "...": transcript.leaks(secret) for secret in PASSWORDS}
    assert len(transcript.runs) >= 10
    assert all(not where for where in leaks.values()), leaks


# ---------------------------------------------------------------------------- in-use evidence


def test_a_delete_without_describe_on_groups_is_refused_naming_the_acl(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """The six operations but no ACL on consumer groups: the group that committed offsets on the
    topic cannot be read, so its evidence counts as in use; plan and apply name the missing
    Describe on that group and the topic stays (checked as the admin)."""
    transcript.dirs.append(tmp_path)
    doomed = f"{prefix}doomed"
    _create(admin, doomed)
    group = f"{prefix}readers"
    _commit_offset(sasl, group, doomed)
    try:
        who = _user(admin, all_but(""), prefix)
        repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, [], allow_delete=True)
        planned = transcript.run(repo, "plan", "--cluster", "sec", "--prune", "--format", "json",
                                 env=who.env)  # fmt: skip
        assert planned.code == 1, planned.stdout + planned.stderr
        [change] = json.loads(planned.stdout)["changes"]
        [why] = change["evidence"]["unreadable"]
        assert f"principal User:{who.user} lacks Describe on group {group}" in why, why
        assert f"--operation Describe --group '{group}'" in why
        assert "in_use" in {h["code"] for h in change["hazards"]}
        applied = transcript.run(repo, "apply", "--cluster", "sec", "--prune", "--auto-approve",
                                 env=who.env)  # fmt: skip
        assert applied.code == 1, applied.stdout + applied.stderr
        assert f"lacks Describe on group {group}" in applied.stdout + applied.stderr
        assert doomed in topics_view(admin, prefix)
    finally:  # the module's other deletes would meet this group too
        for future in admin.delete_consumer_groups([group]).values():
            future.result(30)


# ---------------------------------------------------------------------------- init's login


def _init(transcript: Transcript, where: Path, sasl: LocalCluster, env: dict[str, str]) -> Run:
    args = [f"--client={k}={v}" for k, v in CLIENT.items()]
    return transcript.run(where.parent, "init", str(where), "--bootstrap", sasl.bootstrap,
                          "--cluster", "sec", *args, env=env)  # fmt: skip


def test_init_logs_in_with_client_settings_and_pins_the_cluster(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    transcript.dirs.append(tmp_path)
    who = _user(admin, all_but(""), prefix)
    made = _init(transcript, tmp_path / "specs", sasl, who.env)
    assert made.code == 0, made.stderr
    reported = Cluster(Connection("sec", sasl.bootstrap, tuple(sasl.client_config().items())))
    with reported as kafka:
        cluster_id = kafka.describe().cluster_id
    assert f"pinned cluster 'sec' to cluster_id {cluster_id}" in made.stdout
    written = (tmp_path / "specs" / "reconciler.yaml").read_text()
    assert '"sasl.password": "${KPASS}"' in written and who.password not in written
    # plan reads the same settings from the file init wrote
    planned = transcript.run(tmp_path / "specs", "plan", "--cluster", "sec", env=who.env)
    assert planned.code == 0, planned.stderr


def test_init_with_a_wrong_password_says_authentication_failed(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    transcript.dirs.append(tmp_path)
    who = _user(admin, all_but(""), prefix)
    wrong = Principal(who.user, who.password[::-1])
    PASSWORDS.append(wrong.password)
    made = _init(transcript, tmp_path / "specs", sasl, wrong.env)
    assert made.code == 0, made.stderr  # the repository is written, unpinned
    assert f"refused the credentials of User:{who.user}" in made.stderr, made.stderr
    assert "did not answer" not in made.stderr
    assert "pinned cluster" not in made.stdout


# ---------------------------------------------------------------------------- init's ACLs

_RESOURCES = {
    acls.EVERY_TOPIC: (ResourceType.TOPIC, "*"),
    acls.CLUSTER: (ResourceType.BROKER, "kafka-cluster"),
    acls.EVERY_GROUP: (ResourceType.GROUP, "*"),
    **{
        option: (ResourceType.TOPIC, option.split()[1])
        for option in (*acls.LOCK_AND_AUDIT, acls.USERS_DIGESTS)
    },
}


def _grant_as_init_prints(admin: AdminClient, user: str, *roles: acls.Role) -> None:
    """Exactly the ACLs `init` prints for `roles` (reconciler/cluster/acls.py), no others."""
    operations = {**SIX, "Read": AclOperation.READ, "Write": AclOperation.WRITE}
    bindings = [
        AclBinding(kind, name, ResourcePatternType.LITERAL, f"User:{user}", "*",
                   operations[op], AclPermissionType.ALLOW)
        for role in roles
        for ops, resources in acls.grants(role)
        for op in ops
        for kind, name in (_RESOURCES[r] for r in resources)
    ]  # fmt: skip
    create_acls(admin, user, bindings)


def test_the_acls_init_prints_suffice_for_plan_and_a_deletes_in_use_check(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """The plan principal with exactly init's plan grants plans a delete and reads its in-use
    evidence (the group's committed offsets): nothing unreadable, nothing it lacks."""
    transcript.dirs.append(tmp_path)
    doomed = f"{prefix}doomed"
    _create(admin, doomed)
    group = f"{prefix}readers"
    _commit_offset(sasl, group, doomed)
    try:
        who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")
        PASSWORDS.append(who.password)
        _grant_as_init_prints(admin, who.user, "plan")
        repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, [], allow_delete=True)
        planned = transcript.run(repo, "plan", "--cluster", "sec", "--prune", "--format", "json",
                                 env=who.env)  # fmt: skip
        assert "lacks" not in planned.stdout + planned.stderr, planned.stdout + planned.stderr
        [change] = json.loads(planned.stdout)["changes"]
        assert change["topic"] == doomed
        assert not change["evidence"].get("unreadable"), change["evidence"]
        assert group in json.dumps(change["evidence"])  # the group's offsets were read
    finally:
        for future in admin.delete_consumer_groups([group]).values():
            future.result(30)


def _commit_offset(sasl: LocalCluster, group: str, topic: str) -> None:
    """`group` commits offset 0 of `topic` (as the admin): what the in-use gate reads."""
    reader = Consumer({"bootstrap.servers": sasl.bootstrap, **sasl.client_config(),
                       "group.id": group, "enable.auto.commit": False},
                      logger=QUIET_LIBRDKAFKA)  # fmt: skip
    try:
        reader.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)
    finally:
        reader.close()


def test_a_read_only_plan_principal_gets_its_plan_with_kafkas_check_said_missing(
    sasl: LocalCluster, admin: AdminClient, transcript: Transcript, prefix: str, tmp_path: Path
) -> None:
    """Plan sends its creates, config updates and partition increases validate_only (P135 when
    Kafka refuses one). A pull request's principal that may only read (Describe and
    DescribeConfigs) cannot send them even so: the plan is made all the same (--detailed-exitcode:
    2, changes without errors), with one
    warning (P136) naming the topics Kafka did not check, never an error and never a refusal."""
    transcript.dirs.append(tmp_path)
    _create(admin, f"{prefix}orders", f"{prefix}audit")
    who = _user(admin, {"Describe", "DescribeConfigs"}, prefix)
    topics = [
        {"name": f"{prefix}orders", "partitions": 2, "replication_factor": 1},
        {"name": f"{prefix}audit", "partitions": 1, "replication_factor": 1,
         "config": {"retention.ms": "14d"}},
        {"name": f"{prefix}new", "partitions": 1, "replication_factor": 1},
    ]  # fmt: skip
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, topics)
    before = topics_view(admin, prefix)
    result = transcript.run(repo, "plan", "--cluster", "sec", "--detailed-exitcode", env=who.env)
    assert result.code == 2, result.stdout + result.stderr  # changes, no error
    shown = result.stdout + result.stderr
    unchecked = [line for line in shown.splitlines() if "P136" in line]
    assert len(unchecked) == 1, shown
    assert "Kafka did not check the change(s) of 3 topic(s)" in unchecked[0], unchecked
    assert "P135" not in shown and "error[" not in shown
    assert topics_view(admin, prefix) == before


# ---------------------------------------------------------------------------- the ACL port


@dataclass(frozen=True)
class AclSide:
    """The ACL port (cluster/ports.py AclStore) on the fake with an authorizer on, or on this
    module's secured cluster, as tests/contract/ runs the other ports."""

    name: str  # "fake" or "kafka"
    connect: Callable[[], Port]  # as a principal that may do everything
    lacking: Callable[[str], Port]  # as one holding every cluster operation but this one
    token: str  # in the name of every principal or resource the test's bindings name


@pytest.fixture(params=["fake", pytest.param("kafka", marks=pytest.mark.kafka)])
def acl_side(request: pytest.FixtureRequest) -> AclSide:
    token = uuid.uuid4().hex[:10]
    if request.param == "fake":
        kafka = FakeKafka()  # an authorizer on; its own principal may do everything

        def fake_lacking(operation: str) -> Port:
            rights = frozenset(all_but(operation))
            return kafka.client("sec", {None: rights}, f"User:u-{operation.lower()}")

        return AclSide("fake", lambda: kafka.client("sec"), fake_lacking, token)
    sasl: LocalCluster = request.getfixturevalue("sasl")
    admin: AdminClient = request.getfixturevalue("admin")

    def lacking(operation: str) -> Port:
        who = make_user(admin, f"u-{uuid.uuid4().hex[:8]}")  # its own grants: not the test's
        PASSWORDS.append(who.password)
        grant(admin, who.user, f"{who.user}.", all_but(""), on_cluster=all_but(operation))
        login = {**SCRAM_CLIENT, "sasl.username": who.user, "sasl.password": who.password}
        return Cluster(Connection("sec", sasl.bootstrap, tuple(login.items())))

    def connect() -> Port:
        return Cluster(Connection("sec", sasl.bootstrap, tuple(sasl.client_config().items())))

    return AclSide("kafka", connect, lacking, token)


def _ours(cluster: Port, token: str) -> list[acls_protocol.AclBinding]:
    """The bindings of the test's principals or on its resources, as DescribeAcls reads them."""
    return [b for b in cluster.acls().bindings if token in b.principal or token in b.resource_name]


def test_the_acl_port_reads_back_every_shape_and_a_grant_made_twice_is_one(
    acl_side: AclSide,
) -> None:
    """One DescribeAcls (every resource type reconciler reads, both pattern types, both
    permissions) reads back each binding CreateAcls made, exactly; creating them again is
    no error and no second copy."""
    t = acl_side.token
    made = [
        acls_protocol.AclBinding("topic", f"{t}.orders", "literal", f"User:{t}-a", "Read"),
        acls_protocol.AclBinding("topic", f"{t}.", "prefixed", f"User:{t}-a", "Write"),
        acls_protocol.AclBinding("topic", f"{t}.orders", "literal", f"User:{t}-b", "Read",
                                 "deny", "10.0.0.7"),
        acls_protocol.AclBinding("topic", "*", "literal", f"User:{t}-a", "Describe"),
        acls_protocol.AclBinding("group", f"{t}-g", "literal", f"User:{t}-a", "Read"),
        acls_protocol.AclBinding("group", f"{t}-all", "literal", "User:*", "Read"),
        acls_protocol.AclBinding("transactional_id", f"{t}-tx-", "prefixed", f"User:{t}-a",
                                 "Write"),
        acls_protocol.AclBinding("cluster", acls_protocol.CLUSTER_NAME, "literal",
                                 f"User:{t}-a", "IdempotentWrite"),
    ]  # fmt: skip
    with acl_side.connect() as cluster:
        assert cluster.create_acls(made) == dict.fromkeys(made)
        shown(lambda: _ours(cluster, t), lambda found: found == sorted(made))
        assert cluster.create_acls(made[:3]) == dict.fromkeys(made[:3])
        assert _ours(cluster, t) == sorted(made)
        assert cluster.delete_acls(made) == dict.fromkeys(made)
        shown(lambda: _ours(cluster, t), lambda found: found == [])


def test_the_acl_port_revokes_exactly_the_binding_each_filter_names(acl_side: AclSide) -> None:
    """DeleteAcls with an exact filter removes that binding and none of its neighbours (another
    operation, host, pattern type, permission, principal or resource type); a filter matching
    nothing removes nothing and is no error."""
    t = acl_side.token
    one = acls_protocol.AclBinding("topic", f"{t}.x", "literal", f"User:{t}-a", "Read")
    neighbours = [
        dataclasses.replace(one, operation="Write"),
        dataclasses.replace(one, host="10.0.0.7"),
        dataclasses.replace(one, pattern_type="prefixed"),
        dataclasses.replace(one, permission="deny"),
        dataclasses.replace(one, principal=f"User:{t}-b"),
        dataclasses.replace(one, resource_type="group"),
    ]
    with acl_side.connect() as cluster:
        assert cluster.create_acls([one, *neighbours]) == dict.fromkeys([one, *neighbours])
        shown(lambda: _ours(cluster, t), lambda found: found == sorted([one, *neighbours]))
        assert cluster.delete_acls([one]) == {one: None}
        shown(lambda: _ours(cluster, t), lambda found: found == sorted(neighbours))
        assert cluster.delete_acls([one]) == {one: None}  # matches nothing now
        assert _ours(cluster, t) == sorted(neighbours)
        cluster.delete_acls(neighbours)
        shown(lambda: _ours(cluster, t), lambda found: found == [])


def test_the_acl_port_refuses_a_principal_lacking_alter_or_describe_on_the_cluster(
    acl_side: AclSide,
) -> None:
    """CreateAcls and DeleteAcls need Alter on the cluster: each binding is answered
    CLUSTER_AUTHORIZATION_FAILED with the sentence naming the principal, the operation and
    the fix, and nothing is made; DescribeAcls needs Describe on it: the read raises it."""
    t = acl_side.token
    binding = acls_protocol.AclBinding("topic", f"{t}.y", "literal", f"User:{t}-a", "Read")
    with acl_side.connect() as cluster, acl_side.lacking("Alter") as weak:
        assert _ours(weak, t) == []  # Describe is enough to read
        for change, why in ((weak.create_acls, "grant ACLs"), (weak.delete_acls, "revoke ACLs")):
            (failure,) = change([binding]).values()
            assert failure is not None and failure.code == "CLUSTER_AUTHORIZATION_FAILED"
            said = f"principal {weak.connection.principal} lacks Alter on cluster 'sec' (needed to"
            assert f"{said} {why})" in failure.detail, failure
        assert _ours(cluster, t) == []
    with acl_side.lacking("Describe") as blind:
        # Kafka 4.1.1 answers its DescribeAcls with no binding and no error (measured; the
        # protocol says CLUSTER_AUTHORIZATION_FAILED): the answer cannot tell "none" from "not
        # shown". What refuses such a principal is every read's ListPartitionReassignments,
        # which needs Describe on the cluster too, before any plan reads the ACLs.
        assert blind.acls().bindings == ()
        with pytest.raises(ClusterError) as refused:
            blind.read_state()
        said = f"principal {blind.connection.principal} lacks Describe on cluster 'sec' (needed"
        assert f"{said} to list the partition reassignments)" in str(refused.value), refused.value
