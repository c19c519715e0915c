"""A snapshot's access parts (ACLs, client quotas, SCRAM credentials) in both forms: kept
exactly, never a secret, salt or digest, a part the cluster could not answer said with its
reason, the JSON Lines trailer counting each part's lines, and a file from before snapshots
kept access still loading, every part unread (cluster/snapshot_access.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from reconciler.cluster import jsonl, snapshot_access
from reconciler.cluster.protocol.scram import ClusterScram, SecretDigest
from reconciler.cluster.snapshot import from_json, load_snapshot, to_json, write_snapshot
from reconciler.cluster.state import ClusterState
from reconciler.errors import ConfigError
from tests.cluster.snapshot_access_sample import CREDENTIAL, held_access
from tests.planning.factories import cluster, topic

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text()))


def _state(**access: object) -> ClusterState:
    return dataclasses.replace(cluster(topic("a.one", [[1]])), **access)  # type: ignore[arg-type]


def test_both_forms_keep_every_part_and_read_back_the_same_state(tmp_path: Path) -> None:
    state = _state(**held_access())
    for name in ("snap.json", "snap.jsonl"):
        write_snapshot(tmp_path / name, "prod", state)
    _validator("snapshot.schema.json").validate(json.loads((tmp_path / "snap.json").read_text()))
    assert load_snapshot(tmp_path / "snap.json") == ("prod", state)
    lines = [json.loads(x) for x in (tmp_path / "snap.jsonl").read_text().splitlines()]
    for line in lines:
        _validator("snapshot-line.schema.json").validate(line)
    assert [line["record"] for line in lines] == [
        "cluster", "topic", "acl", "acl", "quota", "quota", "user", "end",
    ]  # fmt: skip
    assert {k: lines[-1][k] for k in ("topics", "acls", "quotas", "users")} == {
        "topics": 1, "acls": 2, "quotas": 2, "users": 1,
    }  # fmt: skip
    _, _, back = jsonl.load(tmp_path / "snap.jsonl")
    assert (back.acls, back.quotas, back.scram, back.unread) == (
        state.acls, state.quotas, state.scram, (),
    )  # fmt: skip


def test_no_secret_salt_or_digest_is_written_and_secrets_read_back_as_not_compared(
    tmp_path: Path,
) -> None:
    """What plan reads live carries the digests on record: the snapshot keeps the credential's
    user, mechanism and iterations only."""
    digest = SecretDigest("billing", "SCRAM-SHA-512", "c2FsdC1vbi1yZWNvcmQ=", "ZGlnZXN0LXZhbHVl")
    state = _state(scram=ClusterScram((CREDENTIAL,), (digest,)))
    for name in ("snap.json", "snap.jsonl"):
        write_snapshot(tmp_path / name, "prod", state)
        text = (tmp_path / name).read_bytes()
        for secret in (digest.salt, digest.digest, "salt", "digest"):
            assert secret.encode() not in text, (name, secret)
    _, back = load_snapshot(tmp_path / "snap.json")
    assert back.scram == ClusterScram((CREDENTIAL,), (), digests_read=False)


def test_a_part_the_cluster_could_not_answer_is_said_with_its_reason_in_both_forms(
    tmp_path: Path,
) -> None:
    no_authorizer = "the brokers run no authorizer"
    too_old = "the cluster runs Kafka 2.5.1, but client quotas need Kafka 2.6 or later"
    access = held_access()
    state = _state(scram=access["scram"], unread=(("acls", no_authorizer), ("quotas", too_old)))
    document = to_json("prod", state)
    assert document["unread"] == {"acls": no_authorizer, "quotas": too_old}
    assert "acls" not in document and "quotas" not in document
    assert "acls_idempotent_write" not in document
    _validator("snapshot.schema.json").validate(document)
    assert from_json(json.loads(json.dumps(document))) == ("prod", state)
    jsonl.write(tmp_path / "snap.jsonl", "prod", state)
    lines = [json.loads(x) for x in (tmp_path / "snap.jsonl").read_text().splitlines()]
    assert lines[0]["unread"] == {"acls": no_authorizer, "quotas": too_old}
    assert [x["record"] for x in lines] == ["cluster", "topic", "user", "end"]
    assert "acls" not in lines[-1] and lines[-1]["users"] == 1
    assert jsonl.load(tmp_path / "snap.jsonl")[2].unread == state.unread


def test_a_part_its_command_did_not_read_says_so() -> None:
    """`drift --snapshot-out` reads the parts the specs declare only: the others are not
    asked, and the file says that, not that the cluster could not answer."""
    document = to_json("prod", _state(quotas=held_access()["quotas"]))
    assert document["unread"] == {
        "acls": snapshot_access.NOT_ASKED, "users": snapshot_access.NOT_ASKED,
    }  # fmt: skip


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_snapshot_from_before_access_was_kept_loads_every_part_unread(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"old{suffix}"
    write_snapshot(path, "prod", _state())
    old_keys = ("unread", "acls_idempotent_write", "acls", "quotas", "users")
    if suffix == ".json":
        document = json.loads(path.read_text())
        path.write_text(json.dumps({k: v for k, v in document.items() if k not in old_keys}))
        _, state = load_snapshot(path)
    else:
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        lines[0] = {k: v for k, v in lines[0].items() if k not in old_keys}
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        state = jsonl.load(path)[2]
    assert (state.acls, state.quotas, state.scram) == (None, None, None)
    assert state.unread == tuple(
        (part, snapshot_access.OLDER) for part in ("acls", "quotas", "users")
    )


def test_a_lost_access_line_is_a_file_not_proven_whole(tmp_path: Path) -> None:
    path = tmp_path / "snap.jsonl"
    jsonl.write(path, "prod", _state(**held_access()))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(x for x in lines if '"record":"acl"' not in x))
    with pytest.raises(ConfigError, match=r"is not whole: a trailer counting 2 after 0 acls"):
        jsonl.load(path)


def test_lines_of_a_part_the_cluster_line_says_unread_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "snap.jsonl"
    jsonl.write(path, "prod", _state(**held_access()))
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[0]["unread"] = {"users": "no"}
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(ConfigError, match=r"access part `users` is held and said unread") as e:
        jsonl.load(path)
    assert str(path) in str(e.value)
