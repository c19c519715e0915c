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
