"""Kafka's classes shared between a version's JVMs (reconciler/local/class_archive.py): the first
node 1 writes the archive when it stops, every later node maps it, and an archive that may be
half written never reaches the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.local import class_archive
from reconciler.local import cluster as local_cluster
from reconciler.local.distribution import Distribution
from reconciler.local.toolchain import find_java


def _mapped(pid: int) -> set[str]:
    """The files the process has mapped into its memory."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return {line.split(maxsplit=5)[5] for line in lines if len(line.split(maxsplit=5)) == 6}


@pytest.mark.kafka
def test_the_first_node_writes_the_archive_and_the_next_maps_it(
    kafka_dist: Distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECONCILER_CACHE", str(tmp_path / "cache"))  # no archive there yet
    java, _ = find_java()
    made = class_archive.archive(java, kafka_dist)
    assert not made.exists()

    first = local_cluster.start(tmp_path / "first", kafka_dist, brokers=1, tie_to_parent=True)
    try:
        cmdline = Path(f"/proc/{first.nodes[0].pid}/cmdline").read_bytes().split(b"\0")
        assert f"-XX:ArchiveClassesAtExit={tmp_path / 'first' / 'n1' / 'classes.jsa'}".encode() in (
            cmdline
        )
    finally:
        report = local_cluster.stop(first)
    assert report.killed == ()
    assert made.is_file() and made.stat().st_size > 1_000_000
    assert not (tmp_path / "first" / "n1" / "classes.jsa").exists()  # moved, not copied

    second = local_cluster.start(tmp_path / "second", kafka_dist, brokers=1, tie_to_parent=True)
    try:
        assert str(made) in _mapped(second.nodes[0].pid or 0)  # the JVM really uses it
        log = (tmp_path / "second" / "n1" / "kafka.log").read_text(errors="replace")
        assert "[cds]" not in log and "shared archive" not in log.lower(), log[-2000:]
    finally:
        local_cluster.stop(second)


def _dumped(node_dir: Path, target: Path) -> None:
    node_dir.mkdir(parents=True)
    (node_dir / class_archive.DUMPED).write_bytes(b"archive")
    (node_dir / class_archive.DUMPED_FOR).write_text(str(target))


def test_a_killed_nodes_file_is_removed_and_never_cached(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "cds" / "kafka.jsa"
    _dumped(tmp_path / "n1", target)
    class_archive.keep(tmp_path / "n1", exited=False)
    assert not target.exists() and list((tmp_path / "n1").iterdir()) == []


def test_an_archive_already_cached_is_kept_and_a_cache_not_writable_is_not_an_error(
    tmp_path: Path,
) -> None:
    target = tmp_path / "cache" / "cds" / "kafka.jsa"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"first")
    _dumped(tmp_path / "n1", target)
    class_archive.keep(tmp_path / "n1", exited=True)
    assert target.read_bytes() == b"first" and list((tmp_path / "n1").iterdir()) == []

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder should be")
    _dumped(tmp_path / "n2", blocked / "cds" / "kafka.jsa")
    class_archive.keep(tmp_path / "n2", exited=True)  # cannot make cds/ there: nothing raised
    assert blocked.is_file() and list((tmp_path / "n2").iterdir()) == []


def _jdk(root: Path, base: bool) -> str:
    """A JDK's layout: bin/java, and lib/server/classes.jsa when `base`."""
    (root / "bin").mkdir(parents=True)
    (root / "lib" / "server").mkdir(parents=True)
    (root / "bin" / "java").write_text("")
    if base:
        (root / "lib" / "server" / "classes.jsa").write_bytes(b"base")
    return str(root / "bin" / "java")


def test_no_archive_is_written_where_the_jvm_would_refuse_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked to write an archive, a JVM without its JDK's base archive, or run with -Xshare:off,
    does not start at all: no node is asked to then."""
    monkeypatch.setenv("RECONCILER_CACHE", str(tmp_path / "cache"))
    kafka_dist = Distribution("4.1.1", tmp_path / "libs", 0, None)  # no jars needed here
    node = tmp_path / "n1"
    node.mkdir()
    without = _jdk(tmp_path / "bare", base=False)
    assert class_archive.options(without, kafka_dist, node, dump=True) == []
    java = _jdk(tmp_path / "jdk", base=True)
    assert class_archive.options(java, kafka_dist, node, dump=True)[0].startswith(
        "-XX:ArchiveClassesAtExit="
    )
    monkeypatch.setenv(local_cluster.JVM_OPTS_ENV, "-Xshare:off")
    command = local_cluster._java(java, kafka_dist, node, "kafka.Kafka", dump=True)
    assert not [o for o in command if o.startswith("-XX:ArchiveClassesAtExit")], command
