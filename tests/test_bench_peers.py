"""bench/bench_peers.py's pure helpers: topicctl files from the specs, and reading both tools.

No Kafka, no Go: the outputs below were captured from real runs (topicctl v1.21.0 against the
bench's three-broker cluster, 12 topics; trailing blanks of the table rows trimmed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bench.bench_peers import (
    count_requests,
    expected_differences,
    parse_check,
    parse_dry_run,
    plan_differences,
    request_header,
    topicctl_topic,
    write_topicctl,
)
from bench.bench_plan import write_repo
from reconciler.workflow.context import Context

# topicctl check, topics s.t00000 (new), s.t00002 (grows), s.t00005 (retention), s.t00010
CHECK_LOG = """\
time="2026-11-25 12:02:46" level=warning msg="Number of partitions (1) is not a multiple of the number of racks (3)"
time="2026-11-25 12:02:46" level=info msg="Check failed for topic s.t00000 (cluster=bench, env=bench):
---------------------+----+----------
         NAME        | OK | DETAILS
---------------------+----+----------
  config correct     | ✓  |
  configs consistent | ✓  |
  topic exists       | ✗  |
---------------------+----+----------"
time="2026-11-25 12:02:46" level=info msg="Check failed for topic s.t00002 (cluster=bench, env=bench):
-----------------------------+----+-------------------------
             NAME            | OK |        DETAILS
-----------------------------+----+-------------------------
  config correct             | ✓  |
  configs consistent         | ✓  |
  topic exists               | ✓  |
  config settings correct    | ✓  |
  replication factor correct | ✓  |
  partition count correct    | ✗  | expected 2, observed 1
  throttles clear            | ✓  |
  replicas in-sync           | ✓  |
-----------------------------+----+-------------------------"
time="2026-11-25 12:02:46" level=info msg="Check failed for topic s.t00005 (cluster=bench, env=bench):
-----------------------------+----+--------------------------------------------------------------------------------
             NAME            | OK |                                    DETAILS
-----------------------------+----+--------------------------------------------------------------------------------
  config correct             | ✓  |
  configs consistent         | ✓  |
  topic exists               | ✓  |
  config settings correct    | ✗  | 1 keys have different values between cluster and topic config: [retention.ms]
  replication factor correct | ✓  |
  partition count correct    | ✓  |
  throttles clear            | ✓  |
  replicas in-sync           | ✓  |
-----------------------------+----+--------------------------------------------------------------------------------"
time="2026-11-25 12:02:46" level=info msg="Topic s.t00010 (cluster=bench, env=bench) OK"
time="2026-11-25 12:02:46" level=error msg="Check failed for 3/4 topic configs"
"""  # noqa: E501

# topicctl apply --dry-run --skip-confirm, the same four topics
DRY_RUN_LOG = """\
time="2026-11-25 12:02:46" level=info msg="Processing topic s.t00000 in config /tmp/tc/topics/s.t00000.yaml with cluster config /tmp/tc/cluster.yaml"
time="2026-11-25 12:02:46" level=info msg="Starting apply for topic s.t00000 in environment bench, cluster bench"
time="2026-11-25 12:02:46" level=info msg="Validating configs..."
time="2026-11-25 12:02:46" level=warning msg="Number of partitions (1) is not a multiple of the number of racks (3)"
time="2026-11-25 12:02:46" level=info msg="Checking if topic already exists..."
time="2026-11-25 12:02:46" level=info msg="Would create topic with config {Topic:s.t00000 NumPartitions:1 ReplicationFactor:1 ReplicaAssignments:[] ConfigEntries:[{ConfigName:min.insync.replicas ConfigValue:1} {ConfigName:retention.ms ConfigValue:86400000}]}"
time="2026-11-25 12:02:46" level=info msg="Apply completed successfully!"
time="2026-11-25 12:02:46" level=info msg="Processing topic s.t00002 in config /tmp/tc/topics/s.t00002.yaml with cluster config /tmp/tc/cluster.yaml"
time="2026-11-25 12:02:46" level=info msg="Starting apply for topic s.t00002 in environment bench, cluster bench"
time="2026-11-25 12:02:46" level=info msg="Updating existing topic 's.t00002'"
time="2026-11-25 12:02:46" level=info msg="Checking topic config settings..."
time="2026-11-25 12:02:46" level=info msg="Checking replication..."
time="2026-11-25 12:02:46" level=info msg="Checking partition count..."
time="2026-11-25 12:02:46" level=info msg="Trying to add 1 additional partitions consistent with 'any' strategy"
time="2026-11-25 12:02:46" level=warning msg="Extra partitions are not a multiple of the number of racks, balancing will not be ideal"
time="2026-11-25 12:02:46" level=info msg="Here are the proposed diffs:
------------+----------+------------+-------+----------
  PARTITION |   CURR   |  PROPOSED  | DIFF? |   NEW
            | REPLICAS |  REPLICAS  |       | LEADER?
------------+----------+------------+-------+----------
          1 |          | 1 (rack-a) | Y     |
------------+----------+------------+-------+----------"
time="2026-11-25 12:02:46" level=info msg="Skipping update because dryRun is set to true"
time="2026-11-25 12:02:46" level=info msg="Checking partition placement..."
time="2026-11-25 12:02:46" level=info msg="Partition placement already satisfies strategy 'any'"
time="2026-11-25 12:02:46" level=info msg="Checking leaders..."
time="2026-11-25 12:02:46" level=info msg="Apply completed successfully!"
time="2026-11-25 12:02:46" level=info msg="Processing topic s.t00005 in config /tmp/tc/topics/s.t00005.yaml with cluster config /tmp/tc/cluster.yaml"
time="2026-11-25 12:02:47" level=info msg="Updating existing topic 's.t00005'"
time="2026-11-25 12:02:47" level=info msg="Checking topic config settings..."
time="2026-11-25 12:02:47" level=info msg="Found 1 key(s) with different values:
---------------+----------------------+-----------------------
      KEY      | CLUSTER VALUE (CURR) |  CONFIG VALUE (NEW)
---------------+----------------------+-----------------------
  retention.ms | 86400000 (1440 min)  | 172800000 (2880 min)
---------------+----------------------+-----------------------"
time="2026-11-25 12:02:47" level=info msg="Skipping update because dryRun is set to true"
time="2026-11-25 12:02:47" level=info msg="Checking partition placement..."
time="2026-11-25 12:02:47" level=info msg="Partition placement already satisfies strategy 'any'"
time="2026-11-25 12:02:47" level=info msg="Apply completed successfully!"
time="2026-11-25 12:02:47" level=info msg="Processing topic s.t00010 in config /tmp/tc/topics/s.t00010.yaml with cluster config /tmp/tc/cluster.yaml"
time="2026-11-25 12:02:47" level=info msg="Updating existing topic 's.t00010'"
time="2026-11-25 12:02:47" level=info msg="Checking topic config settings..."
time="2026-11-25 12:02:47" level=info msg="Checking partition placement..."
time="2026-11-25 12:02:47" level=info msg="Partition placement already satisfies strategy 'any'"
time="2026-11-25 12:02:47" level=info msg="Checking leaders..."
time="2026-11-25 12:02:47" level=info msg="Apply completed successfully!"
"""  # noqa: E501

# A topic file without the cluster-wide min.insync.replicas: topicctl reports the key
MISSING_KEY_LOG = """\
time="2026-11-25 11:57:50" level=info msg="Processing topic b200.t00002 in config /tmp/tc/topics/b200.t00002.yaml with cluster config /tmp/tc/cluster.yaml"
time="2026-11-25 11:57:50" level=info msg="Checking topic config settings..."
time="2026-11-25 11:57:50" level=warning msg="Found 1 key(s) set in cluster but missing from config:
----------------------+----------------
          KEY         | CLUSTER VALUE
----------------------+----------------
  min.insync.replicas | 1
----------------------+----------------
These will be left as-is."
time="2026-11-25 11:57:50" level=info msg="Checking replication..."
"""  # noqa: E501

# reconciler plan --format json for the same four topics (`changes` only)
PLAN = json.loads("""{"changes": [
{"action": "create", "config": [{"current": null, "desired": "86400000", "key": "retention.ms"}], "depends_on": [], "hazards": [], "partitions": {"current": null, "desired": 1}, "replication_factor": {"current": null, "desired": 1}, "topic": "s.t00000"},
{"action": "update", "depends_on": [], "hazards": [], "partitions": {"current": 1, "desired": 2}, "topic": "s.t00002"},
{"action": "update", "config": [{"current": "86400000", "desired": "172800000", "key": "retention.ms"}], "depends_on": [], "hazards": [], "topic": "s.t00005"}
]}""")  # noqa: E501

FOUR = {
    ("s.t00000", "create", ""),
    ("s.t00002", "partitions", "+1"),
    ("s.t00005", "config", "retention.ms"),
}


def test_the_three_tools_read_the_same_differences() -> None:
    check, dry_run = parse_check(CHECK_LOG), parse_dry_run(DRY_RUN_LOG)
    assert plan_differences(PLAN) == FOUR
    assert (check.differences, check.topics, check.errors) == (FOUR, 4, [])
    assert (dry_run.differences, dry_run.topics, dry_run.errors) == (FOUR, 4, [])


def test_a_key_only_the_cluster_sets_is_a_difference_of_its_own() -> None:
    parsed = parse_dry_run(MISSING_KEY_LOG)
    assert parsed.differences == {
        ("b200.t00002", "config", "min.insync.replicas (only in cluster)")
    }


def test_an_error_line_is_kept() -> None:
    log = 'time="2026-11-25 12:00:00" level=fatal msg="dial tcp 127.0.0.1:1: connect: refused"\n'
    assert parse_dry_run(log).errors == ["dial tcp 127.0.0.1:1: connect: refused"]
    assert parse_check(log).errors


def test_expected_differences_follow_bench_plan_proportions() -> None:
    found = expected_differences(100, "s")
    assert len(found) == 10
    assert {k for _, k, _ in found} == {"create", "partitions", "config"}
    assert {d for d in found if d[0] in {"s.t00000", "s.t00002", "s.t00005", "s.t00010"}} == FOUR


def test_topicctl_files_say_what_the_reconciler_specs_say(tmp_path: Path) -> None:
    write_repo(tmp_path / "repo", "127.0.0.1:1", 12, "s")
    specs = Context(tmp_path / "repo").specs("bench").desired.topics
    files = write_topicctl(tmp_path / "tc", "127.0.0.1:1,127.0.0.1:2", specs.values(),
                           {"min.insync.replicas": "1"})  # fmt: skip
    assert len(files) == 12
    cluster = yaml.safe_load((tmp_path / "tc" / "cluster.yaml").read_text())
    assert cluster["spec"]["bootstrapAddrs"] == ["127.0.0.1:1", "127.0.0.1:2"]
    # as written by a real run (the file topicctl then read without a complaint)
    assert yaml.safe_load((tmp_path / "tc" / "topics" / "s.t00005.yaml").read_text()) == {
        "meta": {"name": "s.t00005", "cluster": "bench", "environment": "bench", "region": "bench"},
        "spec": {
            "partitions": 1,
            "replicationFactor": 1,
            "settings": {"min.insync.replicas": "1", "retention.ms": "172800000"},
            "placement": {"strategy": "any"},
        },
    }
    for name, spec in specs.items():
        topic = yaml.safe_load((tmp_path / "tc" / "topics" / f"{name}.yaml").read_text())["spec"]
        assert topic["partitions"] == spec.partitions
        assert topic["replicationFactor"] == spec.replication_factor
        assert topic["settings"]["retention.ms"] == spec.config_map["retention.ms"]
    assert {n: specs[n].partitions for n in ("s.t00000", "s.t00002", "s.t00010")} == {
        "s.t00000": 1,
        "s.t00002": 2,
        "s.t00010": 1,
    }


def test_a_spec_without_partitions_has_no_topicctl_file(tmp_path: Path) -> None:
    write_repo(tmp_path / "repo", "127.0.0.1:1", 1, "s")
    spec = Context(tmp_path / "repo").specs("bench").desired.topics["s.t00000"]
    with pytest.raises(ValueError, match="partitions"):
        topicctl_topic(type(spec)(name=spec.name, location=spec.location), {})


def _line(client_id: str, api: str, forwarded: bool = False) -> str:
    head = {
        "isForwarded": forwarded,
        "requestHeader": {"requestApiKey": 3, "requestApiVersion": 8, "correlationId": 2,
                          "clientId": client_id, "requestApiKeyName": api},
        "request": {"topics": None}, "response": {"brokers": [{"nodeId": 1}]},
    }  # fmt: skip
    return "Completed request:" + json.dumps(head, separators=(",", ":"))


def test_requests_are_counted_by_client_id_without_forwarded_copies() -> None:
    lines = [
        _line("", "METADATA"),
        _line("", "DESCRIBE_CONFIGS"),
        _line("", "DESCRIBE_CONFIGS"),
        _line("", "CREATE_TOPICS", forwarded=True),
        _line("raft-client-2", "FETCH"),
        _line("bench-peers-1000-0", "METADATA"),
        'a line cut short: Completed request:{"isForwarded":false,"requestHea',
    ]
    assert request_header(lines[0]) == (False, "", "METADATA")
    assert request_header(lines[-1]) is None
    topicctl = count_requests(lines, lambda c: c == "")
    assert topicctl == {"METADATA": 1, "DESCRIBE_CONFIGS": 2}
    assert count_requests(lines, lambda c: c == "bench-peers-1000-0") == {"METADATA": 1}
