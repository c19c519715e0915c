"""What a Kafka version needs from the launcher (reconciler/local/versions.py), and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.errors import LocalClusterError
from reconciler.local import versions
from tests.spec_repo import run_cli

CASES = {
    # version: (scala, metadata, log4j2, zookeeper client)
    "2.3.1": ("2.12", "zookeeper", False, "3.5.7"),
    "2.4.1": ("2.13", "zookeeper", False, None),
    "3.8.1": ("2.13", "zookeeper", False, None),
    "3.9.1": ("2.13", "kraft", False, None),
    "4.0.0": ("2.13", "kraft", True, None),
    "4.4.0": ("2.13", "kraft", True, None),
}


@pytest.mark.parametrize("text", CASES)
def test_what_each_version_needs(text: str) -> None:
    release = versions.parse(text)
    assert (release.scala, release.metadata, release.log4j2, release.zookeeper_client) == (
        CASES[text]
    )


@pytest.mark.parametrize("text", ["4.1", "latest", "4.1.1-rc1", ""])
def test_a_version_that_is_not_a_release_number(text: str) -> None:
    with pytest.raises(LocalClusterError, match="is not a Kafka release number"):
        versions.parse(text)


def test_local_up_with_a_bad_version_is_one_sentence(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "127.0.0.1:9", "local", "--state-dir", str(tmp_path / "s"), "up",
                     "--kafka-version", "4.1")  # fmt: skip
    assert result.code == 1
    assert result.stderr.strip().splitlines() == [
        "error: --kafka-version '4.1' is not a Kafka release number such as 4.1.1 or 2.4.1."
    ]
