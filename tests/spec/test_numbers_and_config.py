"""Numbers beyond any range, and reconciler.yaml's smaller holes (Findings 8 and 10).

Every case runs the real CLI entry point: exit 1, the diagnostic at its place, never an
internal error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.spec.loader import load_repo
from tests.spec.helpers import run_cli

BIG = "9" * 5000
CONFIG = "clusters:\n  local:\n    bootstrap: 127.0.0.1:9092\n"


def repo(tmp_path: Path, topics: str, config: str = CONFIG) -> Path:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(config)
    (tmp_path / "topics" / "t.yaml").write_text(topics)
    return tmp_path


def validate(root: Path) -> str:
    code, output = run_cli(["--repo", str(root), "validate"], env={"NO_COLOR": "1"})
    assert "internal error" not in output and "Traceback" not in output, output
    assert code == 1, output
    return output


TOO_LARGE = {
    "partitions": f"topics:\n  - name: a.b\n    partitions: {BIG}\n",
    "replication_factor": f"topics:\n  - name: a.b\n    replication_factor: -{BIG}\n",
    "config integer": f"topics:\n  - name: a.b\n    config:\n      retention.ms: {BIG}\n",
    "config in defaults": (
        f"defaults:\n  config:\n    segment.bytes: {BIG}\ntopics:\n  - name: a.b\n"
    ),
    "assignment broker": f"topics:\n  - name: a.b\n    assignments: [[{BIG}]]\n",
    "hexadecimal": "topics:\n  - name: a.b\n    partitions: 0x" + "F" * 5000 + "\n",
    "octal": "topics:\n  - name: a.b\n    partitions: 0o" + "7" * 5000 + "\n",
    "tagged": f"topics:\n  - name: a.b\n    partitions: !!int {BIG}\n",
    "list item": f"topics:\n  - name: a.b\n    config:\n      cleanup.policy: [{BIG}]\n",
}


@pytest.mark.parametrize("case", sorted(TOO_LARGE))
def test_an_integer_beyond_pythons_digit_limit_is_one_clear_error(
    tmp_path: Path, case: str
) -> None:
    """Finding 8: more than 4,300 digits is R016 where it is written, not an internal error,
    and no message claims it is quoted or prints its digits."""
    output = validate(repo(tmp_path, TOO_LARGE[case]))
    assert "error[R016]" in output
    assert "remove the quotes" not in output and "9" * 200 not in output
    assert output.count("error[") == 1, output


@pytest.mark.parametrize(
    "config",
    [
        f"{CONFIG}    policy:\n      max_deletes: {BIG}\n",
        f"{CONFIG}    limits:\n      max_partitions: {BIG}\n",
        f"{CONFIG}    vars:\n      n: {BIG}\n",
    ],
)
def test_a_huge_integer_in_reconciler_yaml_is_one_clear_error(tmp_path: Path, config: str) -> None:
    """Finding 8: the same in reconciler.yaml."""
    output = validate(repo(tmp_path, "topics:\n  - name: a.b\n", config))
    assert "reconciler.yaml:" in output and "error[R016]" in output


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("retention.ms", f'"{BIG}"'),  # quoted: the catalog reads the text
        ("retention.ms", f'"{BIG}ms"'),
        ("segment.bytes", f'"{BIG}GiB"'),
        ("retention.ms", f'"1e{BIG}"'),
        ("retention.ms", '"1e999999999999999999"'),
        ("min.insync.replicas", f'"{BIG}.0"'),
    ],
)
def test_a_huge_quoted_config_value_is_out_of_range(tmp_path: Path, key: str, value: str) -> None:
    """Finding 8: text read as a number by the catalog (units.py) is range-checked too."""
    topics = f"topics:\n  - name: a.b\n    config:\n      {key}: {value}\n"
    output = validate(repo(tmp_path, topics))
    assert "error[R101]" in output and "out of range" in output and BIG not in output


def test_a_huge_quoted_partitions_value_is_a_string_without_the_quotes_hint(
    tmp_path: Path,
) -> None:
    """Finding 10: "remove the quotes" only when removing them would help."""
    output = validate(repo(tmp_path, f'topics:\n  - name: a.b\n    partitions: "{BIG}"\n'))
    assert "error[R701]" in output and "remove the quotes" not in output


def test_throttled_replica_ids_beyond_int32_are_refused(tmp_path: Path) -> None:
    """Finding 8: partition and broker ids in a list config are Java ints."""
    topics = (
        "topics:\n  - name: a.b\n    config:\n"
        f"      leader.replication.throttled.replicas: '0:{BIG}'\n"
    )
    assert "error[R101]" in validate(repo(tmp_path, topics))
    topics = topics.replace(BIG, "2147483648")
    (tmp_path / "x").mkdir()
    assert "error[R101]" in validate(repo(tmp_path / "x", topics))


@pytest.mark.parametrize(
    ("bootstrap", "says"),
    [
        ("notaport", "'notaport' is not host:port"),
        ("kafka:0", "has port 0"),
        ("kafka:65536", "has port 65536"),
        ("::1:9092", "IPv6 address without brackets"),
        ("[nope]:9092", "no valid IPv6 address"),
        ("a:1,", "an entry is empty"),
        ("bad host:1", "no valid host name"),
        ("${RECONCILER_TEST_UNSET_X:-kafka}", "'kafka' is not host:port"),
    ],
)
def test_a_bootstrap_that_is_not_host_port_fails_validate(
    tmp_path: Path, bootstrap: str, says: str
) -> None:
    """Finding 10: bootstrap is a comma list of host:port after expansion (R507)."""
    config = f'clusters:\n  local:\n    bootstrap: "{bootstrap}"\n'
    output = validate(repo(tmp_path, "topics:\n  - name: a.b\n", config))
    assert "reconciler.yaml:3:16: error[R507]" in output and says in output


@pytest.mark.parametrize(
    "bootstrap",
    ["k:9092", "[::1]:9092", "a.example.com:1,b:65535", "10.0.0.1:9092", "SASL_SSL://k:9093"],
)
def test_a_good_bootstrap_passes(tmp_path: Path, bootstrap: str) -> None:
    """Finding 10: the check accepts what Kafka clients accept."""
    config = f'clusters:\n  local:\n    bootstrap: "{bootstrap}"\n'
    assert load_repo(repo(tmp_path, "topics:\n  - name: a.b\n", config), env={}).valid


def test_a_nested_env_reference_is_an_error_not_a_literal(tmp_path: Path) -> None:
    """Finding 10: `${X:-${Y}}` is refused (R505), whether or not X is set."""
    config = 'clusters:\n  local:\n    bootstrap: "${X:-${Y}}"\n'
    root = repo(tmp_path, "topics:\n  - name: a.b\n", config)
    for env in ({}, {"X": "k:9092"}, {"Y": "k:9092"}):
        found = load_repo(root, env=env).diagnostics
        assert [(d.code, d.location and d.location.line) for d in found] == [("R505", 3)]
        assert "nests a reference" in found[0].message


@pytest.mark.parametrize("name", ["prod\\n", "has space", "tab\\there", "-lead", "bell\\a"])
def test_a_cluster_name_with_whitespace_or_control_characters_is_refused(
    tmp_path: Path, name: str
) -> None:
    """Finding 10: a cluster name with a trailing newline (or any blank) is not accepted."""
    config = f'clusters:\n  ok:\n    bootstrap: k:1\n  "{name}":\n    bootstrap: k:2\n'
    output = validate(repo(tmp_path, "topics:\n  - name: a.b\n", config))
    assert "reconciler.yaml:4:3: error[R705]: cluster name" in output


def test_each_schema_constraint_points_at_its_own_line(tmp_path: Path) -> None:
    """Finding 10: two bad cluster names and a repeated list item: three lines, not one."""
    config = (
        "clusters:\n  ok:\n    bootstrap: k:1\n"
        '  "a b":\n    bootstrap: k:2\n'
        '  "c\\n":\n    bootstrap: k:3\n'
    )
    topics = "topics:\n  - name: a.b\n    clusters:\n      - ok\n      - ok\n"
    root = repo(tmp_path, topics, config)
    found = [(d.code, str(d.location)) for d in load_repo(root, env={}).diagnostics]
    assert found == [
        ("R705", "reconciler.yaml:4:3"),
        ("R705", "reconciler.yaml:6:3"),
        ("R705", "topics/t.yaml:5:9"),
    ]


def test_a_broker_id_beyond_int32_is_refused(tmp_path: Path) -> None:
    """Finding 8: broker ids in assignments are Java ints (R307), shown without 300 digits."""
    topics = "topics:\n  - name: a.b\n    assignments: [[2147483648], [1e300]]\n"
    output = validate(repo(tmp_path, topics))
    assert "broker id 2147483648: broker ids are from 0 to 2147483647" in output
    assert "broker id 1.000e+300" in output


@pytest.mark.parametrize("section", ["limits:\n      max_partitions", "policy:\n      max_deletes"])
def test_a_count_beyond_a_java_long_in_reconciler_yaml_is_refused(
    tmp_path: Path, section: str
) -> None:
    """Finding 8: limits and policy counts are range-checked (Java long), at their line."""
    config = f"{CONFIG}    {section}: {2**70}\n"
    output = validate(repo(tmp_path, "topics:\n  - name: a.b\n", config))
    assert "reconciler.yaml:5:" in output and "must be at most 9223372036854775807" in output
