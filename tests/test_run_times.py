"""The order of `make test`'s units of work (tests/run_times.py, tests/worker_groups.py): the
longest first by the seconds of the runs before, and a run's seconds kept for the next."""

from __future__ import annotations

from pathlib import Path

from tests import run_times

UNITS = {
    "many": ["many::a", "many::b", "many::c"],
    "drill": ["drill::stops_a_broker"],
    "new": ["new::never_run"],
}


def test_the_unit_with_the_most_seconds_goes_first_not_the_one_with_the_most_tests() -> None:
    seconds = {
        "many::a": 1.0,
        "many::b": 2.0,
        "many::c": 3.0,
        "drill::stops_a_broker": 88.0,
    }
    # a test never recorded costs the median of those that were (2.5 s)
    assert run_times.longest_first(UNITS, seconds) == [
        "drill",
        "many",
        "new",
    ]


def test_without_records_the_order_is_the_one_given() -> None:
    assert run_times.longest_first(UNITS, {}) == list(UNITS)


def test_a_run_replaces_its_own_tests_and_keeps_the_others(tmp_path: Path) -> None:
    where = tmp_path / "cache" / "test-seconds.json"
    run_times.record({"a::x": 1.0, "b::y": 2.0}, where)
    run_times.record({"a::x": 5.5}, where)
    assert run_times.recorded(where) == {"a::x": 5.5, "b::y": 2.0}
    assert [p.name for p in where.parent.iterdir()] == [where.name]  # no partial file left


def test_an_unreadable_record_is_no_record(tmp_path: Path) -> None:
    where = tmp_path / "test-seconds.json"
    where.write_text("{not json", encoding="utf-8")
    assert run_times.recorded(where) == {}
    where.write_text("[1, 2]", encoding="utf-8")
    assert run_times.recorded(where) == {}


def test_files_sharing_a_package_fixture_are_one_unit_of_work() -> None:
    """Each group of SHARED_FILES is one unit (its fixture starts once); its files exist, in one
    package (the fixture's scope), and a file outside every group is a unit of its own."""
    from tests.worker_groups import SHARED_FILES, FileScheduling

    def scope(nodeid: str) -> str:
        return FileScheduling._split_scope(None, nodeid)  # type: ignore[arg-type]

    for unit, (_why, files) in SHARED_FILES.items():
        assert len({Path(f).parent for f in files}) == 1, files
        for name in files:
            assert (Path(__file__).parent.parent / name).is_file(), name
            assert scope(f"{name}::test_x[param]") == unit
    assert scope("tests/security/test_tls.py::test_x") == "tests/security/test_tls.py"
