"""The fault drill (Finding 7): a broker killed (SIGKILL) during an apply of 100 changes with
dependencies. The apply reports what finished and what did not, the audit record says the same,
and after the broker is started again a re-run converges with nothing lost.

Stops a broker, so it runs on a three-broker cluster of its own (never the shared kafka3). The
journal's and the report's logic for a request that breaks mid-apply (each change accounted
for from what the cluster shows, the record finished) runs on the fake with injected failures in
test_apply_fake.py; this drill keeps what only a broker that really dies shows."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.apply.record import journal
from reconciler.cluster import adapter
from reconciler.local import cluster as local_cluster
from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests.apply.helpers import independent_read
from tests.kafka_fixtures import own_cluster
from tests.spec_repo import RECONCILER, SpecRepo

# 100 creates in 20 levels: each topic depends on the one before it, so 17 levels run after the
# broker dies at level 3 (docs/testing.md: the drill had 60 levels, for the same claim)
CHAINS, DEPTH = 5, 20


@pytest.fixture(scope="module")
def own3(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    kafka_dist: Distribution,
) -> Iterator[LocalCluster]:
    with own_cluster(
        request, tmp_path_factory, kafka_dist, "drill3", 3, overrides=default_overrides(3)
    ) as cluster:
        yield cluster


def _topics(ns: str) -> list[dict[str, object]]:
    return [
        {"name": f"{ns}.c{c}.d{d:02d}", "partitions": 1, "replication_factor": 3,
         **({"depends_on": [f"{ns}.c{c}.d{d - 1:02d}"]} if d else {})}
        for c in range(CHAINS)
        for d in range(DEPTH)
    ]  # fmt: skip


def _reported(stdout: str, names: set[str]) -> dict[str, str]:
    """topic -> result word, from apply's `     applied  create a.b (...)` lines."""
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        match = re.match(r"\s*(applied|already done|failed|skipped)  create (\S+)", line)
        if match and match[2] in names:
            found[match[2]] = match[1]
    return found


def test_broker_stopped_mid_apply_is_reported_journaled_and_converges(
    own3: LocalCluster, tmp_path: Path
) -> None:
    """Finding 7 (fault drill): stop broker 3 while an apply of 100 dependent creates runs."""
    ns = "drill"
    repo = SpecRepo(tmp_path, own3.bootstrap, ns)
    topics = _topics(ns)
    names = {str(t["name"]) for t in topics}
    repo.topics(*topics)
    env = {**os.environ, "KAFKA_BOOTSTRAP": own3.bootstrap, "NO_COLOR": "1"}
    run = subprocess.Popen(
        [*RECONCILER, "--repo", str(repo.root), "apply", "--cluster", "test", "--auto-approve",
         "--audit-json", "-"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert run.stderr is not None
    seen: list[str] = []
    for line in run.stderr:
        seen.append(line)
        if line.startswith(f"level 3/{DEPTH}:"):
            break
    else:
        pytest.fail("apply never reached level 3:\n" + "".join(seen))
    # Broker 3 crashes (SIGKILL: no controlled shutdown, its connections just drop) while the
    # apply is frozen at level 3, so the fault lands mid-apply. The freeze lasts milliseconds:
    # a graceful stop took up to its 30 s grace on a loaded machine, all of it counted against
    # the apply's lock lease as if the apply itself had hung.
    os.kill(run.pid, signal.SIGSTOP)
    try:
        cluster = local_cluster.stop_node(own3, 3, grace=0)
    finally:
        os.kill(run.pid, signal.SIGCONT)
    out, err = run.communicate(timeout=600)
    err = "".join(seen) + err
    try:
        assert run.returncode in (0, 1), err[-3000:]
        # Requests bound for the controller went to a live broker, not the dead one librdkafka
        # last took for it: the lock was released (its DescribeConfigs, its DeleteTopics)
        assert "apply lock was not released" not in err, err[-3000:]
        reported = _reported(out, names)
        assert set(reported) == names, err[-3000:]  # every planned change, not fewer
        assert (run.returncode == 0) == (set(reported.values()) == {"applied"})
        applied = {t for t, r in reported.items() if r == "applied"}
        skipped = {t for t, r in reported.items() if r == "skipped"}
        assert {f"{ns}.c{c}.d00" for c in range(CHAINS)} <= applied, err[-3000:]
        with adapter.Cluster(adapter.Connection("test", own3.bootstrap)) as admin:
            entries = journal.applies(admin.read_audit())
        (entry,) = entries.values()
        assert entry["end"] == "finished"
        assert {c["topic"]: c["result"] for c in entry["changes"]} == reported
        by_level = {c["topic"]: c["result"] for p in entry["progress"] for c in p["changes"]}
        # the progress records say the same, of every level that ran to its end
        assert by_level == {t: reported[t] for t in by_level}, err[-3000:]
        if "apply interrupted:" not in err:
            assert by_level == reported, err[-3000:]
        else:
            # A request the broker's death broke stops execution (interrupted.py): the levels
            # after it never ran, so they have no progress record, and the final record
            # accounts for them from what the cluster shows
            unrecorded = {r for t, r in reported.items() if t not in by_level}
            assert unrecorded <= {"failed"}, err[-3000:]
        present = set(independent_read(own3.bootstrap, ns))
        assert applied <= present  # what it says it made is there
        assert not skipped & present  # what it says it did not start is not
    finally:
        cluster = local_cluster.start_node(cluster, 3, tie_to_parent=True)
    again = repo.run("apply", "--cluster", "test", "--auto-approve", timeout=600)
    assert again.code == 0, again.stderr[-3000:]
    shown = independent_read(own3.bootstrap, ns)
    assert set(shown) == names  # nothing lost
    assert all(len(t["replicas"][0]) == 3 for t in shown.values())
    assert repo.run("plan", "--cluster", "test", "--detailed-exitcode").code == 0
