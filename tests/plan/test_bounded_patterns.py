"""Every user-supplied regular expression runs under a bound (reconciler/patterns.py).

Two kinds of pattern: SLOW backtracks without end in the bounded engine (`regex`), so the
command must refuse it, naming the pattern, where it was written and the name; ISSUE (the
issue's example) backtracks without end in Python's `re`, which the code used before, and must
now be decided at once. Each command runs as a subprocess with a generous timeout, so a
regression fails on the timeout instead of blocking the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from reconciler import patterns
from reconciler.local.state import LocalCluster
from reconciler.patterns import PatternTooSlow, UserPattern
from tests.kafka_helpers import wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import SpecRepo

# Overlapping alternatives ([a-z] is inside [a-z0-9]) before a character neither matches: the
# kind of pattern people write by hand, and one `regex` cannot short-cut (`re` can).
SLOW = "([a-z]|[a-z0-9])+$"
RUN = "a" * 40  # a legal topic name part; with "_" after it SLOW fails, slowly
GENEROUS = 90  # seconds: far above the bound, far below "hangs"


def test_the_bound_stops_a_catastrophic_search_and_names_it() -> None:
    pattern = UserPattern(f"^{SLOW}", "policy.ignore (reconciler.yaml:6:22)")
    assert pattern.search("payments.orders") is False  # '.' fails at once
    with pytest.raises(PatternTooSlow) as caught:
        pattern.search(RUN + "_")
    message = str(caught.value)
    assert message.startswith("policy.ignore (reconciler.yaml:6:22): the regular expression ")
    assert f"'^{SLOW}'" in message and repr(RUN + "_") in message
    assert f"{patterns.MATCH_SECONDS:g} s of CPU" in message


def test_all_searches_of_one_pattern_share_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many names each just under the per-search bound cannot add up to hours."""
    budget = patterns.MATCH_SECONDS / 2  # below one search's bound (tests/conftest.py's)
    monkeypatch.setattr(patterns, "BUDGET_SECONDS", budget)
    pattern = UserPattern(SLOW, "--include")
    assert pattern.search("fast.name")  # ends in letters: matches at once
    with pytest.raises(PatternTooSlow, match=rf"more than {budget:g} s in all by the time"):
        pattern.search(RUN + "_")
    with pytest.raises(PatternTooSlow):  # spent: refused before searching
        pattern.search("fast.name")


def test_look_arounds_users_write_in_ignore_still_work() -> None:
    pattern = UserPattern(r"^(?!payments\.)(?<![.])\w", "policy.ignore")
    assert pattern.search("connect-offsets")
    assert not pattern.search("payments.orders")


@pytest.mark.kafka
def test_a_catastrophic_name_pattern_is_refused_by_validate_and_plan(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"name_pattern": SLOW})
    name = f"{ns}.{RUN}_"
    repo.topics({"name": name, "partitions": 1, "replication_factor": 1})
    for args in (("validate",), ("plan", "--cluster", "test")):
        result = repo.run(*args, timeout=GENEROUS)
        output = result.stdout + result.stderr
        assert result.code == 1, output
        assert "error[R508]: policy.name_pattern: the regular expression" in output, output
        assert f"matching '{name}'" in output and "topics/main.yaml:2:" in output, output
    assert (
        name
        not in AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
        .list_topics()
        .topics
    )


@pytest.mark.kafka
def test_a_catastrophic_ignore_pattern_is_refused_for_a_declared_and_a_cluster_name(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    on_cluster = f"{ns}.{RUN}_"  # only the cluster has it: plan and drift meet it
    for future in admin.create_topics([NewTopic(on_cluster, 1, 1)]).values():
        future.result()
    wait_for_topic(admin, on_cluster)
    outside = f"^(?!{ns.replace('.', '[.]')})"  # the shared cluster's other tests' topics
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"ignore": [outside, SLOW]})
    repo.topics({"name": f"{ns}.ok", "partitions": 1, "replication_factor": 1})

    for args in (("plan", "--cluster", "test"), ("drift", "--cluster", "test")):
        result = repo.run(*args, timeout=GENEROUS)
        output = result.stdout + result.stderr
        assert result.code == 1, output
        assert "policy.ignore (reconciler.yaml:" in output, output
        assert f"the regular expression '{SLOW}' took more than" in output, output
        assert f"matching '{on_cluster}'" in output, output
    assert f"{ns}.ok" not in admin.list_topics().topics

    repo.topics({"name": f"{ns}.{RUN}-", "partitions": 1, "replication_factor": 1})
    result = repo.run("validate", timeout=GENEROUS)
    assert result.code == 1 and "error[R508]: policy.ignore: " in result.stdout, result.stdout


@pytest.mark.kafka
def test_a_catastrophic_import_include_is_refused_naming_the_option(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    name = f"{ns}.{RUN}_"
    for future in admin.create_topics([NewTopic(name, 1, 1)]).values():
        future.result()
    wait_for_topic(admin, name)
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns)
    for option in ("--include", "--exclude"):
        result = repo.run("import", "--cluster", "test", option, SLOW, timeout=GENEROUS)
        assert result.code == 1, result.stdout + result.stderr
        assert f"{option}: the regular expression '{SLOW}' took more than" in result.stderr
        assert f"matching '{name}'" in result.stderr
    assert not list((tmp_path / "topics").iterdir())  # nothing written


# The issue's pattern: catastrophic for Python's `re` (15 s at 27 characters, doubling with each
# further one), decided at once by the bounded engine, which then gives the right answer.
ISSUE = "^([a-z0-9]+[.-]?)+$"


@pytest.mark.kafka
def test_the_issues_name_pattern_is_decided_at_once_and_refuses_the_create(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"name_pattern": ISSUE})
    name = f"{ns}.{RUN}_"
    repo.topics({"name": name, "partitions": 1, "replication_factor": 1})
    assert repo.run("validate", timeout=GENEROUS).code == 0  # within the bound: no R508
    result = repo.run("plan", "--cluster", "test", timeout=GENEROUS)
    assert result.code == 1, result.stdout + result.stderr
    assert f"error[P115]: {name} does not match this cluster's policy.name_pattern" in result.stdout


@pytest.mark.kafka
def test_the_issues_pattern_in_ignore_and_include_is_decided_at_once(
    tmp_path: Path, kafka1: LocalCluster, ns: str
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka1.bootstrap}, logger=QUIET_LIBRDKAFKA)
    name = f"{ns}.{RUN}_"
    for future in admin.create_topics([NewTopic(name, 1, 1)]).values():
        future.result()
    wait_for_topic(admin, name)
    outside = f"^(?!{ns.replace('.', '[.]')})"
    repo = SpecRepo(tmp_path, kafka1.bootstrap, ns, policy={"ignore": [outside, ISSUE]})
    plan = repo.run("plan", "--cluster", "test", "--format", "json", timeout=GENEROUS)
    assert plan.code == 0, plan.stdout + plan.stderr
    assert plan.json()["unmanaged"] == [name]  # not matched, so not ignored
    imported = repo.run("import", "--cluster", "test", "--include", ISSUE, timeout=GENEROUS)
    assert imported.code == 0, imported.stdout + imported.stderr
    assert "Nothing to import" in imported.stdout


def test_topic_targets_and_the_manage_scope_run_under_the_same_bound() -> None:
    """`--topic` and `policy.manage` are user patterns too: bounded, and named when too slow."""
    from reconciler.planning import ownership, targeting
    from reconciler.spec.model import Policy

    targets = targeting.compiled([SLOW])
    with pytest.raises(PatternTooSlow, match=r"^--topic: the regular expression "):
        targeting.matches(RUN + "_", targets)
    with pytest.raises(PatternTooSlow, match=r"^policy\.manage: the regular expression "):
        ownership.owned(RUN + "_", Policy(manage=(SLOW,)))
    assert ownership.owned("payments.orders", Policy(manage=("^payments\\.",)))
