"""The in-use gate on real brokers: a delete of a topic that is still read or written needs its
own approval, evidence read at plan time is read again at apply, and reading it costs the same
number of requests whatever the number of topics.

Consumer groups and records are made with confluent-kafka clients of the test's own; what is
deleted or kept is checked with the admin client, never through reconciler.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from reconciler.apply.record.outcome import Status
from reconciler.local.state import LocalCluster
from reconciler.workflow.apply import apply as apply_saved
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.kafka_helpers import KEEPS_OLD_RECORDS, clients, record_count
from tests.request_log import requests_by
from tests.spec_repo import SpecRepo

DAY_MS = 24 * 3600 * 1000
# What reading the evidence sends (cluster/adapter/evidence.py); the state read sends none of these
EVIDENCE_REQUESTS = (
    "LIST_GROUPS",
    "FIND_COORDINATOR",
    "DESCRIBE_GROUPS",
    "OFFSET_FETCH",
    "LIST_OFFSETS",
)


def _create(bootstrap: str, *names: str, partitions: int = 1) -> None:
    with clients(bootstrap) as made:
        made.create_topics(dict.fromkeys(names, partitions), KEEPS_OLD_RECORDS)


def _write(bootstrap: str, topic: str, count: int, timestamp: int | None = None) -> None:
    """`count` records; with `timestamp` (ms), each carries that create time."""
    with clients(bootstrap) as made:
        producer = made.producer({"linger.ms": "0"})
        for i in range(count):
            producer.produce(topic, f"r{i}".encode(), timestamp=timestamp or 0)  # 0: now
        assert producer.flush(30) == 0


def _commit(bootstrap: str, group: str, topic: str, offset: int) -> None:
    """The group commits `offset` on partition 0 and leaves: an Empty group with offsets."""
    with clients(bootstrap) as made:
        consumer = made.consumer(group, {"enable.auto.commit": "false"})
        consumer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)


@contextmanager
def _live_consumer(
    bootstrap: str, group: str, topic: str, protocol: str = "classic"
) -> Iterator[Consumer]:
    """A member of `group` subscribed to `topic`, assigned its partitions, never committing;
    `protocol` consumer: the new consumer group protocol (KIP-848)."""
    with clients(bootstrap) as made:
        consumer = made.consumer(
            group,
            {"group.protocol": protocol, "enable.auto.commit": "false",
             "auto.offset.reset": "latest"},
        )  # fmt: skip
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        while not consumer.assignment():
            assert time.monotonic() < deadline, "the consumer was never assigned the topic"
            consumer.poll(0.2)
        yield consumer


def _topics(bootstrap: str, prefix: str) -> set[str]:
    with clients(bootstrap) as made:
        return {t for t in made.admin().list_topics(timeout=10).topics if t.startswith(prefix)}


@pytest.fixture
def default_sample(_short_sample: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """For the tests of the plan's sample itself: its default 5-second window, not the suite's
    short one (tests/conftest.py); the others' evidence is read before or after any window."""
    monkeypatch.delenv("RECONCILER_SAMPLE_MS", raising=False)


def _wait_gone(bootstrap: str, names: set[str]) -> None:
    deadline = time.monotonic() + 30
    prefix = min(names)
    while names & _topics(bootstrap, prefix.rsplit(".", 1)[0]):
        assert time.monotonic() < deadline, f"{names} were not all deleted"
        time.sleep(0.2)


def _by_topic(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["topic"]: c for c in plan["changes"]}


def _codes(change: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {h["code"]: h for h in change["hazards"]}


def test_tombstones_of_topics_in_use_need_their_own_approval(
    kafka1: LocalCluster,
    ns: str,
    tmp_path: Path,
    default_sample: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    boot = kafka1.bootstrap
    left, live, fresh, old, never = (f"{ns}.{n}" for n in ("left", "live", "fresh", "old", "never"))
    _create(boot, left, live, fresh, old, never)
    month_ago = int(time.time() * 1000) - 30 * DAY_MS
    _write(boot, left, 3, timestamp=month_ago)  # only its group says it is in use
    _commit(boot, f"{ns}-left-group", left, 1)
    _write(boot, fresh, 1)  # written now, no group
    _write(boot, old, 5, timestamp=month_ago)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    names = (left, live, fresh, old, never)
    repo.topics(*({"name": n, "state": "absent"} for n in names))

    with _live_consumer(boot, f"{ns}-live-group", live):
        planned = repo.run("plan", "--cluster", "test", "--format", "json")
        # The default window is this first plan's claim (window_ms below); nothing here is
        # written during a window, so the later runs watch the suite's short one
        monkeypatch.setenv("RECONCILER_SAMPLE_MS", "200")
        shown = repo.run("plan", "--cluster", "test")
    assert planned.code == 1, planned.stdout + planned.stderr
    changes = _by_topic(planned.json())
    for name in (left, live, fresh):
        assert "in_use" in _codes(changes[name]), changes[name]
    for name in (old, never):
        assert set(_codes(changes[name])) == {"delete"}, changes[name]

    [group] = changes[left]["evidence"]["groups"]
    assert (group["group"], group["state"], group["members"]) == (f"{ns}-left-group", "Empty", 0)
    assert group["committed"] and not group["assigned"] and group["lag"] == 2
    [member] = changes[live]["evidence"]["groups"]
    assert member["group"] == f"{ns}-live-group" and member["assigned"] and member["members"] == 1
    assert member["state"] == "Stable" and not member["committed"]
    newest = changes[fresh]["evidence"]["newest_record"]
    assert changes[fresh]["evidence"]["read_at"] - newest < 10 * 60 * 1000
    assert abs(changes[old]["evidence"]["newest_record"] - month_ago) < 1000
    never_seen = changes[never]["evidence"]
    assert never_seen == {
        "read_at": never_seen["read_at"],
        "newest_record": None,
        "groups": [],
        "unreadable": [],
        "end_offsets": [0],
        "written": 0,
        "window_ms": never_seen["window_ms"],
        "producer_stamped": True,  # Kafka's default message.timestamp.type, CreateTime
    }
    assert 5000 <= never_seen["window_ms"] < 60_000  # the plan's sample of the end offsets
    # The text plan shows the evidence, one line per group, and the item that approves it
    assert f"group {ns}-left-group (Empty, 0 member(s), lag 2): committed offsets" in shown.stdout
    assert f"group {ns}-live-group (Stable, 1 member(s)): assigned" in shown.stdout
    topic_id = _codes(changes[left])["in_use"]["approve_with"]["in_use"]
    assert f"- {{in_use: {topic_id}}}`" in shown.stdout.replace('"', ""), shown.stdout

    # The idle two, approved for deletion only, are deleted; the three in use are not touched
    approvals = {n: _codes(changes[n])["delete"]["approve_with"] for n in names}
    repo.topics(*({"name": n, "state": "absent", "acknowledge": [approvals[n]]} for n in names))
    with _live_consumer(boot, f"{ns}-live-group", live):
        refused = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert refused.code == 1, refused.stdout + refused.stderr
    assert "in_use" in refused.stdout + refused.stderr
    assert _topics(boot, ns) == set(names)
    idle = repo.run("apply", "--cluster", "test", "--auto-approve", "--topic", "(old|never)$")
    assert idle.code == 0, idle.stdout + idle.stderr
    _wait_gone(boot, {old, never})
    assert _topics(boot, ns) == {left, live, fresh}

    # Each of the three approved as in use too (the bound form): deleted
    busy = (left, live, fresh)
    repo.topics(
        *(
            {
                "name": n,
                "state": "absent",
                "acknowledge": [approvals[n], _codes(changes[n])["in_use"]["approve_with"]],
            }
            for n in busy
        )
    )
    with _live_consumer(boot, f"{ns}-live-group", live):
        applied = repo.run("apply", "--cluster", "test", "--auto-approve")
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_gone(boot, set(busy))


def test_a_saved_plan_meeting_a_new_consumer_group_is_diverged(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    boot = kafka1.bootstrap
    idle = f"{ns}.idle"
    _create(boot, idle)
    _write(boot, idle, 4, timestamp=int(time.time() * 1000) - 30 * DAY_MS)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": idle, "state": "absent"})
    first = repo.run("plan", "--cluster", "test", "--format", "json")
    approval = _codes(_by_topic(first.json())[idle])["delete"]["approve_with"]
    repo.topics({"name": idle, "state": "absent", "acknowledge": [approval]})
    saved = tmp_path / "plan.json"
    planned = repo.run("plan", "--cluster", "test", "-o", str(saved))
    assert planned.code == 0, planned.stdout + planned.stderr

    _commit(boot, f"{ns}-newcomer", idle, 2)  # a reader starts after review

    applied = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr
    said = applied.stdout + applied.stderr
    assert (
        f"{ns}-newcomer" in said
        and idle in said
        and "the plan showed no use Kafka could see" in said
    )
    assert "Nothing was changed" in said
    assert _topics(boot, ns) == {idle} and record_count(boot, idle) == 4


def test_a_group_arriving_during_apply_stops_the_delete_before_it_is_sent(
    kafka1: LocalCluster, ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-check right before the delete level: a group commits on the topic after apply
    verified the plan (while it creates another topic); the delete is refused as diverged."""
    boot = kafka1.bootstrap
    doomed, created = f"{ns}.doomed", f"{ns}.created"
    _create(boot, doomed)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": doomed, "state": "absent"}, {"name": created, "partitions": 1})
    first = repo.run("plan", "--cluster", "test", "--format", "json")
    approval = _codes(_by_topic(first.json())[doomed])["delete"]["approve_with"]
    repo.topics(
        {"name": doomed, "state": "absent", "acknowledge": [approval]},
        {"name": created, "partitions": 1},
    )
    monkeypatch.setenv("KAFKA_BOOTSTRAP", boot)
    saved = plan_of(Context(repo.root), "test")
    assert saved.applyable, saved
    committed: list[str] = []

    def progress(line: str) -> None:
        if line.startswith("level 1/") and not committed:  # verified; the creates come first
            _commit(boot, f"{ns}-latecomer", doomed, 0)
            committed.append(line)

    result = apply_saved(Context(repo.root), "test", saved, progress=progress)
    assert committed, "the apply never reached its first level"
    by_topic = {r.operation.topic: r for r in result.results}
    assert by_topic[created].status is Status.APPLIED
    assert by_topic[doomed].status is Status.FAILED
    assert "diverged" in by_topic[doomed].message and f"{ns}-latecomer" in by_topic[doomed].message
    assert doomed in _topics(boot, ns)


def test_the_evidence_costs_the_same_requests_for_1_and_200_topics(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Counted from the broker's request log: the evidence of a `plan` deleting 200 topics
    costs exactly the requests of one deleting 1 (the state read's own count is
    tests/cluster/test_round_trips.py's)."""
    boot = kafka1.bootstrap
    counts = []
    for size in (1, 200):
        prefix = f"{ns}.n{size}"
        names = [f"{prefix}.t{i:03}" for i in range(size)]
        _create(boot, *names)
        _write(boot, names[0], 1, timestamp=int(time.time() * 1000) - 30 * DAY_MS)
        _commit(boot, f"{prefix}-group", names[0], 1)
        repo = SpecRepo(
            tmp_path / str(size), boot, prefix, {"allow_delete": True, "max_deletes": 500}
        )
        repo.topics(*({"name": n, "state": "absent"} for n in names))
        client_id = f"count-{size}-{ns}".replace(".", "-")
        config = yaml.safe_load((repo.root / "reconciler.yaml").read_text())
        config["clusters"]["test"]["client"] = {"client.id": client_id}
        repo.write("reconciler.yaml", config)
        planned = repo.run("plan", "--cluster", "test", "--format", "json")
        assert planned.code == 1, planned.stdout + planned.stderr  # in use: the group
        changes = _by_topic(planned.json())
        assert len(changes) == size and "in_use" in _codes(changes[names[0]])
        sent = requests_by(kafka1, client_id)
        counts.append({kind: sent[kind] for kind in EVIDENCE_REQUESTS})
    assert counts[0] == counts[1], counts
    # One broker: one of each (ListOffsets three times: the latest offsets twice, the sample's
    # two ends, and the max-timestamp lookup)
    assert counts[0] == {**dict.fromkeys(EVIDENCE_REQUESTS, 1), "LIST_OFFSETS": 3}, counts


def test_a_plan_from_a_snapshot_says_it_read_no_evidence_and_apply_reads_it(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    boot = kafka1.bootstrap
    busy = f"{ns}.busy"
    _create(boot, busy)
    _write(boot, busy, 2)  # written now: in use
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": busy, "state": "absent"})
    first = repo.run("plan", "--cluster", "test", "--format", "json")
    approval = _codes(_by_topic(first.json())[busy])["delete"]["approve_with"]
    repo.topics({"name": busy, "state": "absent", "acknowledge": [approval]})
    snapshot, saved = tmp_path / "snapshot.json", tmp_path / "plan.json"
    taken = repo.run("snapshot", "--cluster", "test", "-o", str(snapshot))
    assert taken.code == 0, taken.stdout + taken.stderr
    offline = repo.run("plan", "--cluster", "test", "--state", str(snapshot), "-o", str(saved))
    assert offline.code == 0, offline.stdout + offline.stderr
    assert "warning[P134]" in offline.stdout and "apply reads that evidence live" in offline.stdout
    assert "hazard in_use" not in offline.stdout and "evidence (read" not in offline.stdout
    applied = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
    assert applied.code == 1, applied.stdout + applied.stderr
    assert "read no evidence of use (made from a snapshot)" in applied.stdout + applied.stderr
    assert _topics(boot, ns) == {busy} and record_count(boot, busy) == 2


def test_a_live_consumer_of_the_new_group_protocol_is_evidence(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """KIP-848 groups, which DescribeGroups refuses ("not a classic group"), are described with
    ConsumerGroupDescribe: a live member makes its topic in use, and other topics stay idle."""
    boot = kafka1.bootstrap
    read, other = f"{ns}.read", f"{ns}.other"
    _create(boot, read, other)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": read, "state": "absent"}, {"name": other, "state": "absent"})
    group = f"{ns}-kip848"
    try:
        with _live_consumer(boot, group, read, protocol="consumer"):
            planned = repo.run("plan", "--cluster", "test", "--format", "json")
        changes = _by_topic(planned.json())
        [member] = changes[read]["evidence"]["groups"]
        assert (member["group"], member["state"], member["members"]) == (group, "Stable", 1)
        assert member["assigned"] and "in_use" in _codes(changes[read])
        assert changes[other]["evidence"]["unreadable"] == [], changes[other]
        assert set(_codes(changes[other])) == {"delete"}
    finally:  # other tests' deletes on this session cluster must not meet it
        _delete_group(boot, group)


def _delete_group(bootstrap: str, group: str) -> None:
    """Delete `group` once its last member's leaving is through (GROUP_NOT_EMPTY until then)."""
    deadline = time.monotonic() + 60
    with clients(bootstrap) as made:
        admin = made.admin()
        while True:
            [future] = admin.delete_consumer_groups([group]).values()
            try:
                future.result(30)
                return
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.NON_EMPTY_GROUP or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


@contextmanager
def _old_stamped_writer(bootstrap: str, topic: str) -> Iterator[list[int]]:
    """A thread writing one record a second to `topic`, each stamped 30 days ago (a backfill,
    a replay); yields the list of records it has written so far. Its producer is made and
    closed on the test's thread (tests/kafka_helpers.py), used by the writer between."""
    stop = threading.Event()
    written: list[int] = []

    def write(producer: Producer) -> None:
        while not stop.is_set():
            stamp = int(time.time() * 1000) - 30 * DAY_MS
            producer.produce(topic, f"r{len(written)}".encode(), timestamp=stamp)
            assert producer.flush(30) == 0
            written.append(stamp)
            stop.wait(1.0)

    with clients(bootstrap) as made:
        thread = threading.Thread(
            target=write, args=(made.producer({"linger.ms": "0"}),), daemon=True
        )
        thread.start()
        try:
            yield written
        finally:
            stop.set()
            thread.join(30)


def test_a_topic_written_with_month_old_stamps_is_in_use_and_never_pruned(
    kafka1: LocalCluster, ns: str, tmp_path: Path, default_sample: None
) -> None:
    """The newest timestamp says a month old; Kafka's log end offsets say it is being written:
    plan shows it in use, and neither apply --prune nor a saved plan's apply deletes it."""
    boot = kafka1.bootstrap
    busy = f"{ns}.backfill"
    _create(boot, busy)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    with _old_stamped_writer(boot, busy) as written:
        while not written:
            time.sleep(0.1)
        planned = repo.run("plan", "--cluster", "test", "--prune", "--format", "json")
        shown = repo.run("plan", "--cluster", "test", "--prune")
        applied = repo.run("apply", "--cluster", "test", "--prune", "--auto-approve")
        count = len(written)
    assert planned.code == 1, planned.stdout + planned.stderr
    change = _by_topic(planned.json())[busy]
    evidence = change["evidence"]
    assert evidence["written"] >= 2 and evidence["window_ms"] >= 5000, evidence
    assert evidence["read_at"] - evidence["newest_record"] > 29 * DAY_MS  # the stamp lies
    assert "in_use" in _codes(change)
    assert "were appended to it in the" in _codes(change)["in_use"]["message"]
    assert "(CreateTime: stamped by its producer, not by Kafka" in shown.stdout
    assert applied.code == 1, applied.stdout + applied.stderr
    assert _topics(boot, ns) == {busy}
    assert record_count(boot, busy) == count  # every record written is still there


def test_a_saved_plan_of_an_idle_topic_meeting_a_writer_is_diverged(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Idle when planned (and approved for delete); written to, with old stamps, before the
    apply: apply compares the log end offsets with the plan's and refuses the delete."""
    boot = kafka1.bootstrap
    quiet = f"{ns}.quiet"
    _create(boot, quiet)
    _write(boot, quiet, 2, timestamp=int(time.time() * 1000) - 30 * DAY_MS)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": quiet, "state": "absent"})
    first = repo.run("plan", "--cluster", "test", "--format", "json")
    approval = _codes(_by_topic(first.json())[quiet])["delete"]["approve_with"]
    repo.topics({"name": quiet, "state": "absent", "acknowledge": [approval]})
    saved = tmp_path / "plan.json"
    planned = repo.run("plan", "--cluster", "test", "-o", str(saved))
    assert planned.code == 0, planned.stdout + planned.stderr

    _write(boot, quiet, 1, timestamp=int(time.time() * 1000) - 30 * DAY_MS)  # after review

    applied = repo.run("apply", "--cluster", "test", str(saved), "--auto-approve")
    said = applied.stdout + applied.stderr
    assert applied.code == 1, said
    assert "1 record(s) were appended to it" in said and "no use Kafka could see" in said
    assert _topics(boot, ns) == {quiet} and record_count(boot, quiet) == 3


def test_system_topics_are_never_pruned(kafka1: LocalCluster, ns: str, tmp_path: Path) -> None:
    """`_schemas` and a Streams changelog, with an assign() reader and nothing else: --prune
    deletes the ordinary topic beside them and leaves both, records intact."""
    boot = kafka1.bootstrap
    changelog, plain = f"{ns}-app-store-changelog", f"{ns}.plain"
    schemas = "_schemas"  # the session cluster's one: no other test makes it
    _create(boot, changelog, plain)
    if schemas not in _topics(boot, schemas):
        _create(boot, schemas)
    _write(boot, changelog, 2)
    _write(boot, schemas, 1)
    before = record_count(boot, schemas)
    policy = {"allow_delete": True, "ignore": [f"^(?!{re.escape(ns)})(?!_schemas$)"]}
    repo = SpecRepo(tmp_path, boot, ns, policy)
    with _assign_reader(boot, changelog):
        planned = repo.run("plan", "--cluster", "test", "--prune", "--format", "json")
        applied = repo.run("apply", "--cluster", "test", "--prune", "--auto-approve")
    assert planned.code == 0, planned.stdout + planned.stderr
    assert set(_by_topic(planned.json())) == {plain}
    assert {changelog, schemas} <= set(planned.json()["unmanaged"])
    assert applied.code == 0, applied.stdout + applied.stderr
    _wait_gone(boot, {plain})
    assert _topics(boot, ns) == {changelog}
    assert schemas in _topics(boot, schemas) and record_count(boot, schemas) == before
    assert record_count(boot, changelog) == 2


@contextmanager
def _assign_reader(bootstrap: str, topic: str) -> Iterator[Consumer]:
    """A consumer reading `topic` with assign(), no group: as Connect, Schema Registry,
    Spark, Flink and Streams' restore consumers do."""
    with clients(bootstrap) as made:
        consumer = made.consumer(extra={"enable.auto.commit": "false"})
        consumer.assign([TopicPartition(topic, 0, 0)])
        consumer.poll(1.0)
        yield consumer


def test_an_assign_reader_is_said_to_be_invisible(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Kafka cannot show an assign() reader: the plan says so, and never that nobody reads."""
    boot = kafka1.bootstrap
    read = f"{ns}.assigned"
    _create(boot, read)
    _write(boot, read, 1, timestamp=int(time.time() * 1000) - 30 * DAY_MS)
    repo = SpecRepo(tmp_path, boot, ns, {"allow_delete": True})
    repo.topics({"name": read, "state": "absent"})
    with _assign_reader(boot, read):
        shown = repo.run("plan", "--cluster", "test")
        markdown = repo.run("plan", "--cluster", "test", "--format", "markdown")
    for out in (shown.stdout, markdown.stdout):
        assert "none of the groups Kafka tracks reads it" in out, out
        assert "readers without a group (assign():" in out and "are invisible to Kafka" in out
        assert "no consumer group reads it" not in out
