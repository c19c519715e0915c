"""Secured local clusters for the security tests, and a transcript of everything the tool said.

Each module starts its own one-broker cluster (`local up --security ...` code, module scope,
tied to pytest, stopped by pid in teardown), except the SASL/SCRAM one, which three modules
share (`scram_cluster`, package scope). Every CLI run goes through `Transcript.run`, which
keeps its stdout and stderr, so a test can search all of it (and every file written under the
module's directories) for a secret.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ConfigResource,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from reconciler.cluster.protocol.reserved import AUDIT_TOPIC, LOCK_TOPIC
from reconciler.local import state as local_state
from reconciler.local.distribution import Distribution
from tests import cli_fork, yaml_text
from tests.kafka_fixtures import own_cluster

# The six operations the reconciler's admin requests need (see
# reconciler/cluster/protocol/authorized.py), as kafka-acls and AclOperation name them.
SIX = {
    "Describe": AclOperation.DESCRIBE,
    "DescribeConfigs": AclOperation.DESCRIBE_CONFIGS,
    "Create": AclOperation.CREATE,
    "Alter": AclOperation.ALTER,
    "AlterConfigs": AclOperation.ALTER_CONFIGS,
    "Delete": AclOperation.DELETE,
}
# Kafka grants Describe to whoever may Alter or Delete, and DescribeConfigs to whoever may
# AlterConfigs: withholding one means withholding what implies it.
IMPLIED_BY = {"Describe": {"Alter", "Delete"}, "DescribeConfigs": {"AlterConfigs"}}


@dataclass
class Run:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str


@dataclass
class Transcript:
    """Every CLI run of a module and the directories it wrote to."""

    runs: list[Run] = field(default_factory=list)
    dirs: list[Path] = field(default_factory=list)

    def run(self, repo: Path, *args: str, env: dict[str, str], timeout: float = 180) -> Run:
        proc = cli_fork.run(
            ["--repo", str(repo), *args],
            env={**os.environ, "NO_COLOR": "1", **env},
            timeout=timeout,
        )
        run = Run(tuple(args), proc.returncode, proc.stdout, proc.stderr)
        self.runs.append(run)
        if "--debug" not in args:  # --debug shows tracebacks by design
            assert "Traceback" not in proc.stderr, proc.stderr
        return run

    def leaks(self, secret: str) -> list[str]:
        """Where `secret` shows up: runs' outputs and files under the dirs."""
        found = [
            f"{' '.join(r.args)}: {name}"
            for r in self.runs
            for name, text in (("stdout", r.stdout), ("stderr", r.stderr))
            if secret in text
        ]
        for directory in self.dirs:
            for path in [directory, *directory.rglob("*")]:
                if path.is_file() and secret.encode() in path.read_bytes():
                    found.append(str(path))
        return found


def start_secured(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    dist: Distribution,
    mode: str,
    brokers: int = 1,
) -> Iterator[local_state.LocalCluster]:
    with own_cluster(
        request, tmp_path_factory, dist, f"secured-{mode}", brokers, security_mode=mode
    ) as cl:
        yield cl


@pytest.fixture(scope="module")
def transcript() -> Transcript:
    return Transcript()


@pytest.fixture(scope="package")
def scram_cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    """`local up --security sasl_scram` of the pinned release, one for test_sasl_acls.py,
    test_scram_users.py and test_access_acls.py's pinned half: tests/worker_groups.py runs the
    three files one after the other on one worker, so it starts once, and stops when the worker
    leaves tests/security/ (package scope). They can share it: each test names its users,
    topics, groups and ACLs under a random prefix of its own and manages only that
    (`policy.manage`, `ignore`); consumer groups, which any principal's in-use check meets,
    are deleted by the test that made them (test_access_acls's `readers`)."""
    yield from start_secured(request, tmp_path_factory, kafka_dist, "sasl_scram")


@pytest.fixture(scope="package")
def sasl(scram_cluster: local_state.LocalCluster) -> local_state.LocalCluster:
    return scram_cluster


@pytest.fixture(scope="module")
def tls(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    yield from start_secured(request, tmp_path_factory, kafka_dist, "tls")


@pytest.fixture(scope="module")
def mtls(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    """`local up --security mtls`: TLS whose broker requires a client certificate."""
    yield from start_secured(request, tmp_path_factory, kafka_dist, "mtls")


@pytest.fixture(scope="module")
def oauth(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[local_state.LocalCluster]:
    """`local up --security oauth`, two brokers (inter-broker traffic on their PLAINTEXT
    listener; a replication-factor change needs two): its token issuer is started and stopped
    with them."""
    yield from start_secured(request, tmp_path_factory, kafka_dist, "oauth", brokers=2)


_QUIET = logging.getLogger("tests.security.librdkafka")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def admin_of(cl: local_state.LocalCluster) -> AdminClient:
    """The super user's client (its reconnect noise after the module's cluster stops: muted)."""
    return AdminClient({"bootstrap.servers": cl.bootstrap, **cl.client_config()}, logger=_QUIET)


# ---------------------------------------------------------------------------- principals


@dataclass(frozen=True)
class Principal:
    user: str
    password: str

    @property
    def env(self) -> dict[str, str]:
        return {"KUSER": self.user, "KPASS": self.password}


def make_user(admin: AdminClient, user: str) -> Principal:
    password = secrets.token_urlsafe(18)
    upsert = UserScramCredentialUpsertion(
        user, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password.encode()
    )
    for future in admin.alter_user_scram_credentials([upsert]).values():
        future.result(30)
    return Principal(user, password)


def grant(
    admin: AdminClient,
    user: str,
    prefix: str,
    operations: set[str],
    on_cluster: set[str] | None = None,
) -> None:
    """`operations` on every topic starting with `prefix` and (unless `on_cluster` says
    otherwise) on the cluster, plus what apply's lock and audit record need on their topics."""
    bindings = []

    def allow(
        kind: ResourceType, name: str, op: AclOperation, pattern: ResourcePatternType
    ) -> None:
        bindings.append(
            AclBinding(kind, name, pattern, f"User:{user}", "*", op, AclPermissionType.ALLOW)
        )

    for name in sorted(operations):
        allow(ResourceType.TOPIC, prefix, SIX[name], ResourcePatternType.PREFIXED)
    for name in sorted(operations if on_cluster is None else on_cluster):
        allow(ResourceType.BROKER, "kafka-cluster", SIX[name], ResourcePatternType.LITERAL)
    for topic in (LOCK_TOPIC, AUDIT_TOPIC):
        for op in (AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                   AclOperation.DESCRIBE_CONFIGS, AclOperation.DELETE):  # fmt: skip
            allow(ResourceType.TOPIC, topic, op, ResourcePatternType.LITERAL)
    create_acls(admin, user, bindings)


def create_acls(admin: AdminClient, user: str, bindings: list[AclBinding]) -> None:
    """Create `user`'s `bindings` and wait until the broker's authorizer answers with them: ACLs
    reach it through the metadata log (a bounded poll, not a sleep)."""
    for future in admin.create_acls(bindings).values():
        future.result(30)
    flt = AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, f"User:{user}",  # type: ignore[arg-type]
        None, AclOperation.ANY, AclPermissionType.ANY,  # type: ignore[arg-type]
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(admin.describe_acls(flt).result(30)) < len(bindings):
        assert time.monotonic() < deadline, "the ACLs never showed up"
        time.sleep(0.1)


def all_but(missing: str) -> set[str]:
    return set(SIX) - {missing} - IMPLIED_BY.get(missing, set())


def topics_view(admin: AdminClient, prefix: str) -> dict[str, Any]:
    """What a change would alter, as the admin sees it: partitions and config overrides."""
    md = admin.list_topics(timeout=30)
    names = sorted(t for t in md.topics if t.startswith(prefix))
    view: dict[str, Any] = {n: {"partitions": len(md.topics[n].partitions)} for n in names}
    if names:
        futures = admin.describe_configs([ConfigResource(ResourceType.TOPIC, n) for n in names])
        for resource, future in futures.items():
            view[resource.name]["config"] = {
                k: e.value for k, e in future.result(30).items() if not e.is_default
            }
    return view


def write_repo(root: Path, bootstrap: str, prefix: str, client: dict[str, str],
               topics: list[dict[str, Any]], allow_delete: bool = False) -> Path:  # fmt: skip
    """A spec repository whose cluster `sec` uses `client:` (with ${ENV} secrets)."""
    (root / "topics").mkdir(parents=True, exist_ok=True)
    cluster = {
        "bootstrap": bootstrap,
        "client": client,
        "policy": {"ignore": [f"^(?!{re.escape(prefix)})"], "allow_delete": allow_delete},
    }
    config = {"topics": "topics/", "clusters": {"sec": cluster}}
    (root / "reconciler.yaml").write_text(yaml_text.safe_dump(config, sort_keys=False))
    (root / "topics" / "main.yaml").write_text(
        yaml_text.safe_dump({"topics": topics}, sort_keys=False)
    )
    return root


# The reconciler.yaml `client:` of a spec repository logging in as the SCRAM user the test made
# (KUSER/KPASS from the environment the test sets): shared by the SASL and access tests
SCRAM_CLIENT = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "SCRAM-SHA-512",
    "sasl.username": "${KUSER}",
    "sasl.password": "${KPASS}",
}
