"""Every call into a client library, made to raise each kind of library failure, on the real
session broker `kafka1`: one sentence naming the request and the cluster, exit code 1 from the
CLI where a command reaches the call, no traceback, and nothing changed on the cluster.

The call sites are the walk's (boundary_walk.py), rewritten so that the armed one raises
(boundary_faults.py). Each site is driven by the first of DRIVERS that reaches it, found in a
first pass that raises nothing: `reconciler plan` in this process first, then calls of the
adapter. A site no driver reaches fails the test: a new call needs a driver here.
"""

from __future__ import annotations

import gc
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic, ResourceType
from kafka.errors import KafkaProtocolError  # type: ignore[attr-defined]  # not in typings/kafka

from reconciler.cli.main import _invoked, _repos, _run
from reconciler.cluster.adapter import Cluster, Connection, boundary, evidence, records
from reconciler.cluster.adapter.connect import steer_controller
from reconciler.cluster.protocol.acls import AclBinding
from reconciler.cluster.protocol.quotas import QuotaAlteration
from reconciler.cluster.protocol.requests import ConfigUpdate, NewTopicRequest, PartitionsRequest
from reconciler.cluster.protocol.scram import ScramAlteration
from reconciler.cluster.protocol.throttles import Moves
from reconciler.errors import ClusterError
from reconciler.local.state import LocalCluster
from reconciler.spec.quotas import QuotaEntity
from tests.cluster import boundary_faults
from tests.kafka_helpers import wait_for_topics
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

KINDS: dict[str, Callable[[], BaseException]] = {
    "KeyError": lambda: KeyError("endpoint_type"),
    "AttributeError": lambda: AttributeError("'NoneType' object has no attribute 'id'"),
    "error": lambda: struct.error("unpack requires a buffer of 4 bytes"),  # struct.error
    "KafkaProtocolError": lambda: KafkaProtocolError("frame ends before its size"),
    "TypeError": lambda: TypeError("'NoneType' object is not subscriptable"),
    "TimeoutError": lambda: TimeoutError("timed out"),
}


@dataclass
class World:
    """What the drivers use: the cluster, this test's topics and a spec repository."""

    bootstrap: str
    keep: str  # a topic with one record and a consumer group's committed offset
    absent: str  # a name no topic has
    group: str
    repo: Path

    @property
    def connection(self) -> Connection:
        return Connection("test", self.bootstrap, timeout=10.0)


def _plan(world: World) -> None:
    """`reconciler plan` in this process: the CLI's own handling, exit code and stderr."""
    _invoked.clear()
    _repos.clear()
    code = _run(["--repo", str(world.repo), "--timeout", "10", "plan"], False)
    if code != 0:
        raise _CliExit(code)


class _CliExit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _adapter(call: Callable[[Cluster, World], object]) -> Callable[[World], None]:
    def drive(world: World) -> None:
        with Cluster(world.connection) as cluster:
            call(cluster, world)

    return drive


def _validate_only(cluster: Cluster, world: World) -> None:
    cluster.create_topics([NewTopicRequest(world.absent, 1, 1)], validate_only=True)
    cluster.alter_topic_configs(
        [ConfigUpdate(world.keep, (("retention.ms", "86400000"),), ("segment.ms",))],
        validate_only=True,
    )
    cluster.create_partitions([PartitionsRequest(world.keep, 2)], validate_only=True)
    # manual placement: the other forms of both requests
    placed = NewTopicRequest(world.absent, None, None, assignments=((1,),))
    cluster.create_topics([placed], validate_only=True)
    cluster.create_partitions([PartitionsRequest(world.keep, 2, ((1,),))], validate_only=True)


def _again(cluster: Cluster, world: World) -> None:
    cluster.reassignments()
    cluster._silent = []  # as after a failed read that found every broker answering
    cluster._again()


def _throttle(cluster: Cluster, world: World) -> None:
    done = cluster.set_throttle(10_000_000, {world.keep: Moves(("0:1",), ("0:1",))}, [1])
    cluster.clear_throttle(done)


def _lock(cluster: Cluster, world: World) -> None:
    assert cluster.try_lock(b'{"by": "test"}')
    cluster.release_lock()


def _audit_reads(cluster: Cluster, world: World) -> None:
    cluster.ensure_audit()
    cluster.audit_offsets()
    cluster.read_audit(2.0)


def _logs(cluster: Cluster, world: World) -> None:
    cluster._client()
    cluster._logs()


def _acl_writes(cluster: Cluster, world: World) -> None:
    """A grant and a revoke on kafka1, which runs no authorizer: Kafka answers each binding
    SECURITY_DISABLED, the sentence access.md gives (nothing is changed)."""
    binding = AclBinding("topic", world.keep, "literal", "User:nobody", "Read")
    for write in (cluster.create_acls, cluster.delete_acls):
        try:
            write([binding])
        except boundary.LibraryFailed:
            raise  # an armed fault: the sentence the test judges
        except ClusterError as exc:
            assert "has no authorizer" in str(exc), exc


def _quota_writes(cluster: Cluster, world: World) -> None:
    """A quota set on a user of this test's own, then removed (`_no_quota` undoes a run that
    stopped between the two)."""
    user = QuotaEntity(user=f"{world.group}-quota")
    cluster.alter_quotas([QuotaAlteration(user, "producer_byte_rate", 1048576.0)])
    cluster.alter_quotas([QuotaAlteration(user, "producer_byte_rate", None)])


def _no_quota(world: World) -> None:
    with Cluster(world.connection) as cluster:
        user = QuotaEntity(user=f"{world.group}-quota")
        cluster.alter_quotas([QuotaAlteration(user, "producer_byte_rate", None)])


def _scram_writes(cluster: Cluster, world: World) -> None:
    """A SCRAM credential set on a user of this test's own, then deleted (`_no_scram_user`
    undoes a run that stopped between the two)."""
    user = f"{world.group}-scram"
    cluster.alter_scram([ScramAlteration(user, "SCRAM-SHA-512", 4096, b"boundary-walk")])
    cluster.alter_scram([ScramAlteration(user, "SCRAM-SHA-512", 4096)])


def _no_scram_user(world: World) -> None:
    with Cluster(world.connection) as cluster:
        cluster.alter_scram([ScramAlteration(f"{world.group}-scram", "SCRAM-SHA-512", 4096)])


def _untouched_throttle(world: World) -> None:
    with Cluster(world.connection) as cluster:
        cluster.remove_throttle(10_000_000, [1], [(world.keep, ["0:1"], ["0:1"])])


def _unlocked(world: World) -> None:
    with Cluster(world.connection) as cluster:
        cluster.release_lock()


# (name, driver, whether it changes the cluster, how to undo what it changed)
DRIVERS: list[tuple[str, Callable[[World], None], bool, Callable[[World], None] | None]] = [
    ("reconciler plan", _plan, False, None),
    ("describe", _adapter(lambda c, w: c.describe()), False, None),
    ("read_state", _adapter(lambda c, w: c.read_state()), False, None),
    ("topics", _adapter(lambda c, w: c.topics([w.keep], configs=True)), False, None),
    ("authorized", _adapter(lambda c, w: c.authorized([w.keep])), False, None),
    ("check_visible", _adapter(lambda c, w: c.check_visible([w.absent])), False, None),
    ("evidence", _adapter(lambda c, w: c.evidence({w.keep: 1})), False, None),
    # a partition no broker knows is asked again after a metadata refresh
    (
        "evidence of an unknown partition",
        _adapter(lambda c, w: c.evidence({w.keep: 2})),
        False,
        None,
    ),
    (
        "consumer groups described by librdkafka",
        _adapter(
            lambda c, w: evidence._describe_new_protocol(c.connection, c._client(), [w.group], [])
        ),
        False,
        None,
    ),
    (
        "last records (brokers before 3.0)",
        _adapter(lambda c, w: records.last_timestamps(c.connection, {(w.keep, 0): (0, 1)}, 5.0)),
        False,
        None,
    ),
    ("ACLs", _adapter(lambda c, w: c.acls()), False, None),
    ("client quotas", _adapter(lambda c, w: c.quotas()), False, None),
    ("quota writes", _adapter(_quota_writes), True, _no_quota),
    ("SCRAM users", _adapter(lambda c, w: c.scram()), False, None),
    ("SCRAM writes", _adapter(_scram_writes), True, _no_scram_user),
    ("ACL writes", _adapter(_acl_writes), False, None),
    ("validate_only", _adapter(_validate_only), False, None),
    ("delete an absent topic", _adapter(lambda c, w: c.delete_topics([w.absent])), False, None),
    (
        "reassign an absent topic",
        _adapter(lambda c, w: c.alter_reassignments({(w.absent, 0): (1,)})),
        False,
        None,
    ),
    ("broker rates", _adapter(lambda c, w: c.broker_rates([1])), False, None),
    (
        "lock reads",
        _adapter(lambda c, w: (c.lock_token(), c.lock_end(), c.lock_records(1.0))),
        False,
        None,
    ),
    (
        "audit reads",
        _adapter(_audit_reads),
        False,
        None,
    ),
    (
        "steer the controller",
        _adapter(lambda c, w: steer_controller(c.connection, c._client(), {99})),
        False,
        None,
    ),
    ("serve the log", _adapter(_logs), False, None),
    (
        "refused logins",
        _adapter(lambda c, w: (c._client(), c.connection.unauthenticated())),
        False,
        None,
    ),
    ("fresh clients", _adapter(_again), False, None),
    ("throttle", _adapter(_throttle), True, _untouched_throttle),
    (
        "lock",
        _adapter(_lock),
        True,
        _unlocked,
    ),
    ("audit write", _adapter(lambda c, w: c.write_audit("test", [b"{}"])), True, None),
]


def _state(bootstrap: str, prefix: str) -> tuple[Any, ...]:
    """What "nothing changed" compares, read with a plain client (no rewritten adapter code):
    every topic's name, this test's topics' partitions and own configs, broker 1's dynamic
    configs (throttle rates)."""
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    names = sorted(admin.list_topics(timeout=10).topics)
    mine = [n for n in names if n.startswith(prefix)]
    partitions = {n: len(admin.list_topics(n, timeout=10).topics[n].partitions) for n in mine}
    resources = [ConfigResource(ResourceType.TOPIC, n) for n in mine]
    resources.append(ConfigResource(ResourceType.BROKER, "1"))
    own = {
        ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
        ConfigSource.DYNAMIC_BROKER_CONFIG.value,
    }
    configs = {
        r.name: sorted((k, e.value) for k, e in future.result().items() if int(e.source) in own)
        for r, future in admin.describe_configs(resources, request_timeout=10).items()
    }
    return tuple(n for n in names if not n.startswith("_reconciler")), partitions, configs


def _world(bootstrap: str, ns: str, root: Path) -> World:
    world = World(bootstrap, f"{ns}.keep", f"{ns}.absent", f"{ns}.group", root / "repo")
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    made = admin.create_topics([NewTopic(world.keep, 1, 1), NewTopic(f"{ns}.old", 1, 1)])
    for future in made.values():
        future.result()
    # the controller's answer comes before the broker's metadata shows the topics
    wait_for_topics(admin, {world.keep: 1, f"{ns}.old": 1})
    old = admin.describe_topics(TopicCollection([f"{ns}.old"]))[f"{ns}.old"].result()
    producer = Producer({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    producer.produce(world.keep, b"a record")
    assert producer.flush(30) == 0
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": world.group, "enable.auto.commit": False},
        logger=QUIET_LIBRDKAFKA,
    )
    consumer.commit(offsets=[TopicPartition(world.keep, 0, 1)], asynchronous=False)
    consumer.close()
    with Cluster(world.connection) as cluster:  # the audit topic holds a record to read
        cluster.ensure_audit()
        cluster.write_audit("test", [b"{}"])
    repo = SpecRepo(world.repo, bootstrap, ns, policy={"allow_delete": True})
    repo.topics(
        {"name": world.keep, "partitions": 1, "replication_factor": 1,
         "config": {"retention.ms": "30d"}},
        {"name": f"{ns}.new", "partitions": 1, "replication_factor": 1},
        {"name": f"{ns}.old", "state": "absent", "acknowledge": [{"delete": str(old.topic_id)}]},
    )  # fmt: skip
    return world


def _sentence_problems(said: str, world: World, kind: str) -> list[str]:
    """What a library failure's sentence lacks."""
    wanted = {
        "one line": "\n" not in said.strip(),
        "the request or operation": re.search(r" failed on (the [A-Z]\w+ request|[a-z])", said),
        "the cluster and its bootstrap": f"cluster 'test' at {world.bootstrap}" in said,
        "the library's exception": f"{kind}:" in said,
        "the brokers' release from ApiVersions": re.search(
            r"run Kafka 4\.\d+ as their ApiVersions answer shows", said
        ),
        "the library and its version": re.match(
            r"(error: )?(kafka-python \d|confluent-kafka \d\S* \(librdkafka \d)", said
        ),
        "what to do": "report it with the output of the same command run with --debug" in said,
        "no traceback": "Traceback" not in said,
    }
    return [what for what, ok in wanted.items() if not ok]


def _armed_run(
    drive: Callable[[World], None],
    world: World,
    capsys: pytest.CaptureFixture[str],
    where: str,
    kind: str,
) -> list[str]:
    """One run of `drive` with a site armed: what its failure's handling lacks."""
    problems: list[str] = []
    try:
        drive(world)
    except _CliExit as exc:
        err = capsys.readouterr().err
        if exc.code != 1:
            problems.append(f"{where}: exit code {exc.code}")
        if "internal error" in err:
            problems.append(f"{where}: {err.strip()}")
        said_lines = [ln for ln in err.splitlines() if ln.startswith("error: ")]
        if len(said_lines) != 1:
            problems.append(f"{where}: not one error line: {err}")
        said = err.strip().splitlines()[-1] if err.strip() else ""
        problems += [f"{where}: lacks {w}: {err}" for w in
                     _sentence_problems(said, world, kind)]  # fmt: skip
    except boundary.LibraryFailed as exc:
        said = str(exc)
        problems += [f"{where}: lacks {w}: {said}" for w in
                     _sentence_problems(said, world, kind)]  # fmt: skip
    except ClusterError as exc:
        problems.append(f"{where}: another sentence: {exc}")
    except Exception as exc:  # what the boundary is for
        problems.append(f"{where}: escaped as {type(exc).__name__}: {exc}")
    else:
        problems.append(f"{where}: nothing was raised")
    return problems


def test_each_call_into_a_library_failing_each_way_is_one_sentence_and_changes_nothing(
    kafka1: LocalCluster,
    ns: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", kafka1.bootstrap)
    monkeypatch.setenv("NO_COLOR", "1")
    world = _world(kafka1.bootstrap, ns, tmp_path)
    problems: list[str] = []
    began = time.monotonic()
    runs = 0
    # tests/conftest.py keeps the garbage collector to this thread; each run's garbage (its
    # librdkafka clients among it) is collected after it, so it never piles up
    with boundary_faults.installed() as faults:
        # Which drivers reach each site (raising nothing), in DRIVERS' order. A driver may reach
        # a site only by timing (describe's wait loop looks at refused logins only while the
        # answer is slower than a quarter second): an armed run that does not reach its site
        # goes on to the next driver that reached it
        drivers_of: dict[int, list[int]] = {}
        for number, (_, drive, _, undo) in enumerate(DRIVERS):
            faults.ran.clear()
            drive(world)
            if undo is not None:
                undo(world)
            for index in faults.ran:
                drivers_of.setdefault(index, []).append(number)
        capsys.readouterr()
        unreached = [str(s) for i, s in enumerate(faults.sites) if i not in drivers_of]
        assert not unreached, "call sites no driver reaches (add one):\n" + "\n".join(unreached)

        # What the cluster holds after one site is what it holds before the next (nothing runs
        # between them): read once a site, not before and after each
        before = _state(world.bootstrap, ns)
        for index, site in enumerate(faults.sites):
            changing = False
            for kind, make in KINDS.items():
                said: list[str] = []
                for number in drivers_of[index]:
                    name, drive, changes, undo = DRIVERS[number]
                    where = f"{site} [{kind}, by {name}]"
                    runs += 1
                    with faults.arm(index, make):
                        said = _armed_run(drive, world, capsys, where, kind)
                        reached = bool(faults.raised)
                    capsys.readouterr()
                    if undo is not None:
                        undo(world)
                    gc.collect(1)
                    if reached:
                        changing |= changes
                        break
                    if said != [f"{where}: nothing was raised"]:  # it failed some other way
                        said.append(f"{where}: the site did not run")
                        break
                    said = [f"{where}: the site did not run"]  # it ended without: the next
                problems += said
            gc.collect()
            after = _state(world.bootstrap, ns)
            if not changing and after != before:
                problems.append(f"{site}: the cluster changed")
            before = after
    print(f"{len(faults.sites)} sites, {runs} runs in {time.monotonic() - began:.1f} s")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])
