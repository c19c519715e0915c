"""`reconciler plan` end to end against the real three-broker cluster (DESIGN.md "Plan semantics").

Topics are made directly through confluent-kafka's admin client (as if by another tool or a
previous apply), the specs are written to a throwaway repository, and the CLI's JSON plan is
checked entry by entry. Every JSON document is validated against schemas/plan.schema.json.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler.local.state import LocalCluster
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import Result, SpecRepo
from tests.unreachable import UNREACHABLE_MS

ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())
SNAPSHOT_SCHEMA = json.loads((ROOT / "schemas" / "snapshot.schema.json").read_text())


def valid(document: Any, schema: dict[str, Any]) -> Any:
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(document)
    return document


def plan_json(repo: SpecRepo, *args: str) -> tuple[int, dict[str, Any]]:
    result = repo.run("plan", "--cluster", "test", "--format", "json", *args)
    assert result.code in (0, 1, 2), result.stderr
    return result.code, valid(result.json(), PLAN_SCHEMA)


def entries(plan: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["topic"]: entry for entry in plan["changes"]}


def make_topics(cl: LocalCluster, *topics: NewTopic) -> None:
    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    for future in admin.create_topics(list(topics)).values():
        future.result()
    for topic in topics:
        wait_for_topic(admin, topic.topic)


@pytest.fixture
def repo(tmp_path: Path, kafka3: LocalCluster, ns: str) -> SpecRepo:
    return SpecRepo(tmp_path, kafka3.bootstrap, ns, policy={"allow_delete": True})


def test_each_kind_of_change_appears_as_designed(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    make_topics(
        kafka3,
        NewTopic(f"{ns}.grow", 2, 2),
        NewTopic(
            f"{ns}.tuned",
            1,
            2,
            config={"retention.ms": "86400000", "max.message.bytes": "2000000"},
        ),
        NewTopic(f"{ns}.thin", 3, 1),
        NewTopic(f"{ns}.legacy", 2, 1),
        NewTopic(f"{ns}.stray", 1, 1),
    )
    specs: list[dict[str, Any]] = [
        {"name": f"{ns}.fresh", "partitions": 6, "replication_factor": 3,
         "config": {"retention.ms": "3d"}},
        {"name": f"{ns}.defaults"},
        {"name": f"{ns}.grow", "partitions": 4, "replication_factor": 2},
        {"name": f"{ns}.tuned", "replication_factor": 2,
         "config": {"retention.ms": "2d", "compression.type": "LZ4"}},
        {"name": f"{ns}.thin", "replication_factor": 3},
        {"name": f"{ns}.legacy", "state": "absent", "acknowledge": ["delete"]},
    ]  # fmt: skip
    repo.topics(*specs)
    # the bare `acknowledge: [delete]` is an old form: it approves nothing (P132)
    code, first = plan_json(repo, "--detailed-exitcode")
    assert code == 1 and first["applyable"] is False
    [unbound] = first["diagnostics"]
    assert unbound["rule"] == "acknowledge_unbound"
    # each hazard approved by the item the plan gives: the delete (by topic id), and removing
    # tuned's max.message.bytes override, which falls back to a lower limit
    approvals = {c["topic"]: [h["approve_with"] for h in c["hazards"]] for c in first["changes"]}
    assert {c["topic"]: [h["code"] for h in c["hazards"]] for c in first["changes"]} == {
        f"{ns}.fresh": [], f"{ns}.defaults": [], f"{ns}.grow": [], f"{ns}.thin": [],
        f"{ns}.tuned": ["max_message_bytes_decrease"], f"{ns}.legacy": ["delete"],
    }  # fmt: skip
    repo.topics(*({**t, "acknowledge": approvals[t["name"]]} for t in specs))

    code, plan = plan_json(repo, "--detailed-exitcode")

    assert code == 2 and plan["applyable"] is True
    assert plan["summary"] == {"create": 2, "update": 3, "delete": 1, "errors": 0, "warnings": 0}
    got = entries(plan)
    assert set(got) == {
        f"{ns}.{n}" for n in ("fresh", "defaults", "grow", "tuned", "thin", "legacy")
    }

    fresh = got[f"{ns}.fresh"]
    assert fresh["action"] == "create"
    assert fresh["partitions"] == {"current": None, "desired": 6}
    assert fresh["replication_factor"] == {"current": None, "desired": 3}
    assert fresh["config"] == [{"key": "retention.ms", "current": None, "desired": "259200000"}]

    # Omitted counts are the broker's (KIP-464): shown, but left to the broker at creation.
    defaults = got[f"{ns}.defaults"]
    assert defaults["partitions"] == {"current": None, "desired": None, "broker_default": 3}
    assert defaults["replication_factor"] == {"current": None, "desired": None, "broker_default": 2}

    assert got[f"{ns}.grow"]["action"] == "update"
    assert got[f"{ns}.grow"]["partitions"] == {"current": 2, "desired": 4}

    # Set, update and removal; the removal shows the broker default it falls back to.
    assert got[f"{ns}.tuned"]["config"] == [
        {"key": "compression.type", "current": None, "desired": "lz4", "inherited": "producer"},
        {"key": "max.message.bytes", "current": "2000000", "desired": None,
         "inherited": "1048588"},
        {"key": "retention.ms", "current": "86400000", "desired": "172800000"},
    ]  # fmt: skip

    thin = got[f"{ns}.thin"]
    assert thin["replication_factor"] == {"current": 1, "desired": 3}
    current, target = thin["reassignment"]["current"], thin["reassignment"]["target"]
    racks = {b.id: b.rack for b in kafka3.describe().brokers}
    for before, after in zip(current, target, strict=True):
        assert len(after) == 3 and before[0] == after[0]  # the existing replica stays leader
        assert {racks[b] for b in after} == {"rack-a", "rack-b", "rack-c"}

    legacy = got[f"{ns}.legacy"]
    assert legacy["action"] == "delete" and legacy["reason"] == "tombstone"
    assert legacy["partitions"] == {"current": 2, "desired": None}

    assert plan["unmanaged"] == [f"{ns}.stray"]
    order = [entry["topic"] for entry in plan["changes"]]
    assert order.index(f"{ns}.legacy") == len(order) - 1  # deletes come last


def test_partition_decrease_is_an_error_and_exit_1(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    make_topics(kafka3, NewTopic(f"{ns}.big", 4, 1))
    repo.topics({"name": f"{ns}.big", "partitions": 2, "replication_factor": 1})

    code, plan = plan_json(repo, "--detailed-exitcode")

    assert code == 1 and plan["applyable"] is False
    assert [(d["severity"], d["rule"], d["topic"]) for d in plan["diagnostics"]] == [
        ("error", "partition_decrease", f"{ns}.big")
    ]
    assert plan["changes"] == []  # never a recreate
    text = repo.run("plan", "--cluster", "test")
    assert text.code == 1 and "partition_decrease" not in text.stderr
    assert "error[P101]" in text.stdout and "4" in text.stdout


def test_raw_kafka_configs_equal_human_units_plan_no_change(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    raw = {
        "retention.ms": "604800000",
        "retention.bytes": "536870912",
        "segment.bytes": "1073741824",
        "compression.type": "zstd",
        "cleanup.policy": "compact,delete",
        "min.cleanable.dirty.ratio": "0.25",
        "unclean.leader.election.enable": "false",
        "max.message.bytes": "1048576",
    }
    make_topics(kafka3, NewTopic(f"{ns}.raw", 3, 2, config=raw))
    repo.topics(
        {
            "name": f"{ns}.raw",
            "partitions": 3,
            "replication_factor": 2,
            "config": {
                "retention.ms": "7d",
                "retention.bytes": "512MiB",
                "segment.bytes": "1GiB",
                "compression.type": "ZSTD",
                "cleanup.policy": "delete,compact",
                "min.cleanable.dirty.ratio": 0.25,
                "unclean.leader.election.enable": False,
                "max.message.bytes": "1MiB",
            },
        }
    )

    code, plan = plan_json(repo, "--detailed-exitcode")

    assert (code, plan["changes"], plan["diagnostics"]) == (0, [], [])
    text = repo.run("plan", "--cluster", "test", "--detailed-exitcode")
    assert text.code == 0 and "No changes" in text.stdout


def test_omitted_counts_are_not_drift_after_creation(
    repo: SpecRepo, kafka3: LocalCluster, ns: str
) -> None:
    make_topics(kafka3, NewTopic(f"{ns}.dflt"))  # broker defaults: 3 partitions, RF 2
    repo.topics({"name": f"{ns}.dflt"})

    code, plan = plan_json(repo, "--detailed-exitcode")

    assert (code, plan["changes"]) == (0, [])


def test_plan_against_snapshot_equals_live_plan(
    repo: SpecRepo, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    make_topics(
        kafka3,
        NewTopic(f"{ns}.a", 2, 2, config={"retention.ms": "3600000"}),
        NewTopic(f"{ns}.b", 1, 1),
        NewTopic(f"{ns}.c", 1, 1),
    )
    repo.topics(
        {"name": f"{ns}.a", "partitions": 3, "config": {"retention.ms": "2h"}},
        {"name": f"{ns}.b", "replication_factor": 2},
        {"name": f"{ns}.new", "partitions": 1},
    )
    snapshot = tmp_path / "snap.json"
    written = repo.run("snapshot", "--cluster", "test", "-o", str(snapshot))
    assert written.code == 0, written.stderr
    document = valid(json.loads(snapshot.read_text()), SNAPSHOT_SCHEMA)
    assert {f"{ns}.a", f"{ns}.b", f"{ns}.c"} <= {t["name"] for t in document["topics"]}

    live_code, live = plan_json(repo, "--detailed-exitcode")
    offline_code, offline = plan_json(repo, "--detailed-exitcode", "--state", str(snapshot))

    assert live_code == offline_code == 2
    # made_by names the tool, not the plan: a plan from a snapshot loads no librdkafka to name
    assert offline.pop("made_by")["reconciler"] == live.pop("made_by")["reconciler"]
    assert offline == live  # fingerprint included
    assert len(live["changes"]) == 3 and live["unmanaged"] == [f"{ns}.c"]


def test_saved_plan_round_trips_and_carries_the_fingerprint(
    repo: SpecRepo, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo.topics({"name": f"{ns}.saved", "partitions": 1})
    saved = tmp_path / "plan.json"

    result = repo.run("plan", "--cluster", "test", "-o", str(saved))

    assert result.code == 0, result.stderr
    document = valid(json.loads(saved.read_text()), PLAN_SCHEMA)
    assert document["based_on"].startswith("sha256:") and len(document["based_on"]) == 71
    assert [c["topic"] for c in document["changes"]] == [f"{ns}.saved"]
    assert f"+ create {ns}.saved" in result.stdout
    # Creating the topic changes the state the plan was based on.
    make_topics(kafka3, NewTopic(f"{ns}.saved", 1, 1))
    _, after = plan_json(repo)
    assert after["changes"] == [] and after["based_on"] != document["based_on"]


def test_unreachable_cluster_is_one_clear_error(tmp_path: Path) -> None:
    repo = SpecRepo(tmp_path, "127.0.0.1:1", "t.unreachable")
    repo.write(
        "reconciler.yaml",
        {"clusters": {"test": {"bootstrap": "127.0.0.1:1",
                               "client": {"request.timeout.ms": UNREACHABLE_MS}}}},
    )  # fmt: skip
    repo.topics({"name": "t.unreachable.x"})

    result: Result = repo.run("plan", "--cluster", "test")

    assert result.code == 1 and result.stdout == ""
    assert "cluster 'test' at 127.0.0.1:1" in result.stderr
    # one error line; on a busy machine the heartbeat ("... still planning", every 5 s off a
    # terminal) may come before it: progress, not a second error
    said = [ln for ln in result.stderr.splitlines() if not ln.startswith("... still ")]
    assert len(said) == 1 and said[0].startswith("error: "), result.stderr
