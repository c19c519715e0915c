"""A test's own Java program, compiled once per process and class path rather than at each run.

`java File.java` (the source launcher) compiles the file in memory at every start: about 2.3
CPU s, several times the run itself for a short admin call (measured 2026-11-29, load 7:
ClientQuotas.java 2.46 CPU s launched from source, 0.05 s compiled). A test calling its
program several times compiles it once here, against the class path it runs with (each Kafka
release's jars), into a private folder removed at the process's exit.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


def _javac() -> str:
    """The compiler beside the `java` the tests run (the source launcher needs that JDK too)."""
    java = shutil.which("java")
    beside = Path(os.path.realpath(java)).with_name("javac") if java else None
    return str(beside) if beside is not None and beside.exists() else "javac"


@functools.cache
def class_path(source: Path, jars: str) -> str:
    """`jars` with the folder of `source`'s compiled classes first: run `java -cp RESULT Main`."""
    classes = Path(tempfile.mkdtemp(prefix="reconciler-java-"))
    atexit.register(shutil.rmtree, classes, ignore_errors=True)
    subprocess.run(
        [_javac(), "-cp", jars, "-d", str(classes), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{classes}:{jars}"
