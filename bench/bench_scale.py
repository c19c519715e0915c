"""Every command the scale issue names, live, at growing topic counts (10,000, 30,000, ... 100,000).

Starts one local KRaft cluster sized for the largest count (`brokers_for`: this machine allows
20,000 open files and 65,530 memory maps per process, and a broker keeps one open file and two
maps, index and time index, per partition replica), every request logged, its data under /tmp.
Then, per size, in a fresh `reconciler` process each, timed with its peak RSS and the Kafka
requests the brokers served it (by type, and the sum of their own totalTimeMs):

- apply of the creates (the topics this size adds; from empty at the first size), by `apply`;
- plan with no change; plan with 1% of the topics changed; the PR comment of that plan
  (`plan --format markdown`); drift of that 1%;
- apply of 1,000 config changes;
- snapshot; import into an empty repository, and `plan` there (the round trip: "No changes");
- beside them, the client library alone reading the same (Metadata of every topic, every
  topic's DescribeConfigs, one broker's, ListPartitionReassignments; `raw_reads`), which is as
  fast as any tool reading the state can be: the brokers' own answer time;
- at the sizes named by --topicctl-at, segmentio/topicctl's `check` over one file per topic
  (bench_peers builds it), stopped after --peer-timeout seconds (30 minutes) and said so.

After the creates, before any read is measured, the bench waits until every broker's own
Metadata (asked of each broker by id) lists every topic, and reports how long that took: a
broker still making the new partitions' logs lists fewer, and a plan answered by it would plan
creates of topics that exist (Kafka's validate_only refuses them: measured at 20,000).

Topics have 1 partition, replication factor 1 and one override (retention.ms), 1,000 per spec
file. Each row is one JSON line, with os.getloadavg() at its end (the machine may be shared).

    .venv/bin/python -m bench.bench_scale --sizes 10000 30000 [--brokers N] [--heap-mib M]
        [--topicctl-at 10000 100000] [--peer-timeout 1800]

A size whose creates fail, or a command that exceeds --timeout, is reported and ends the run
(the cluster is stopped either way, and dies with this process if it is killed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.bench_read_state import RequestLogs, brokers_ms, by_api, load

PER_FILE = 1000
PREFIX = "s"
# A broker here holds at most ~19,000 partition replicas (the open-file limit, 20,000, less the
# sockets, jars and the metadata log); 15,000 leaves room for the controller's own files.
REPLICAS_PER_BROKER = 15_000
CHANGED_SHARE = 100  # 1 topic in 100 changed for "plan with 1% changed"
CONFIG_CHANGES = 1000


def brokers_for(topics: int) -> int:
    """Brokers needed for `topics` one-partition topics (replication factor 1), at least 3."""
    return max(3, math.ceil(topics / REPLICAS_PER_BROKER))


def name(i: int) -> str:
    return f"{PREFIX}.t{i:06d}"


# --- the spec repository ------------------------------------------------------------------------


def write_config(root: Path, bootstrap: str, client_id: str) -> None:
    (root / "topics").mkdir(parents=True, exist_ok=True)
    (root / "reconciler.yaml").write_text(
        "clusters:\n  bench:\n"
        f"    bootstrap: '{bootstrap}'\n"
        # 30 s per request (the default) is too short for 10,000+ topics' configs from brokers
        # on a busy 2-core machine (measured: a plan of 10,000 timed out at load 10)
        f"    client: {{client.id: {client_id}, request.timeout.ms: 300000}}\n"
        "    policy: {ignore: ['^_'], max_partitions_per_topic: 100}\n"
        "    limits: {max_broker_partitions: 1000000, max_partitions: 10000000}\n"
    )


def write_topics(root: Path, retention: list[str]) -> None:
    """One spec file per PER_FILE topics; topic i's retention.ms is retention[i]."""
    folder = root / "topics"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for start in range(0, len(retention), PER_FILE):
        lines = ["topics:"]
        for i in range(start, min(start + PER_FILE, len(retention))):
            lines += [f"  - name: {name(i)}", "    partitions: 1", "    replication_factor: 1",
                      f"    config: {{retention.ms: {retention[i]}}}"]  # fmt: skip
        (folder / f"f{start:06d}.yaml").write_text("\n".join(lines) + "\n")


# --- one command, measured ----------------------------------------------------------------------


def run(
    logs: RequestLogs,
    root: Path,
    bootstrap: str,
    label: str,
    size: int,
    argv: list[str],
    expect: tuple[int, ...],
    timeout: float,
    fatal: bool = False,
) -> dict[str, Any]:
    """`reconciler ARGV` in a fresh process: wall time, peak RSS (wait4's ru_maxrss: this parent
    stays small, so the child's figure is its own), exit code, the requests the brokers served.
    An exit code outside `expect` is reported in the row (with the output's end), and ends the
    run only when `fatal`."""
    client_id = f"bench-{uuid.uuid4().hex[:8]}"
    write_config(root, bootstrap, client_id)
    logs.mark()
    cmd = [sys.executable, "-m", "reconciler", "--repo", str(root), *argv]
    env = {**os.environ, "NO_COLOR": "1", "CI": "1"}
    out = root.parent / f"{label.replace(' ', '_').replace(':', '')}.out"
    began = time.monotonic()
    with out.open("w") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, env=env)
        finished = _finish(proc, began + timeout)
    if finished is None:
        row = {"size": size, "command": label, "timed_out_after_s": timeout, "load": load()}
        print(json.dumps(row), flush=True)
        raise TimeoutError
    status, usage = finished
    wall = time.monotonic() - began
    code = os.waitstatus_to_exitcode(status)
    served = logs.served(client_id)
    row = {
        "size": size,
        "command": label,
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "exit": code,
        "requests": len(served),
        "brokers_s": round(brokers_ms(served) / 1000, 2),
        "by_api": {api: int(v["n"]) for api, v in by_api(served).items()},
        "load": load(),
    }
    if code not in expect:  # a finding, reported in the row; only a failed create ends the run
        row["unexpected_exit"] = out.read_text(errors="replace")[-1500:]
    print(json.dumps(row), flush=True)
    if code not in expect and fatal:
        raise SystemExit(f"{label} at {size} exited {code} (expected {expect})")
    return row


def _finish(
    proc: subprocess.Popen[Any], deadline: float
) -> tuple[int, resource.struct_rusage] | None:
    """The process's wait status and resource usage; None, and the process killed, when it is
    still running at `deadline`."""
    try:
        _, status, usage = _wait(proc.pid, deadline)
    except TimeoutError:
        proc.kill()
        proc.wait()
        return None
    return status, usage


def _wait(pid: int, deadline: float) -> tuple[int, int, resource.struct_rusage]:
    while True:
        found, status, usage = os.wait4(pid, os.WNOHANG)
        if found:
            return found, status, usage
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.05)


# --- the client library alone -------------------------------------------------------------------

RAW = r"""
import sys, time
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType
from kafka.admin import KafkaAdminClient
bootstrap, client_id = sys.argv[1], sys.argv[2]
began = time.monotonic()
# the request timeout reconciler is given here (write_config); 2,500 topics a DescribeConfigs at
# most, as reconciler sends: 12,500 a request timed out at 100,000 topics (measured)
admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": client_id,
                     "socket.timeout.ms": 300000})
md = admin.list_topics(timeout=300)
names = [t for t in md.topics if not t.startswith("_")]
chunk = min(2500, -(-len(names) // 8))
futures = []
for i in range(0, len(names), chunk):
    res = [ConfigResource(ResourceType.TOPIC, n) for n in names[i:i + chunk]]
    futures += list(admin.describe_configs(res, request_timeout=300).values())
broker = min(md.brokers)
futures += list(admin.describe_configs([ConfigResource(ResourceType.BROKER, str(broker))]).values())
kp = KafkaAdminClient(bootstrap_servers=bootstrap, client_id=client_id, request_timeout_ms=300000)
kp.list_partition_reassignments()
for f in futures:
    f.result()
print(len(names), round(time.monotonic() - began, 2))
"""


def raw_reads(logs: RequestLogs, work: Path, bootstrap: str, size: int) -> dict[str, Any]:
    """The reads of the state by the client libraries alone, nothing converted or compared."""
    client_id = f"bench-raw-{uuid.uuid4().hex[:8]}"
    logs.mark()
    script = work / "raw_reads.py"
    script.write_text(RAW)
    began = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(script), bootstrap, client_id],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    _, status, usage = _wait(proc.pid, began + 1800)
    wall = time.monotonic() - began
    assert proc.stdout is not None
    seen = proc.stdout.read().split()
    served = logs.served(client_id)
    row = {
        "size": size,
        "command": "client library alone (Metadata, DescribeConfigs, ListPartitionReassignments)",
        "wall_s": round(wall, 2),
        "topics_seen": int(seen[0]) if seen else None,
        "peak_rss_mib": round(usage.ru_maxrss / 1024),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "exit": os.waitstatus_to_exitcode(status),
        "requests": len(served),
        "brokers_s": round(brokers_ms(served) / 1000, 2),
        "by_api": {api: int(v["n"]) for api, v in by_api(served).items()},
        "load": load(),
    }
    print(json.dumps(row), flush=True)
    return row


# --- every broker caught up --------------------------------------------------------------------


def listed_by_each(
    bootstrap: str, node_ids: list[int], names: list[str] | None = None
) -> dict[int, int]:
    """How many `PREFIX.` topics (of `names`, when given) each broker's own Metadata lists (one
    request sent to each broker by id: librdkafka picks the broker itself, kafka-python's manager
    can be told)."""
    from kafka.admin import KafkaAdminClient
    from kafka.protocol.metadata import MetadataRequest

    topic = MetadataRequest.MetadataRequestTopic
    topics = None if names is None else [topic(name=n) for n in names]
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="bench-scale-caught-up",
                             request_timeout_ms=300_000)  # fmt: skip
    try:
        manager = admin._manager
        counts = {}
        for node in node_ids:
            ask = MetadataRequest(topics=topics, allow_auto_topic_creation=False)
            answer = manager.run(manager.send, ask, node, 300_000)
            listed = [t for t in answer.topics if t.error_code == 0]
            counts[node] = sum(1 for t in listed if t.name.startswith(f"{PREFIX}."))
        return counts
    finally:
        admin.close()


# One topic in SAMPLE_EVERY is asked for while brokers catch up: at 100,000 topics an all-topics
# Metadata from each of seven brokers took 171 s at load 20 (measured), and asking for it over
# and over slowed the very catching up it waited for. The last word is still a full listing.
SAMPLE_EVERY = 25


def caught_up(cl: Any, size: int, limit: float = 3600) -> dict[str, Any]:
    """Wait until every broker lists `size` topics; the seconds it took and the last counts."""
    began = time.monotonic()
    nodes = [n.id for n in cl.nodes]  # every node is a broker (some also controllers)
    sample = [name(i) for i in range(0, size, SAMPLE_EVERY)] + [name(size - 1)]
    while True:
        late = time.monotonic() - began > limit
        if late or min(listed_by_each(cl.bootstrap, nodes, sample).values()) >= len(sample):
            counts = listed_by_each(cl.bootstrap, nodes)
            if late or min(counts.values()) >= size:
                break
        time.sleep(5)
    took = round(time.monotonic() - began, 2)
    row = {"size": size, "command": "every broker lists every topic", "wall_s": took,
           "listed": counts, "load": load()}  # fmt: skip
    print(json.dumps(row), flush=True)
    if min(counts.values()) < size:
        raise SystemExit(f"brokers still list {counts} of {size} topics after {limit:.0f} s")
    return row


# --- the peer: topicctl check -------------------------------------------------------------------


def topicctl_check(
    cl: Any, root: Path, work: Path, size: int, binary: Path, timeout: float
) -> dict[str, Any]:
    """topicctl `check` over one file per topic (the specs reconciler loads, translated as in
    bench_peers), in one process; stopped after `timeout` seconds, and the row says so."""
    from bench.bench_peers import (
        CLUSTER,
        LogWindow,
        inherited_settings,
        parse_check,
        write_topicctl,
    )
    from reconciler.workflow.context import Context

    assert CLUSTER == "bench"
    specs = Context(root).specs(CLUSTER).desired.topics.values()
    folder = work / f"topicctl{size}"
    shutil.rmtree(folder, ignore_errors=True)
    write_topicctl(folder, cl.bootstrap, specs, inherited_settings(cl.bootstrap, name(0)))
    argv0 = f"topicctl-check-{size}"
    # topicctl globs its arguments itself: 30,000 paths are over the kernel's argument limit
    argv = [argv0, "check", "--no-spinner", "--cluster-config", str(folder / "cluster.yaml"),
            str(folder / "topics" / "*.yaml")]  # fmt: skip
    window = LogWindow(cl)
    log = work / f"topicctl-check-{size}.log"
    began = time.monotonic()
    row: dict[str, Any] = {"size": size, "command": "topicctl check (read-only compare)"}
    with log.open("w") as sink:
        proc = subprocess.Popen(argv, executable=binary, stdout=subprocess.DEVNULL, stderr=sink)
        finished = _finish(proc, began + timeout)
    status, usage = finished if finished is not None else (None, None)
    wall = time.monotonic() - began
    parsed = parse_check(log.read_text(errors="replace"))
    requests = window.count(lambda c: c == "" or (c or "").startswith(f"{argv0}@"))
    row |= {
        "wall_s": round(wall, 2),
        "finished": status is not None,
        "exit": os.waitstatus_to_exitcode(status) if status is not None else None,
        "topics_checked": parsed.topics,
        "differences": len(parsed.differences),
        "errors": len(parsed.errors),
        "peak_rss_mib": round(usage.ru_maxrss / 1024) if usage else None,
        "requests": sum(requests.values()),
        "load": load(),
    }
    if status is None:
        row["stopped_after_s"] = timeout
    print(json.dumps(row), flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    return row


# --- the run ------------------------------------------------------------------------------------


def measure(
    cl: Any,
    work: Path,
    sizes: list[int],
    timeout: float,
    peer: tuple[Path, set[int], float] | None = None,
    attached: int | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """`attached`: the cluster is a stopped run's, whose creates are done and whose first
    CONFIG_CHANGES topics it last set to `attached` days of retention."""
    logs = RequestLogs(cl)
    root = work / "repo"
    retention: list[str] = []
    days = 2 if attached is None else attached + 1  # each size's config changes: an increase
    for n, size in enumerate(sorted(sizes)):
        retention += ["1d"] * (size - len(retention))
        if attached is not None and n == 0:
            retention[:CONFIG_CHANGES] = [f"{attached}d"] * min(CONFIG_CHANGES, size)

        def cmd(label: str, argv: list[str], expect: tuple[int, ...] = (0,)) -> dict[str, Any]:
            if any(word in label for word in skip):
                return {}
            return run(logs, root, cl.bootstrap, label, size, argv, expect, timeout)  # noqa: B023

        write_topics(root, retention)
        if attached is None or n > 0:
            creates = ["apply", "--cluster", "bench", "--auto-approve"]
            run(logs, root, cl.bootstrap, "apply: creates", size, creates, (0,), timeout,
                fatal=True)  # fmt: skip
        caught_up(cl, size)
        cmd("plan: no change", ["plan", "--cluster", "bench", "--detailed-exitcode"])
        raw_reads(logs, work, cl.bootstrap, size)
        if peer is not None and size in peer[1]:
            try:
                topicctl_check(cl, root, work, size, peer[0], peer[2])
            except Exception as exc:  # the peer's failure is a row, not the end of the run
                print(json.dumps({"size": size, "command": "topicctl check", "error": repr(exc)}))
        changed = list(retention)
        for i in range(0, size, CHANGED_SHARE):
            changed[i] = "30d"  # never a value applied here (below 30d), and an increase
        write_topics(root, changed)
        cmd("plan: 1% changed", ["plan", "--cluster", "bench", "--detailed-exitcode"], (2,))
        cmd("plan: PR comment", ["plan", "--cluster", "bench", "--format", "markdown"])
        cmd("drift: 1% changed", ["drift", "--cluster", "bench"], (2,))
        # an increase each size (2d, 3d, ...): a decrease is a hazard apply refuses unless the
        # spec acknowledges it, which would measure the refusal instead
        for i in range(min(CONFIG_CHANGES, size)):
            retention[i] = f"{days + n}d"
        write_topics(root, retention)
        cmd("apply: 1,000 config changes", ["apply", "--cluster", "bench", "--auto-approve"])
        cmd("snapshot", ["snapshot", "--cluster", "bench", "-o", str(work / "snapshot.json")])
        if any(word in "import: empty repository" for word in skip):
            continue
        adopted = work / f"adopted-{size}"
        write_config(adopted, cl.bootstrap, "x")
        run(logs, adopted, cl.bootstrap, "import: empty repository", size,
            ["import", "--cluster", "bench"], (0,), timeout)  # fmt: skip
        run(logs, adopted, cl.bootstrap, "import: plan after", size,
            ["plan", "--cluster", "bench", "--detailed-exitcode"], (0,), timeout)  # fmt: skip
        shutil.rmtree(adopted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000])
    parser.add_argument("--brokers", type=int, help="default: brokers_for(the largest size)")
    parser.add_argument("--heap-mib", type=int, default=1536, help="each broker's heap")
    parser.add_argument("--timeout", type=float, default=1800, help="per command, seconds")
    parser.add_argument("--keep", action="store_true", help="keep /tmp/bench-scale-* afterwards")
    parser.add_argument("--topicctl-at", type=int, nargs="*", default=[],
                        help="sizes at which topicctl check runs too")  # fmt: skip
    parser.add_argument("--peer-timeout", type=float, default=1800, help="topicctl's, seconds")
    parser.add_argument(
        "--attach", type=Path, metavar="STATE_DIR",
        help="measure a running cluster (its state directory, e.g. a stopped run's "
        "/tmp/bench-scale-*/kafka) instead of starting one; it is left running",
    )  # fmt: skip
    parser.add_argument("--attached-days", type=int, default=2,
                        help="with --attach: the retention (days) the stopped run last applied "
                        "to the first 1,000 topics (2 after its first size)")  # fmt: skip
    parser.add_argument("--skip", nargs="*", default=[],
                        help="leave out commands whose label has one of these words")  # fmt: skip
    args = parser.parse_args()
    peer = None
    if args.topicctl_at:
        from bench.bench_peers import cache_dir, ensure_topicctl

        binary, how = ensure_topicctl(cache_dir())
        print(f"# topicctl: {how}", flush=True)
        if binary is not None:
            peer = (binary, set(args.topicctl_at), args.peer_timeout)

    from reconciler.local import cluster as local_cluster
    from reconciler.local.cluster import JVM_OPTS_ENV, default_overrides
    from reconciler.local.distribution import ensure_distribution

    brokers = args.brokers or brokers_for(max(args.sizes))
    os.environ[JVM_OPTS_ENV] = f"-Xms{args.heap_mib // 2}m -Xmx{args.heap_mib}m"
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"open files {hard}, vm.max_map_count "
          f"{Path('/proc/sys/vm/max_map_count').read_text().strip()}, load {load()}")  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="bench-scale-", dir="/tmp"))
    if args.attach is not None:
        from reconciler.local.state import load_state

        attached = load_state(args.attach)
        if attached is None:
            raise SystemExit(f"no cluster state in {args.attach}")
        print(f"# attached to {len(attached.nodes)} brokers in {args.attach}", flush=True)
        try:
            measure(attached, work, args.sizes, args.timeout, peer, args.attached_days,
                    tuple(args.skip))  # fmt: skip
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        return
    try:
        began = time.monotonic()
        cl = local_cluster.start(
            work / "kafka", ensure_distribution(), brokers=brokers,
            overrides=default_overrides(brokers), tie_to_parent=True, request_log=True,
        )  # fmt: skip
        print(f"# {brokers} brokers, {args.heap_mib} MiB heap each, started in "
              f"{time.monotonic() - began:.1f} s; data in {work}", flush=True)  # fmt: skip
        try:
            measure(cl, work, args.sizes, args.timeout, peer, skip=tuple(args.skip))
        finally:
            local_cluster.stop(cl)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
