"""Snapshot files and fingerprints: pure functions of ClusterState values."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from reconciler.cluster import jsonl
from reconciler.cluster.fingerprint import fingerprint
from reconciler.cluster.snapshot import from_json, load_snapshot, to_json, write_snapshot
from reconciler.cluster.state import ClusterState, ConfigEntry, Reassignment, Synonym
from reconciler.errors import ConfigError
from tests.cluster.snapshot_access_sample import held_access
from tests.planning.factories import cluster, topic

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "snapshot.schema.json").read_text()
)


HOURS = Synonym("log.retention.hours", "24", "STATIC_BROKER_CONFIG")


def sample() -> ClusterState:
    secret = dataclasses.replace(
        topic("b.secret"),
        configs=(("sasl.jaas.config", ConfigEntry(None, "DEFAULT_CONFIG", True)),),
    )
    chained = dataclasses.replace(
        topic("c.chained"),
        configs=(("retention.ms", ConfigEntry("1000", "DYNAMIC_TOPIC_CONFIG", synonyms=(HOURS,))),),
    )
    plain = cluster(
        chained,
        topic("a.one", [[1, 2], [2, 3]], overrides={"retention.ms": "1000"},
              inherited={"cleanup.policy": "delete"}, leaders=[2, None], isr=[[2], [2, 3]]),
        secret,
        topic("__consumer_offsets", [[1]], internal=True),
        reassignments=[Reassignment("a.one", 1, (2, 3, 1), (1,), ())],
    )  # fmt: skip
    # the access parts as a snapshot reads them back: the credentials without digests
    return dataclasses.replace(plain, **held_access())


def test_snapshot_round_trips_exactly_and_matches_the_schema(tmp_path: Path) -> None:
    state = sample()
    path = tmp_path / "snap.json"
    write_snapshot(path, "prod", state)

    document = json.loads(path.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    assert load_snapshot(path) == ("prod", state)
    assert from_json(to_json("prod", state)) == ("prod", state)


def test_snapshot_lines_keep_the_synonyms_of_overrides(tmp_path: Path) -> None:
    path = tmp_path / "snap.jsonl"
    jsonl.write(path, "prod", sample())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    schema_path = Path(__file__).resolve().parents[2] / "schemas" / "snapshot-line.schema.json"
    validator = jsonschema.Draft202012Validator(json.loads(schema_path.read_text()))
    for line in lines:
        validator.validate(line)
    (chained,) = (line for line in lines if line.get("topic") == "c.chained")
    assert chained["synonyms"] == {"retention.ms": [["log.retention.hours", "24",
                                                      "STATIC_BROKER_CONFIG"]]}  # fmt: skip
    _, _, back = jsonl.load(path)
    assert back.topics["c.chained"].entry("retention.ms") == ConfigEntry(
        "1000", "DYNAMIC_TOPIC_CONFIG", synonyms=(HOURS,)
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not valid JSON"),
        ('{"format_version": 2}', "format_version 2"),
        ('{"format_version": 1, "cluster": "x"}', "not a valid reconciler snapshot"),
        ("[]", "not a reconciler snapshot"),
        ('{"format_version": 1, "cluster": "x", "brokers": [], "topics": [{"name": 1}]}',
         "not a valid reconciler snapshot"),
    ],
)  # fmt: skip
def test_a_bad_snapshot_is_a_clear_error(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=says) as raised:
        load_snapshot(path)
    assert str(path) in str(raised.value)


def test_missing_snapshot_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.json cannot be read"):
        load_snapshot(tmp_path / "nope.json")


def test_fingerprint_ignores_leaders_and_isr_but_not_replicas_or_overrides() -> None:
    base = cluster(topic("a", [[1, 2]], overrides={"retention.ms": "1"}), topic("b"))
    moved_leader = cluster(
        topic("a", [[1, 2]], overrides={"retention.ms": "1"}, leaders=[2], isr=[[2]]), topic("b")
    )
    other_replicas = cluster(topic("a", [[1, 3]], overrides={"retention.ms": "1"}), topic("b"))
    other_config = cluster(topic("a", [[1, 2]], overrides={"retention.ms": "2"}), topic("b"))
    untouched_change = cluster(
        topic("a", [[1, 2]], overrides={"retention.ms": "1"}), topic("b", [[3]])
    )

    assert fingerprint(base, ["a"]) == fingerprint(moved_leader, ["a"])
    assert fingerprint(base, ["a"]) == fingerprint(untouched_change, ["a"])  # b not touched
    assert fingerprint(base, ["a"]) != fingerprint(other_replicas, ["a"])
    assert fingerprint(base, ["a"]) != fingerprint(other_config, ["a"])
    assert fingerprint(base, ["a", "new"]) != fingerprint(
        cluster(*base.topics.values(), topic("new")), ["a", "new"]
    )


def test_a_cluster_that_cannot_show_fenced_brokers_says_so_in_its_snapshot() -> None:
    """Kafka before 4.0: `fenced_brokers: null` (cannot show), kept apart from [] (none), and
    the plan read from the snapshot still knows it cannot tell."""
    unseen = dataclasses.replace(cluster(topic("a.b", [[1, 2]])), fenced=None)
    document = to_json("c", unseen)
    assert document["fenced_brokers"] is None
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    _, back = from_json(json.loads(json.dumps(document)))
    assert back.fenced is None and back.down_unseen
    _, shown = from_json(to_json("c", dataclasses.replace(unseen, fenced=())))
    assert shown.fenced == () and not shown.down_unseen


@pytest.mark.parametrize(
    "state",
    [
        sample(),
        cluster(),  # no topics
        cluster(topic('a "quoted"\nname é', overrides={"retention.ms": "1\n2"})),
    ],
    ids=["sample", "empty", "odd-text"],
)
def test_a_snapshot_written_a_topic_at_a_time_is_json_dumps_text(state: ClusterState) -> None:
    """write_snapshot streams the file (snapshot.pieces) rather than hold the document and its
    text: the text is json.dumps' own, byte for byte."""
    from datetime import UTC, datetime

    from reconciler.cluster.snapshot import pieces

    when = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    whole = json.dumps(to_json("prod", state, when), indent=1) + "\n"
    assert "".join(pieces("prod", state, when)) == whole
