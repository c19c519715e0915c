"""SIGINT and SIGTERM during apply, on the real three-broker cluster (issue 26, class 5): the
request in flight finishes, the lock is released, the audit record is written with what was
done, one summary line, exit 130 (143 for SIGTERM); a second signal aborts at once; a re-run
converges. Points are hit exactly with the test-only hook RECONCILER_TEST_SIGNAL_AT
(reconciler/stopping.py), which sends a real signal through the CLI's real handler; one test
sends it from outside, timed by apply's progress output, as a user's Ctrl-C is. Here a signal
lands while Kafka answers a level's request and between levels; every point with both signals
(before the lock's first change too) runs on the fake in test_signals_fake.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from reconciler.apply.record import journal
from reconciler.cluster import adapter
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from reconciler.local.state import LocalCluster
from tests import cli_fork
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER, Result, SpecRepo

pytestmark = pytest.mark.kafka


def spec(ns: str, width: int = 3) -> list[dict[str, Any]]:
    """Three levels: `width` topics, then one depending on the first, then one on that."""
    topics: list[dict[str, Any]] = [
        {"name": f"{ns}.a{i:03d}", "partitions": 1, "replication_factor": 1} for i in range(width)
    ]
    topics.append({"name": f"{ns}.b", "partitions": 1, "depends_on": [f"{ns}.a000"]})
    topics.append({"name": f"{ns}.c", "partitions": 1, "depends_on": [f"{ns}.b"]})
    return topics


def run(repo: SpecRepo, *args: str, env: dict[str, str] | None = None) -> Result:
    full = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1", **(env or {})}
    # forked from the imported package (tests/cli_fork.py): a process of its own, whose signal
    # handlers are the CLI's, without an interpreter's start per run
    proc = cli_fork.run(["--repo", str(repo.root), *args], env=full, timeout=300)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return Result(proc.returncode, proc.stdout, proc.stderr)


def hooked(point: str, sig: str = "INT") -> dict[str, str]:
    return {"RECONCILER_TEST_SIGNAL_AT": point, "RECONCILER_TEST_SIGNAL": sig}


def topics(bootstrap: str, prefix: str) -> set[str]:
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=QUIET_LIBRDKAFKA)
    return {t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)}


def lock_held(bootstrap: str) -> bool:
    return LOCK_TOPIC in topics(bootstrap, LOCK_TOPIC)


def applies(bootstrap: str) -> dict[str, dict[str, Any]]:
    with adapter.Cluster(adapter.Connection("test", bootstrap)) as cluster:
        return journal.applies(cluster.read_audit())


def converges(repo: SpecRepo) -> None:
    again = run(repo, "apply", "--cluster", "test", "--auto-approve")
    assert again.code == 0, again.stderr
    assert "closed the audit record of an earlier apply" not in again.stderr  # ours was written
    assert run(repo, "plan", "--cluster", "test", "--detailed-exitcode").code == 0


@pytest.mark.parametrize(
    ("point", "sig", "code", "made"),
    [
        # mid-level: the request in flight (level 1's creates) finishes, the rest is skipped
        ("in-flight-1", "INT", 130, {"a000", "a001", "a002"}),
        # between levels
        ("after-level-2", "TERM", 143, {"a000", "a001", "a002", "b"}),
        # (every other point, both signals, on the fake: test_signals_fake.py)
    ],
)
def test_a_signal_stops_apply_cleanly_at_each_point(
    kafka3: LocalCluster, ns: str, tmp_path: Path, point: str, sig: str, code: int, made: set[str]
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics(*spec(ns))
    record = tmp_path / "audit.json"
    stopped = run(
        repo, "apply", "--cluster", "test", "--auto-approve", "--audit-json", str(record),
        env=hooked(point, sig),
    )  # fmt: skip
    assert stopped.code == code, stopped.stderr
    assert f"SIG{sig}: stopping after the request in flight" in stopped.stderr
    assert not lock_held(kafka3.bootstrap)
    assert topics(kafka3.bootstrap, ns) == {f"{ns}.{t}" for t in made}
    summary = stopped.stdout.strip().splitlines()[-1]
    skipped = 5 - len(made)
    assert summary == (
        f"Apply stopped by SIG{sig}: {len(made)} applied, 0 already done, 0 failed, "
        f"{skipped} skipped; re-run apply to finish."
    )
    assert f"not run: the apply was stopped by SIG{sig}" in stopped.stdout
    entry = applies(kafka3.bootstrap)[_apply_id(record)]
    assert entry["end"] == "finished"
    assert entry["record"]["outcome"] == "interrupted"
    results = {c["topic"].rsplit(".", 1)[1]: c["result"] for c in entry["changes"]}
    assert {t for t, r in results.items() if r == "applied"} == made
    assert {t for t, r in results.items() if r == "skipped"} == set(results) - made
    converges(repo)


def _apply_id(record: Path) -> str:
    found: str = json.loads(record.read_text())["apply_id"]
    return found


def test_ctrl_c_from_outside_while_a_create_level_is_in_flight(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Ctrl-C as a user sends it, timed by the progress line of a 150-topic create level: no
    `internal error` (a KeyboardInterrupt inside confluent-kafka's C code), exit 130, the lock
    released, and a re-run converging. Which levels ran before the stop depends on when the
    signal lands; the hooked test above pins each point."""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics(*spec(ns, width=150))
    env = {**os.environ, "KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [*RECONCILER, "--repo", str(repo.root), "apply", "--cluster", "test", "--auto-approve"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = ""
    for line in proc.stderr:
        seen += line
        if line.startswith("level 1/3"):
            proc.send_signal(signal.SIGINT)
            break
    out, err = proc.communicate(timeout=300)
    err = seen + err
    assert "internal error" not in err and "Traceback" not in err, err
    assert proc.returncode == 130, err
    assert not lock_held(kafka3.bootstrap)
    assert "Apply stopped by SIGINT" in out  # (which levels ran depends on timing: see above)
    converges(repo)


def test_a_second_signal_aborts_at_once_and_the_next_apply_recovers(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """The second signal (here: right before the final record) exits at once, leaving the lock
    and an unfinished record; the next apply on this machine sees the holder's process gone,
    breaks the lock, closes the record with what the cluster shows and converges."""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics(*spec(ns))
    aborted = run(
        repo, "apply", "--cluster", "test", "--auto-approve",
        env=hooked("after-level-1,finishing"),
    )  # fmt: skip
    assert aborted.code == 130, aborted.stderr
    assert "SIGINT again: aborted at once" in aborted.stderr
    assert lock_held(kafka3.bootstrap)
    again = run(repo, "apply", "--cluster", "test", "--auto-approve")
    assert again.code == 0, again.stderr
    assert "(its process is gone)" in again.stderr
    assert "closed the audit record of an earlier apply that did not finish" in again.stderr
    assert run(repo, "plan", "--cluster", "test", "--detailed-exitcode").code == 0
    assert not lock_held(kafka3.bootstrap)


def test_an_unwritable_audit_json_after_the_apply_warns_and_keeps_exit_0(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """/dev/full passes the pre-check (it can be opened) but refuses the write: the apply's
    success stands, the warning names the record on the cluster."""
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1})
    done = run(repo, "apply", "--cluster", "test", "--auto-approve", "--audit-json", "/dev/full")
    assert done.code == 0, done.stderr
    assert "Apply complete: 1 applied" in done.stdout
    assert "warning: cannot write /dev/full" in done.stderr
    assert "the audit record is on the cluster's audit topic (apply_id " in done.stderr


def test_a_bad_audit_json_path_refuses_before_anything(
    kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = SpecRepo(tmp_path, kafka3.bootstrap, ns)
    repo.topics({"name": f"{ns}.a", "partitions": 1})
    refused = run(
        repo, "apply", "--cluster", "test", "--auto-approve",
        "--audit-json", str(tmp_path / "missing" / "audit.json"),
    )  # fmt: skip
    assert refused.code == 1
    assert refused.stderr.strip().splitlines() == [
        f"error: cannot write --audit-json {tmp_path}/missing/audit.json: its folder "
        f"{tmp_path}/missing does not exist; nothing was read or changed, give a path that can "
        "be written"
    ]
    assert topics(kafka3.bootstrap, ns) == set()
