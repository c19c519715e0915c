"""`make compat`'s matrix holds one release of every minor line, from the oldest supported to
the newest, and the journey's options choose what it runs on."""

from __future__ import annotations

import pytest

from tests.compat.conftest import ENDS, MATRIX, NEWEST, OLDEST, journey_versions

# Kafka's minor lines: 2.4-2.8 (there was no 2.9: 2.8 was followed by 3.0), 3.0-3.9 (the last
# 3.x), then 4.0 up to the newest
LINES = (
    [(2, m) for m in range(4, 9)]
    + [(3, m) for m in range(10)]
    + [(4, m) for m in range(int(NEWEST.split(".")[1]) + 1)]
)


def _line(version: str) -> tuple[int, int]:
    major, minor, _ = version.split(".")
    return int(major), int(minor)


def test_the_matrix_has_one_release_of_every_line_in_order() -> None:
    assert [_line(v) for v in MATRIX] == LINES
    assert MATRIX[0] == OLDEST and MATRIX[-1] == NEWEST


class _Config:
    def __init__(self, versions: str) -> None:
        self.versions = versions

    def getoption(self, name: str) -> str:
        assert name == "kafka_versions"
        return self.versions


@pytest.mark.parametrize(
    ("option", "chosen"),
    [("", ENDS), ("matrix", MATRIX), ("2.8.2, 3.6.2", ("2.8.2", "3.6.2"))],
)
def test_kafka_versions_chooses_the_journeys_releases(option: str, chosen: tuple[str, ...]) -> None:
    assert journey_versions(_Config(option)) == chosen  # type: ignore[arg-type]


def test_each_version_of_the_journey_is_a_unit_of_work_of_its_own() -> None:
    """`make compat` runs two versions at a time: pytest-xdist gets each version's tests as
    one unit (its cluster starts once), not the whole file."""
    from tests.worker_groups import FileScheduling

    def scope(nodeid: str) -> str:
        return FileScheduling._split_scope(None, nodeid)  # type: ignore[arg-type]

    journey = "tests/compat/test_journey.py"
    assert scope(f"{journey}::test_import_round_trip[2.8.2]") == f"{journey}[2.8.2]"
    assert scope(f"{journey}::test_drift_of_an_out_of_band_change[2.8.2]") == f"{journey}[2.8.2]"
    assert scope(f"{journey}::test_import_round_trip[3.6.2]") == f"{journey}[3.6.2]"
    other = "tests/compat/test_too_old.py"
    assert scope(f"{other}::test_plan[x]") == other
