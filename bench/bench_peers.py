"""`reconciler plan` against a peer, segmentio/topicctl, on the same topics of a real cluster.

    .venv/bin/python -m bench.bench_peers [--sizes 1000 3000] [--with-10k] [--rounds 3]

For each size a fresh three-broker KRaft cluster (the project's own Kafka jars, racks a/b/c,
every request logged) gets the topics bench/bench_plan.py creates, and one set of specs is
written for both tools: bench_plan's reconciler repository (50 topics per file; 90% unchanged,
5% with a retention.ms change, 3% growing 1 -> 2 partitions, 2% new) and, translated from the
specs reconciler loads, one topicctl topic file per topic (same partitions, replication factor
and config values; `placement: strategy: any`). Then, interleaved, round after round:

- `reconciler plan --format json` (a subprocess, as a user runs it);
- `topicctl check` over all topic files (read-only compare);
- `topicctl apply --dry-run --skip-confirm`, one process over all topic files.

Every run's differences are parsed (reconciler's JSON `changes`, topicctl's log) and must be
exactly the generated ones, or the bench stops. Reported per command: min and median wall time
over the rounds and the requests of each run, counted by the brokers (requests.log lines
appended during the run, forwarded copies left out): reconciler's by its unique client.id;
topicctl's by kafka-go's, an empty client id (topicctl cannot set one; nothing else on the
cluster sends it), or `<argv0>@<host> (github.com/segmentio/kafka-go)` for its Dialer.

topicctl is built once, pinned, from the Go module proxy into `$RECONCILER_CACHE/go`
(default ~/.cache/reconciler): `go install github.com/segmentio/topicctl/cmd/topicctl@v1.21.0`,
or when that cannot resolve (a proxy refusing the module's version list, which `go install`
reads for deprecation notices) `go mod download` of the same version and `go build` in it.
Without Go (and no binary in the cache) the peer rows are skipped, with a line saying so.

Brokers get `--jvm-opts` (default a 2 GiB heap, as bench_plan). Each cluster is stopped when
its size is done (and dies with this process if it is killed). Note: the request log costs
the brokers time in proportion to the responses they write, which weighs more on the tool
that sends more requests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bench.bench_plan import PER_FILE, create_topics, kind, set_client_id, write_repo
from bench.bytecode import as_installed
from reconciler.local import cluster as local_cluster
from reconciler.local import state as local_state
from reconciler.local.cluster import JVM_OPTS_ENV, default_overrides
from reconciler.local.distribution import ensure_distribution
from reconciler.spec.model import TopicSpec
from reconciler.workflow.context import Context

TOPICCTL_PACKAGE = "github.com/segmentio/topicctl/cmd/topicctl"
TOPICCTL_MODULE = "github.com/segmentio/topicctl"
TOPICCTL_VERSION = "v1.21.0"  # pinned: a release tag, never @latest
CLUSTER = "bench"  # reconciler's cluster name; topicctl's cluster, environment and region
SETTLE_S = 1.0  # brokers append to requests.log asynchronously

# (topic, kind, detail): ("t", "create", ""), ("t", "partitions", "+1"), ("t", "config", key)
Difference = tuple[str, str, str]


# --- the differences both tools must report ---------------------------------------------------


def expected_differences(size: int, prefix: str) -> set[Difference]:
    """What bench_plan's generated specs differ from the cluster in, by construction."""
    out: set[Difference] = set()
    for i in range(size):
        name = f"{prefix}.t{i:05d}"
        match kind(i):
            case "new":
                out.add((name, "create", ""))
            case "grow":
                out.add((name, "partitions", "+1"))
            case "config":
                out.add((name, "config", "retention.ms"))
    return out


def plan_differences(plan: Mapping[str, Any]) -> set[Difference]:
    """The differences in reconciler's JSON plan (`changes`)."""
    out: set[Difference] = set()
    for change in plan["changes"]:
        topic, action = change["topic"], change["action"]
        if action != "update":
            out.add((topic, action, ""))
            continue
        partitions = change.get("partitions")
        if partitions and partitions["current"] != partitions["desired"]:
            out.add((topic, "partitions", f"+{partitions['desired'] - partitions['current']}"))
        for entry in change.get("config", ()):
            out.add((topic, "config", entry["key"]))
        if "replication_factor" in change or "reassignment" in change:
            out.add((topic, "replication", ""))
    return out


# --- topicctl's configuration, from the specs reconciler loads ---------------------------------


def topicctl_cluster(bootstrap: str) -> dict[str, Any]:
    return {
        "meta": {"name": CLUSTER, "environment": CLUSTER, "region": CLUSTER},
        "spec": {"bootstrapAddrs": bootstrap.split(",")},
    }


def topicctl_topic(spec: TopicSpec, inherited: Mapping[str, str]) -> dict[str, Any]:
    """topicctl's topic file for a reconciler topic spec.

    `inherited`: values the cluster sets for every topic (dynamic broker defaults, such as the
    min.insync.replicas Kafka 4 writes when ELR is on). topicctl reports any non-static key of
    a topic missing from its file as a difference; reconciler compares only the keys a spec
    names. Spelling them out keeps topicctl from reporting differences reconciler does not see.
    """
    if spec.partitions is None or spec.replication_factor is None:
        raise ValueError(f"{spec.name}: topicctl needs partitions and replication_factor")
    return {
        "meta": {"name": spec.name, "cluster": CLUSTER, "environment": CLUSTER, "region": CLUSTER},
        "spec": {
            "partitions": spec.partitions,
            "replicationFactor": spec.replication_factor,
            "settings": {**inherited, **spec.config_map},
            "placement": {"strategy": "any"},  # no rack placement to fix: none in the specs
        },
    }


def inherited_settings(bootstrap: str, topic: str) -> dict[str, str]:
    """The dynamic broker (default) configs an existing topic shows, which topicctl compares."""
    from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, ResourceType

    admin = AdminClient(
        {"bootstrap.servers": bootstrap, "client.id": "bench-peers-setup", "log_level": 3}
    )
    futures = admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)])
    entries = next(iter(futures.values())).result(timeout=60)
    wanted = {ConfigSource.DYNAMIC_BROKER_CONFIG, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG}
    return {
        name: entry.value
        for name, entry in sorted(entries.items())
        if ConfigSource(entry.source) in wanted and entry.value is not None
    }


def write_topicctl(
    root: Path, bootstrap: str, specs: Iterable[TopicSpec], inherited: Mapping[str, str]
) -> list[str]:
    """cluster.yaml and topics/<name>.yaml under root; the topic files, sorted."""
    (root / "topics").mkdir(parents=True)
    (root / "cluster.yaml").write_text(yaml.safe_dump(topicctl_cluster(bootstrap)))
    paths = []
    for spec in specs:
        path = root / "topics" / f"{spec.name}.yaml"
        path.write_text(yaml.safe_dump(topicctl_topic(spec, inherited), sort_keys=False))
        paths.append(str(path))
    return sorted(paths)


# --- reading topicctl's output (its log, on stderr) ---------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LOG_LINE = re.compile(r'^time="[^"]*" level=(\w+) msg="(.*)$')
_CHECK_FAILED = re.compile(r"Check failed for topic (\S+) \(cluster=")
_CHECK_OK = re.compile(r"Topic (\S+) \(cluster=[^)]*\) OK")
_PROCESSING = re.compile(r"Processing topic (\S+) in config ")
_WOULD_CREATE = re.compile(r"Would create topic with config \{Topic:(\S+) ")
_ADD_PARTITIONS = re.compile(r"Trying to add (\d+) additional partitions")
_DIFFERENT_KEYS = re.compile(r"Found \d+ key\(s\) with different values:")
_MISSING_KEYS = re.compile(r"Found \d+ key\(s\) set in cluster but missing from config:")
_PLACEMENT = re.compile(r"Trying to get the partitions consistent with")
_LEADERS = re.compile(r"partitions have the wrong leaders")
_EXPECTED = re.compile(r"expected (\d+), observed (\d+)")
_KEYS = re.compile(r"\[([^\]]*)\]")


@dataclass
class Parsed:
    differences: set[Difference] = field(default_factory=set)
    topics: int = 0  # topics the command reported on
    errors: list[str] = field(default_factory=list)  # level=error/fatal lines


def _cells(line: str) -> list[str] | None:
    """A tablewriter row's cells; None for a border line."""
    body = line.rstrip().rstrip('"')
    if not body.strip() or set(body.strip()) <= {"-", "+"}:
        return None
    return [cell.strip() for cell in body.split("|")]


def parse_check(log: str) -> Parsed:
    """`topicctl check`: one result table per topic that differs."""
    out, topic = Parsed(), None
    for raw in _ANSI.sub("", log).splitlines():
        entry = _LOG_LINE.match(raw)
        if entry:
            level, msg = entry[1], entry[2].removesuffix('"')
            topic = None
            if level in ("error", "fatal", "panic") and not msg.startswith("Check failed for "):
                out.errors.append(msg)
            if failed := _CHECK_FAILED.match(msg):
                topic, out.topics = failed.group(1), out.topics + 1
            elif _CHECK_OK.match(msg):
                out.topics += 1
            continue
        cells = _cells(raw) if topic else None
        if topic is None or cells is None or len(cells) < 3 or cells[1] != "✗":
            continue
        name, details = cells[0], cells[2]
        if name == "topic exists":
            out.differences.add((topic, "create", ""))
        elif name == "partition count correct" and (counts := _EXPECTED.search(details)):
            out.differences.add((topic, "partitions", f"+{int(counts[1]) - int(counts[2])}"))
        elif name == "config settings correct" and (keys := _KEYS.search(details)):
            out.differences.update((topic, "config", key) for key in keys[1].split())
        else:
            out.differences.add((topic, name, details))
    return out


def parse_dry_run(log: str) -> Parsed:
    """`topicctl apply --dry-run`: what it would do, per `Processing topic` section."""
    out, topic, table = Parsed(), "", ""
    for raw in _ANSI.sub("", log).splitlines():
        entry = _LOG_LINE.match(raw)
        if entry is None:
            cells = _cells(raw) if table else None
            if cells and len(cells) >= 2 and cells[0] and cells[0] != "KEY":
                detail = cells[0] if table == "different" else f"{cells[0]} (only in cluster)"
                out.differences.add((topic, "config", detail))
            continue
        level, msg = entry[1], entry[2].removesuffix('"')
        table = ""
        if level in ("error", "fatal", "panic"):
            out.errors.append(msg)
        if processing := _PROCESSING.match(msg):
            topic, out.topics = processing.group(1), out.topics + 1
        elif create := _WOULD_CREATE.match(msg):
            out.differences.add((create.group(1), "create", ""))
        elif grow := _ADD_PARTITIONS.match(msg):
            out.differences.add((topic, "partitions", f"+{grow.group(1)}"))
        elif _DIFFERENT_KEYS.match(msg):
            table = "different"
        elif _MISSING_KEYS.match(msg):
            table = "missing"
        elif _PLACEMENT.match(msg):
            out.differences.add((topic, "placement", ""))
        elif _LEADERS.search(msg):
            out.differences.add((topic, "leaders", ""))
    return out


# --- requests, from the brokers' request logs --------------------------------------------------

_REQUEST = re.compile(r"Completed request:(\{.*)$")


def request_header(line: str) -> tuple[bool, str | None, str] | None:
    """(forwarded, client id, API name) of a requests.log line; None for anything else.

    Reads only the line's head: a DescribeConfigs response line can be 100 kB.
    """
    match = _REQUEST.search(line)
    if match is None:
        return None
    payload = match.group(1)
    try:
        start = payload.index('"requestHeader":')
        head = json.loads(payload[: payload.index("}", start) + 1] + "}")
        if "isForwarded" not in head:
            head = json.loads(payload)
        header = head["requestHeader"]
        return bool(head.get("isForwarded")), header.get("clientId"), header["requestApiKeyName"]
    except (ValueError, KeyError):
        return None


def count_requests(lines: Iterable[str], accept: Callable[[str | None], bool]) -> Counter[str]:
    """Requests per API of the lines whose client id `accept`s, forwarded copies left out."""
    counts: Counter[str] = Counter()
    for line in lines:
        header = request_header(line)
        if header is not None and not header[0] and accept(header[1]):
            counts[header[2]] += 1
    return counts


class LogWindow:
    """The requests.log lines every node appends from now until `count` is called."""

    def __init__(self, cluster: local_state.LocalCluster) -> None:
        self.paths = [cluster.node_dir(n) / "requests.log" for n in cluster.nodes]
        self.offsets = [p.stat().st_size if p.exists() else 0 for p in self.paths]

    def count(self, accept: Callable[[str | None], bool]) -> Counter[str]:
        time.sleep(SETTLE_S)
        counts: Counter[str] = Counter()
        for path, offset in zip(self.paths, self.offsets, strict=True):
            if not path.exists():
                continue
            with path.open("rb") as log:
                log.seek(offset)
                lines = (b.decode("utf-8", "replace") for b in log)
                counts.update(count_requests(lines, accept))
        return counts


# --- building topicctl -------------------------------------------------------------------------


def cache_dir() -> Path:
    return Path(os.environ.get("RECONCILER_CACHE") or Path.home() / ".cache" / "reconciler")


def find_go() -> str | None:
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if os.access(fallback, os.X_OK) else None


def ensure_topicctl(cache: Path) -> tuple[Path | None, str]:
    """The pinned topicctl binary (built once into the cache) and how it was found."""
    if not re.fullmatch(r"v\d+\.\d+\.\d+", TOPICCTL_VERSION):
        raise SystemExit(f"topicctl must be pinned to a release, not {TOPICCTL_VERSION!r}")
    bin_dir = cache / "go" / f"topicctl-{TOPICCTL_VERSION}"
    binary = bin_dir / "topicctl"
    if os.access(binary, os.X_OK):
        return binary, f"cached at {binary}"
    go = find_go()
    if go is None:
        return None, "Go not found (no `go` on PATH, no /usr/local/go/bin/go)"
    env = {
        **os.environ,
        "GOPATH": str(cache / "go"),
        "GOMODCACHE": str(cache / "go" / "mod"),
        "GOCACHE": str(cache / "go" / "build"),
        "GOFLAGS": "-modcacherw",
        "GOBIN": str(bin_dir),
    }
    print(f"# building topicctl {TOPICCTL_VERSION} with {go} into {bin_dir} (once)", flush=True)
    began = time.monotonic()
    install = [go, "install", f"{TOPICCTL_PACKAGE}@{TOPICCTL_VERSION}"]
    proc = subprocess.run(install, env=env, capture_output=True, text=True, check=False)
    how = "go install"
    if proc.returncode != 0:
        # `go install pkg@version` also asks the proxy for the module's version list (to look
        # up a deprecation notice on the latest version); some proxies refuse that list. The
        # pinned module itself downloads fine: build it as the main module, with its go.sum.
        print(f"# go install failed ({proc.stderr.strip().splitlines()[-1:]}); "
              "building from `go mod download` instead", flush=True)  # fmt: skip
        spec = f"{TOPICCTL_MODULE}@{TOPICCTL_VERSION}"
        download = subprocess.run(
            [go, "mod", "download", "-json", spec], env=env, capture_output=True, text=True,
            check=False,
        )  # fmt: skip
        if download.returncode != 0:
            raise SystemExit(f"go mod download {spec} failed:\n{download.stdout}{download.stderr}")
        source = json.loads(download.stdout)["Dir"]
        bin_dir.mkdir(parents=True, exist_ok=True)
        build = [go, "build", "-trimpath", "-o", str(binary), "./cmd/topicctl"]
        proc = subprocess.run(build, cwd=source, env=env, capture_output=True, text=True,
                              check=False)  # fmt: skip
        how = "go mod download + go build"
        if proc.returncode != 0:
            raise SystemExit(f"building topicctl failed:\n{proc.stderr}")
    return binary, f"built ({how}) in {time.monotonic() - began:.0f} s: {binary}"


# --- running the commands ----------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    requests: Counter[str]
    differences: set[Difference]


def run_plan(cl: local_state.LocalCluster, root: Path, client_id: str) -> Run:
    set_client_id(root, client_id)
    window = LogWindow(cl)
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "reconciler", "--repo", str(root), "plan", "--cluster", CLUSTER,
         "--format", "json", "--detailed-exitcode"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.monotonic() - began
    if proc.returncode != 2:
        raise SystemExit(f"reconciler plan exited {proc.returncode}: {proc.stderr[-2000:]}")
    plan = json.loads(proc.stdout)
    return Run(wall, window.count(lambda c: c == client_id), plan_differences(plan))


def run_topicctl(
    cl: local_state.LocalCluster, binary: Path, argv0: str, args: Sequence[str], size: int
) -> Run:
    """One topicctl process; argv0 names it (kafka-go's Dialer client id starts with it)."""
    check = args[0] == "check"
    window = LogWindow(cl)
    began = time.monotonic()
    proc = subprocess.run(
        [argv0, *args], executable=binary, capture_output=True, text=True, check=False
    )
    wall = time.monotonic() - began
    parsed = parse_check(proc.stderr) if check else parse_dry_run(proc.stderr)
    ok_codes = (0, 1) if check else (0,)
    if proc.returncode not in ok_codes or parsed.errors or parsed.topics != size:
        raise SystemExit(
            f"topicctl {args[0]} exited {proc.returncode}, reported on {parsed.topics} of {size} "
            f"topics, errors {parsed.errors[:5]}:\n{proc.stderr[-3000:]}"
        )
    requests = window.count(lambda c: c == "" or (c or "").startswith(f"{argv0}@"))
    return Run(wall, requests, parsed.differences)


def agree(tool: str, found: set[Difference], expected: set[Difference]) -> None:
    if found == expected:
        return
    missing, extra = sorted(expected - found), sorted(found - expected)
    raise SystemExit(
        f"{tool} reported {len(found)} differences, the specs hold {len(expected)}: "
        f"{len(missing)} missing (first: {missing[:5]}), {len(extra)} extra (first: {extra[:5]})"
    )


# --- the table ---------------------------------------------------------------------------------

ROWS = {  # the order of the printed table
    "plan": f"`reconciler plan` ({PER_FILE} topics per file)",
    "dry-run": "topicctl `apply --dry-run`, one process over all files",
    "check": "topicctl `check` (read-only compare)",
}


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def request_range(counts: Sequence[int]) -> str:
    low, high = min(counts), max(counts)
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def table(size: int, runs: Mapping[str, Sequence[Run]]) -> str:
    lines = [f"| {size:,} topics | min | median | requests |", "|---|---:|---:|---:|"]
    for key, label in ROWS.items():
        if key not in runs:
            continue
        walls = [r.wall for r in runs[key]]
        counts = [sum(r.requests.values()) for r in runs[key]]
        lines.append(
            f"| {label} | {seconds(min(walls))} | {seconds(statistics.median(walls))} "
            f"| {request_range(counts)} |"
        )
    return "\n".join(lines)


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg())


# --- one size ----------------------------------------------------------------------------------


def measure(size: int, rounds: int, topicctl: Path | None, work: Path) -> None:
    prefix = f"p{size}"
    began = time.monotonic()
    cl = local_cluster.start(
        work / f"kafka{size}", ensure_distribution(), brokers=3, overrides=default_overrides(3),
        tie_to_parent=True, request_log=True,
    )  # fmt: skip
    try:
        started = time.monotonic() - began
        created = create_topics(cl.bootstrap, size, prefix)
        print(f"# {size:,} topics: cluster started in {started:.1f} s, "
              f"topics created in {created:.1f} s; {load()}", flush=True)  # fmt: skip
        repo = work / f"repo{size}"
        write_repo(repo, cl.bootstrap, size, prefix)
        expected = expected_differences(size, prefix)
        kinds = Counter(k for _, k, _ in expected)
        runs: dict[str, list[Run]] = {"plan": []}
        files: list[str] = []
        config: list[str] = []
        if topicctl is not None:
            specs = Context(repo).specs(CLUSTER).desired.topics.values()
            existing = next(f"{prefix}.t{i:05d}" for i in range(size) if kind(i) != "new")
            inherited = inherited_settings(cl.bootstrap, existing)
            files = write_topicctl(work / f"topicctl{size}", cl.bootstrap, specs, inherited)
            config = ["--cluster-config", str(work / f"topicctl{size}" / "cluster.yaml")]
            runs |= {"check": [], "dry-run": []}
            if inherited:
                print(f"#   topicctl files also set the cluster-wide {inherited}", flush=True)
        for n in range(rounds):
            runs["plan"].append(run_plan(cl, repo, f"bench-peers-{size}-{n}"))
            agree("reconciler plan", runs["plan"][-1].differences, expected)
            if topicctl is not None:
                check = ["check", "--no-spinner", *config, *files]
                runs["check"].append(run_topicctl(cl, topicctl, f"topicctl-check-{n}", check, size))
                agree("topicctl check", runs["check"][-1].differences, expected)
                dry = ["apply", "--dry-run", "--skip-confirm", "--no-spinner", *config, *files]
                runs["dry-run"].append(run_topicctl(cl, topicctl, f"topicctl-dry-{n}", dry, size))
                agree("topicctl apply --dry-run", runs["dry-run"][-1].differences, expected)
            walls = ", ".join(f"{k} {r[-1].wall:.2f} s" for k, r in runs.items())
            print(f"#   round {n + 1}/{rounds}: {walls}", flush=True)
    finally:
        local_cluster.stop(cl)
    tools = ", ".join(ROWS[k].split(" (")[0].split(",")[0] for k in runs)
    print(f"\n{table(size, runs)}\n")
    if "check" in runs:  # round by round, so that the machine's drift cancels out
        ratios = [c.wall / p.wall for p, c in zip(runs["plan"], runs["check"], strict=True)]
        print(f"topicctl check / reconciler plan, round by round: "
              f"{', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f} "
              "(above 1: plan faster)")  # fmt: skip
    print(f"Differences ({len(expected)}: {kinds['create']} new topics, {kinds['partitions']} "
          f"partition increases, {kinds['config']} retention.ms changes): reported exactly, in "
          f"every round, by {tools}.")  # fmt: skip
    for key, label in ROWS.items():
        if key in runs:
            per_run = ", ".join(f"{sum(r.requests.values()):,}" for r in runs[key])
            apis = ", ".join(f"{api} {c:,}" for api, c in sorted(runs[key][0].requests.items()))
            print(f"- {label}: requests per run {per_run}; first run by API: {apis}")
    print(f"# {size:,} topics done; {load()}\n", flush=True)


def main() -> None:
    as_installed()  # bytecode, as pip installs it (bench/bytecode.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--with-10k", action="store_true", help="add 10,000 topics to --sizes")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (3 or more)")
    parser.add_argument(
        "--jvm-opts", default="-Xms1g -Xmx2g", help="extra broker JVM options (heap for 10k+)"
    )
    args = parser.parse_args()
    if args.rounds < 3:
        parser.error("--rounds: min and median need at least 3 rounds")
    sizes = sorted(set(args.sizes) | ({10000} if args.with_10k else set()))
    os.environ[JVM_OPTS_ENV] = args.jvm_opts
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 65536), hard), hard))
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"# before: {load()}", flush=True)
    topicctl, how = ensure_topicctl(cache_dir())
    if topicctl is None:
        print(f"# {how}: topicctl {TOPICCTL_VERSION} cannot be built, the peer rows are "
              "skipped (only `reconciler plan` is measured)", flush=True)  # fmt: skip
    else:
        print(f"# topicctl {TOPICCTL_VERSION}: {how}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for size in sizes:
            measure(size, args.rounds, topicctl, Path(tmp))
    print(f"# after: {load()}", flush=True)


if __name__ == "__main__":
    main()
