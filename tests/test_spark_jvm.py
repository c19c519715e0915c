"""The suite's Spark drivers for one job run C1 only; its long-lived session keeps both tiers
(tests/spark_jvm.py)."""

from __future__ import annotations

import os

import pytest

from tests import spark_jvm


def test_one_job_drivers_adds_the_option_once_to_what_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(spark_jvm.VARIABLE, "-Dsomething=1")
    spark_jvm.one_job_drivers()
    spark_jvm.one_job_drivers()
    assert os.environ[spark_jvm.VARIABLE] == f"-Dsomething=1 {spark_jvm.ONE_JOB}"


def test_the_suite_sets_it_for_every_command_a_test_runs() -> None:
    # tests/conftest.py, at import: commands inherit this process's environment
    assert spark_jvm.ONE_JOB in os.environ[spark_jvm.VARIABLE].split()


@pytest.mark.parametrize("other", ["", "-Dsomething=1"])
def test_both_tiers_takes_only_the_option_out_and_puts_it_back(
    monkeypatch: pytest.MonkeyPatch, other: str
) -> None:
    held = f"{other} {spark_jvm.ONE_JOB}".strip()
    monkeypatch.setenv(spark_jvm.VARIABLE, held)
    with spark_jvm.both_tiers():
        assert os.environ.get(spark_jvm.VARIABLE) == (other or None)
    assert os.environ[spark_jvm.VARIABLE] == held
