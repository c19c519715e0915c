"""A class-data-sharing archive (CDS, JEP 350) of each Kafka version's classes, so a local node
starts in about half the CPU.

A node's JVM spends most of its start loading, verifying and linking some thousands of Kafka's
classes. The first node 1 of a version to start without an archive writes one when it exits
(`-XX:ArchiveClassesAtExit`, into its own directory); `stop` then moves it into the cache,
`$RECONCILER_CACHE/cds/`, where every later JVM of that version and Java maps it
(`-XX:SharedArchiveFile`). Measured on 2026-11-29 (Kafka 4.1.1, Java 17, 2 cores, quiet;
bench/bench_class_archive.py): a one-node start 3.1-3.4 CPU s and 3.8-4.2 s without it,
1.85-2.0 CPU s and 2.1-2.3 s with it; a three-node start 10.4-12.4 CPU s against 5.6-6.0.

The JVM checks the archive itself (its Java build, each jar's size and time): one that does not
match is ignored with a warning in the node's log, and the node starts as without it.
`RECONCILER_KAFKA_JVM_OPTS=-Xshare:off` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from pathlib import Path

from reconciler.local.distribution import Distribution, cache_dir

# Written by node 1's JVM at its exit, in its own directory, beside the archive's path in the
# cache (so that `stop` needs neither the Java nor the distribution to move it there)
DUMPED = "classes.jsa"
DUMPED_FOR = "classes.jsa.for"


def archive(java: str, dist: Distribution) -> Path:
    """The archive of this Kafka version run by this Java (its launcher's path, size and time:
    a JDK upgraded in place is another Java)."""
    launcher = Path(java).resolve()
    try:
        seen = launcher.stat()
        stamp = f"{seen.st_size}:{seen.st_mtime_ns}"
    except OSError:
        stamp = "?"
    key = hashlib.sha256(f"{launcher}\0{stamp}\0{dist.classpath}".encode()).hexdigest()[:16]
    return cache_dir() / "cds" / f"kafka-{dist.version}-{key}.jsa"


def options(java: str, dist: Distribution, node_dir: Path, *, dump: bool) -> list[str]:
    """The JVM options: map the archive if there is one; else, with `dump`, write it at exit.
    Only a JVM whose classpath is Kafka's jars alone may dump: a later JVM maps an archive
    only if its classpath starts with the one the archive was written with."""
    made = archive(java, dist)
    if made.is_file():
        return [f"-XX:SharedArchiveFile={made}"]
    if dump and _base_archive(java):
        (node_dir / DUMPED_FOR).write_text(str(made))
        # writing, the JVM logs a warning for each class it leaves out (hundreds, harmless)
        return [f"-XX:ArchiveClassesAtExit={node_dir / DUMPED}", "-Xlog:cds*=off"]
    return []


def _base_archive(java: str) -> bool:
    """Whether this JDK ships its base archive (lib/server/classes*.jsa): a JVM asked to write
    an archive on top of a base it does not have refuses to start at all ("DynamicDumpShared
    Spaces is unsupported when base CDS archive is not loaded"); mapping one only falls back."""
    server = Path(java).resolve().parent.parent / "lib" / "server"
    return any(server.glob("classes*.jsa"))


def keep(node_dir: Path, *, exited: bool) -> None:
    """After the node's JVM ended: the archive it wrote at exit, moved into the cache (copied,
    then renamed: two clusters stopping at once each put a whole file there), if it `exited`
    of itself; a killed JVM's file may be half written, and is only removed. Nothing if it
    wrote none; a cache that cannot be written keeps none (the next node 1 writes one)."""
    dumped, named = node_dir / DUMPED, node_dir / DUMPED_FOR
    try:
        if not exited or not dumped.is_file():
            return
        target = Path(named.read_text().strip())
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
            try:
                shutil.copyfile(dumped, partial)
                os.replace(partial, target)
            finally:
                with contextlib.suppress(OSError):
                    partial.unlink()  # left only when the copy failed
    except OSError:
        pass
    finally:
        for written in (dumped, named):
            with contextlib.suppress(OSError):
                written.unlink()
