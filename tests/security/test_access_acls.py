"""Access as code on a real broker with the authorizer on (`local up --security sasl_scram`):
a topic's `access:` applied, then its principals produce and consume as themselves; the
consumer's grant removed plans an acl_revoke naming its live group, and once approved the
consumer is refused; an out-of-band grant on the topic is drift (docs/access.md).

reconciler runs as the cluster's super user (its password through ${KPASS}); the producer and
the consumer are SCRAM users of their own, with no ACL but what the spec derives.
"""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from reconciler.local.cluster import add_zookeeper_scram_user
from reconciler.local.distribution import ensure_distribution
from reconciler.local.state import LocalCluster
from tests import yaml_text
from tests.compat.conftest import MATRIX, NEWEST, OLDEST
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.security.conftest import (
    SCRAM_CLIENT,
    Principal,
    Transcript,
    admin_of,
    create_acls,
    make_user,
    start_secured,
    write_repo,
)

pytestmark = pytest.mark.kafka

CLIENT = SCRAM_CLIENT


# The pinned release and the newest supported one; `make compat` (marked matrix, `make test`
# not) adds the oldest (2.4.1) and the two sides of KIP-679 (2.7: an idempotent producer needs
# IdempotentWrite on the cluster; 2.8: Write on a topic stands for it), in ZooKeeper mode with
# SCRAM and the AclAuthorizer.
_LINE = {line: next(v for v in MATRIX if v.startswith(line)) for line in ("2.7.", "2.8.")}
VERSIONS = (
    "pinned",
    NEWEST,
    *(pytest.param(v, marks=pytest.mark.matrix) for v in (OLDEST, *_LINE.values())),
)


@pytest.fixture(scope="module", params=VERSIONS)
def sasl(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalCluster]:
    """`local up --security sasl_scram` of each release: the authorizer on, SCRAM logins."""
    version = str(request.param)
    if version == "pinned":  # the cluster test_sasl_acls.py and test_scram_users.py use too
        yield request.getfixturevalue("scram_cluster")
        return
    yield from start_secured(request, tmp_path_factory, ensure_distribution(version=version),
                             "sasl_scram")  # fmt: skip


@pytest.fixture(scope="module")
def admin(sasl: LocalCluster) -> AdminClient:
    return admin_of(sasl)


@pytest.fixture(scope="module")
def super_env(sasl: LocalCluster) -> dict[str, str]:
    config = sasl.client_config()
    return {"KUSER": config["sasl.username"], "KPASS": config["sasl.password"]}


def _user(sasl: LocalCluster, admin: AdminClient, name: str) -> Principal:
    """A SCRAM user with no ACL: through Kafka (AlterUserScramCredentials, 2.7+) or, in
    ZooKeeper mode, written into ZooKeeper as Kafka's own tools did before 2.7."""
    if sasl.metadata != "zookeeper":
        return make_user(admin, name)
    who = Principal(name, secrets.token_urlsafe(18))
    add_zookeeper_scram_user(sasl, who.user, who.password)
    return who


def _login(sasl: LocalCluster, who: Principal) -> dict[str, Any]:
    return {
        "bootstrap.servers": sasl.bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": who.user,
        "sasl.password": who.password,
    }


def _produce(sasl: LocalCluster, who: Principal, topic: str, idempotent: bool = True) -> None:
    """One record as `who`, by default with the Java clients' default since 3.0: idempotence
    on (before Kafka 2.8 that needs IdempotentWrite on the cluster: KIP-679)."""
    producer = Producer(
        {**_login(sasl, who), "enable.idempotence": idempotent}, logger=QUIET_LIBRDKAFKA
    )
    failed: list[KafkaError] = []
    producer.produce(topic, b"v", on_delivery=lambda err, _msg: failed.extend([err] if err else []))
    assert producer.flush(30) == 0
    assert not failed, failed


class _Reader:
    """A consumer of `group` that stays a live member while the test plans."""

    def __init__(self, sasl: LocalCluster, who: Principal, group: str, topic: str) -> None:
        self.group = group
        # a member whose Read on its group was revoked cannot leave it (LeaveGroup is refused):
        # the broker drops it after the session, which is short so that `readers` can delete
        # the group at the test's end
        self.consumer = Consumer({**_login(sasl, who), "group.id": group,
                                  "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
                                  "heartbeat.interval.ms": 1000},
                                 logger=QUIET_LIBRDKAFKA)  # fmt: skip
        self.consumer.subscribe([topic])

    def record(self, seconds: float = 30) -> bytes | None:
        """The first record, or None; a refusal raises."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            msg = self.consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                raise KafkaException(msg.error())
            self.consumer.commit(message=msg, asynchronous=False)
            return msg.value()
        return None

    def close(self) -> None:
        self.consumer.close()


@pytest.fixture
def prefix(request: pytest.FixtureRequest) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:30]
    return f"a.{slug}.{uuid.uuid4().hex[:6]}."


class _Readers(list[_Reader]):
    """A test's readers, and every group they were in (kept when the test clears the list)."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: set[str] = set()

    def append(self, reader: _Reader) -> None:
        self.groups.add(reader.group)
        super().append(reader)


@pytest.fixture
def readers(admin: AdminClient) -> Iterator[_Readers]:
    """Closed at the test's end, and their groups deleted: groups are the cluster's, and the
    pinned one is shared (`scram_cluster`): a principal of test_sasl_acls planning a delete,
    without Describe on a group left here, rightly counts that group as a reader of its topic."""
    made = _Readers()
    yield made
    for reader in made:
        reader.close()
    deadline = time.monotonic() + 60  # a refused member's session (10 s) ends first
    left = sorted(made.groups)
    while left:
        futures = admin.delete_consumer_groups(left)
        left = []
        for group, future in futures.items():
            try:
                future.result(30)
            except KafkaException as exc:
                code = exc.args[0].code()
                if code == KafkaError.NON_EMPTY_GROUP:  # a member not yet gone
                    assert time.monotonic() < deadline, f"{group} never emptied"
                    left.append(group)
                elif code != KafkaError.GROUP_ID_NOT_FOUND:
                    raise
        if left:
            time.sleep(0.5)


def _spec(repo: Path, topics: list[dict[str, Any]]) -> None:
    (repo / "topics" / "main.yaml").write_text(
        yaml_text.safe_dump({"topics": topics}, sort_keys=False)
    )


def test_access_applied_then_revoked_with_its_hazard_then_drift(
    sasl: LocalCluster,
    admin: AdminClient,
    super_env: dict[str, str],
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    readers: _Readers,
) -> None:
    transcript.dirs.append(tmp_path)
    writer = _user(sasl, admin, f"w-{uuid.uuid4().hex[:8]}")
    reader = _user(sasl, admin, f"r-{uuid.uuid4().hex[:8]}")
    topic, group = f"{prefix}orders", f"{prefix}billing"
    producers = [{"principal": f"User:{writer.user}"}]
    consumer = {"principal": f"User:{reader.user}", "groups": [group]}
    topics = [{"name": topic, "partitions": 1, "replication_factor": 1,
               "access": {"producers": producers, "consumers": [consumer]}}]  # fmt: skip
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, topics)

    # apply: the topic, then its grants; the principals produce and consume as themselves
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stderr
    assert f"+ grant User:{reader.user} ALLOW Read Group:{group} (literal) from *" in (
        applied.stdout
    )
    _produce(sasl, writer, topic)
    readers.append(_Reader(sasl, reader, group, topic))
    assert readers[0].record() == b"v"
    again = transcript.run(repo, "plan", "-c", "sec", env=super_env)
    assert again.code == 0 and "No changes" in again.stdout, again.stdout

    # the consumer's grant removed: a hazard naming its live group, apply refuses it
    topics[0]["access"] = {"producers": producers}
    _spec(repo, topics)
    planned = transcript.run(repo, "plan", "-c", "sec", "--format", "json", env=super_env)
    assert planned.code == 1, planned.stderr  # not applyable: the hazard is not approved
    (entry,) = json.loads(planned.stdout)["changes"]
    assert [(a["action"], a["operation"]) for a in entry["access"]] == [("revoke", "Read")]
    (hazard,) = entry["hazards"]
    assert hazard["code"] == "acl_revoke" and not hazard["acknowledged"]
    assert f"{group} (Stable, 1 live member(s))" in hazard["message"], hazard["message"]
    refused = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert refused.code != 0

    # approved as that one transition: applied, and the consumer is refused
    topics[0]["acknowledge"] = [hazard["approve_with"]]
    _spec(repo, topics)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stderr
    readers[0].close()
    readers.clear()
    _produce(sasl, writer, topic)  # the producer keeps its grant
    readers.append(_Reader(sasl, reader, group, topic))
    with pytest.raises(KafkaException) as refusal:
        readers[0].record()
    assert refusal.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED

    # an out-of-band grant on the topic is drift; one on another topic is not
    intern = f"intern-{uuid.uuid4().hex[:6]}"
    create_acls(admin, intern, [
        AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, f"User:{intern}",
                   "*", AclOperation.READ, AclPermissionType.ALLOW),
        AclBinding(ResourceType.TOPIC, f"{prefix}other", ResourcePatternType.LITERAL,
                   f"User:{intern}", "*", AclOperation.READ, AclPermissionType.ALLOW),
    ])  # fmt: skip
    drift = transcript.run(repo, "drift", "-c", "sec", env=super_env)
    assert drift.code == 2, drift.stdout + drift.stderr
    assert f"User:{intern} ALLOW Read Topic:{topic} (literal)" in drift.stdout
    assert f"Topic:{prefix}other" not in drift.stdout

    # import --access writes what the cluster has: planned again, nothing changes
    fresh = write_repo(tmp_path / "imported", sasl.bootstrap, prefix, CLIENT, [])
    (fresh / "topics" / "main.yaml").unlink()
    imported = transcript.run(fresh, "import", "-c", "sec", "--access", env=super_env)
    assert imported.code == 0, imported.stdout + imported.stderr
    # (with no policy.manage, every other binding of the cluster goes to acls.yaml)
    paths = [p for p in (fresh / "topics").glob("*.yaml") if p.name != "acls.yaml"]
    (spec,) = yaml.safe_load(paths[0].read_text())["topics"]
    assert spec["access"] == {
        "producers": [{"principal": f"User:{writer.user}"}],
        "consumers": [{"principal": f"User:{intern}"}],
    }
    replanned = transcript.run(fresh, "plan", "-c", "sec", env=super_env)
    assert replanned.code == 0 and "No changes" in replanned.stdout, replanned.stdout


def _raw_repo(repo: Path, topics: list[dict[str, Any]], acls: list[dict[str, Any]],
              token: str, approve: list[Any]) -> None:  # fmt: skip
    """main.yaml with `acls:`, and reconciler.yaml's scope: `policy.manage` is the test's
    token, so only this test's principals and resources are owned on the shared cluster."""
    text = yaml_text.safe_dump({"topics": topics, "acls": acls}, sort_keys=False)
    (repo / "topics" / "main.yaml").write_text(text)
    config = yaml.safe_load((repo / "reconciler.yaml").read_text())
    policy = config["clusters"]["sec"]["policy"]
    policy["manage"] = [re.escape(token)]
    policy["acknowledge"] = approve
    (repo / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))


def _acl_plan(transcript: Transcript, repo: Path, env: dict[str, str]) -> dict[str, Any]:
    planned = transcript.run(repo, "plan", "-c", "sec", "--format", "json", env=env)
    # exit 1 with no JSON is an error, not an unapproved plan: say Kafka's words
    assert planned.code in (0, 1) and planned.stdout.strip(), planned.stderr
    return json.loads(planned.stdout)  # type: ignore[no-any-return]


def _refused(sasl: LocalCluster, who: Principal, topic: str) -> KafkaError:
    """The error a produce as `who` gets (none: the test fails); not idempotent, as the raw
    test's producer (an idempotent one would be refused on the cluster before 2.8 first)."""
    producer = Producer({**_login(sasl, who), "enable.idempotence": False}, logger=QUIET_LIBRDKAFKA)
    failed: list[KafkaError] = []
    producer.produce(topic, b"v", on_delivery=lambda err, _msg: failed.extend([err] if err else []))
    producer.flush(30)
    assert failed, f"{who.user} could produce to {topic}"
    return failed[0]


def test_raw_acls_prefix_group_deny_revoke_drift_and_import(
    sasl: LocalCluster,
    admin: AdminClient,
    super_env: dict[str, str],
    transcript: Transcript,
    prefix: str,
    tmp_path: Path,
    readers: _Readers,
) -> None:
    transcript.dirs.append(tmp_path)
    token = uuid.uuid4().hex[:10]
    writer, reader = _user(sasl, admin, f"{token}-w"), _user(sasl, admin, f"{token}-r")
    under = f"{prefix}{token}."  # the prefixed pattern; the topics under it carry the token
    first, second, group = f"{under}a", f"{under}b", f"{under}g"
    topics = [{"name": n, "partitions": 1, "replication_factor": 1} for n in (first, second)]
    w, r = f"User:{writer.user}", f"User:{reader.user}"
    acls: list[dict[str, Any]] = [
        {"principal": w, "resource": {"type": "topic", "name": under, "pattern": "prefixed"},
         "operations": ["Write"]},
        {"principal": r, "resource": {"type": "topic", "name": under, "pattern": "prefixed"},
         "operations": ["Read"]},
        {"principal": r, "resource": {"type": "group", "name": group}, "operations": ["Read"]},
    ]  # fmt: skip
    repo = write_repo(tmp_path, sasl.bootstrap, prefix, CLIENT, [])
    _raw_repo(repo, topics, acls, token, [])

    # the prefixed grants widen access: planned in the `acls` section, refused until approved
    plan = _acl_plan(transcript, repo, super_env)
    assert [(a["action"], a["resource"]["type"], a["resource"]["pattern"]) for a in plan["acls"]
            ] == [("grant", "group", "literal"), ("grant", "topic", "prefixed"),
                  ("grant", "topic", "prefixed")]  # fmt: skip
    widen = [h for a in plan["acls"] for h in a["hazards"]]
    assert [h["code"] for h in widen] == ["acl_widen", "acl_widen"], widen
    refused = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert refused.code != 0 and not _acls_of(admin, token), refused.stdout
    approvals = [h["approve_with"] for h in widen]
    _raw_repo(repo, topics, acls, token, approvals)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_for(admin, token, 3)
    # one prefixed grant: both topics under it (not idempotent: the derived test checks KIP-679)
    _produce(sasl, writer, first, idempotent=False)
    _produce(sasl, writer, second, idempotent=False)
    readers.append(_Reader(sasl, reader, group, first))
    assert readers[0].record() == b"v"
    again = transcript.run(repo, "plan", "-c", "sec", env=super_env)
    assert again.code == 0 and "No changes" in again.stdout, again.stdout

    # a DENY wins over the prefixed ALLOW: granting it narrows access (acl_revoke), approved
    deny = {"principal": w, "resource": {"type": "topic", "name": second},
            "operations": ["Write"], "permission": "deny"}  # fmt: skip
    acls.append(deny)
    _raw_repo(repo, topics, acls, token, approvals)
    (narrow,) = [h for a in _acl_plan(transcript, repo, super_env)["acls"] for h in a["hazards"]]
    assert narrow["code"] == "acl_revoke", narrow
    approvals.append(narrow["approve_with"])
    _raw_repo(repo, topics, acls, token, approvals)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_for(admin, token, 4)
    assert _refused(sasl, writer, second).code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    # the ALLOW still holds elsewhere under the prefix
    _produce(sasl, writer, first, idempotent=False)

    # a literal grant the prefix shadows: its revoke names the prefix and warns (P141), and
    # once approved and made the writer still produces (Kafka's rules, as acl_coverage.py)
    topics[0]["access"] = {"producers": [{"principal": w, "idempotent": False}]}
    _raw_repo(repo, topics, acls, token, approvals)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_for(admin, token, 5)
    topics[0]["access"] = {}
    _raw_repo(repo, topics, acls, token, approvals)
    plan = _acl_plan(transcript, repo, super_env)
    (entry,) = plan["changes"]
    (revoke,) = entry["access"]
    assert revoke["still_granted_by"] == [f"{w} ALLOW Write Topic:{under} (prefixed) from *"]
    warned = {d["code"]: d["message"] for d in plan["diagnostics"]}
    assert "P141" in warned and f"Topic:{under} (prefixed)" in warned["P142"], warned
    topics[0]["acknowledge"] = [h["approve_with"] for h in entry["hazards"]]
    _raw_repo(repo, topics, acls, token, approvals)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_for(admin, token, 4)
    _produce(sasl, writer, first, idempotent=False)

    # the group grant removed: acl_revoke naming the live group; approved, the reader is refused
    acls = [a for a in acls if a["resource"]["type"] != "group"]
    _raw_repo(repo, topics, acls, token, approvals)
    (change,) = _acl_plan(transcript, repo, super_env)["acls"]
    assert (change["action"], change["resource"]["name"]) == ("revoke", group)
    (lost,) = change["hazards"]
    assert lost["code"] == "acl_revoke" and not lost["acknowledged"], lost
    assert f"{group} (Stable, 1 live member(s))" in lost["message"], lost["message"]
    refused = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert refused.code != 0
    approvals.append(lost["approve_with"])
    _raw_repo(repo, topics, acls, token, approvals)
    applied = transcript.run(repo, "apply", "-c", "sec", "--auto-approve", env=super_env)
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_for(admin, token, 3)
    readers[0].close()
    readers.clear()
    readers.append(_Reader(sasl, reader, group, first))
    with pytest.raises(KafkaException) as refusal:
        readers[0].record()
    assert refusal.value.args[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED

    # an out-of-band binding inside the scope is drift; one outside it (another token) is not
    outsider = f"other-{uuid.uuid4().hex[:6]}"
    create_acls(admin, f"{token}-intern", [
        AclBinding(ResourceType.GROUP, f"{under}x", ResourcePatternType.PREFIXED,
                   f"User:{token}-intern", "*", AclOperation.READ, AclPermissionType.ALLOW),
    ])  # fmt: skip
    create_acls(admin, outsider, [
        AclBinding(ResourceType.GROUP, outsider, ResourcePatternType.LITERAL,
                   f"User:{outsider}", "*", AclOperation.READ, AclPermissionType.ALLOW),
    ])  # fmt: skip
    drift = transcript.run(repo, "drift", "-c", "sec", env=super_env)
    assert drift.code == 2, drift.stdout + drift.stderr
    assert f"User:{token}-intern ALLOW Read Group:{under}x (prefixed)" in drift.stdout
    assert outsider not in drift.stdout

    # import --access --include chooses bindings: those on the topics (and the prefix) it
    # chooses, and the groups of their principals; not intern's group (intern reads no topic)
    create_acls(admin, reader.user, [
        AclBinding(ResourceType.GROUP, f"{under}g2", ResourcePatternType.LITERAL, r, "*",
                   AclOperation.READ, AclPermissionType.ALLOW),
    ])  # fmt: skip
    chosen = f"^{re.escape(under)}"
    part = write_repo(tmp_path / "part", sasl.bootstrap, prefix, CLIENT, [])
    (part / "topics" / "main.yaml").unlink()
    _raw_repo(part, [], [], token, [])
    (part / "topics" / "main.yaml").unlink()
    imported = transcript.run(
        part, "import", "-c", "sec", "--access", "--include", chosen, env=super_env
    )
    assert imported.code == 0, imported.stdout + imported.stderr
    assert "a whole plan revokes the others" in imported.stderr, imported.stderr
    said = [a for p in (part / "topics").glob("*.yaml")
            for a in yaml.safe_load(p.read_text()).get("acls", ())]  # fmt: skip
    assert sorted((a["principal"], a["resource"]["type"], a["resource"]["name"]) for a in said
                  ) == sorted([(w, "topic", under), (r, "topic", under), (w, "topic", second),
                               (r, "group", f"{under}g2")]), said  # fmt: skip
    replanned = transcript.run(part, "plan", "-c", "sec", "--topic", chosen, env=super_env)
    assert replanned.code == 0 and "No changes" in replanned.stdout, replanned.stdout
    # the binding left out is the spec's once `acls:` exists: the whole plan revokes it
    left = [a["binding"] for a in _acl_plan(transcript, part, super_env)["acls"]]
    assert left == [f"User:{token}-intern ALLOW Read Group:{under}x (prefixed) from *"], left

    # import --access in the same scope writes every binding as `acls:`: planned, no change
    fresh = write_repo(tmp_path / "imported", sasl.bootstrap, prefix, CLIENT, [])
    (fresh / "topics" / "main.yaml").unlink()
    _raw_repo(fresh, [], [], token, [])
    (fresh / "topics" / "main.yaml").unlink()
    imported = transcript.run(fresh, "import", "-c", "sec", "--access", env=super_env)
    assert imported.code == 0, imported.stdout + imported.stderr
    written = [yaml.safe_load(p.read_text()) for p in sorted((fresh / "topics").glob("*.yaml"))]
    said = [a for doc in written for a in doc.get("acls", ())]
    assert {
        "principal": f"User:{token}-intern",
        "operations": ["Read"],
        "resource": {"type": "group", "name": f"{under}x", "pattern": "prefixed"},
    } in said
    assert not any(outsider in a["principal"] for a in said)
    replanned = transcript.run(fresh, "plan", "-c", "sec", env=super_env)
    assert replanned.code == 0 and "No changes" in replanned.stdout, replanned.stdout


def _acls_of(admin: AdminClient, token: str) -> list[AclBinding]:
    """Every binding of a principal whose name carries `token`."""
    every = AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None,  # type: ignore[arg-type]
        None, AclOperation.ANY, AclPermissionType.ANY,  # type: ignore[arg-type]
    )  # fmt: skip
    return [b for b in admin.describe_acls(every).result(30) if token in b.principal]


def _wait_for(admin: AdminClient, token: str, count: int) -> None:
    """Until the authorizer answers with `count` of the test's bindings: ACLs reach it through
    the metadata log (a bounded poll, not a sleep)."""
    deadline = time.monotonic() + 30
    while len(_acls_of(admin, token)) != count:
        assert time.monotonic() < deadline, _acls_of(admin, token)
        time.sleep(0.1)
