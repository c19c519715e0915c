"""Finding java and mvn, and saying in one sentence what to install when they are missing."""

from __future__ import annotations

import re
import shutil
import subprocess

from reconciler.errors import EnvironmentProblem

MIN_JAVA = 17  # Kafka 4.x brokers need Java 17


def java_major_version(java: str) -> int:
    """Parse `java -version` (printed on stderr): '17.0.15', '1.8.0_392', '21'."""
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        raise EnvironmentProblem(
            f"could not tell the Java version of {java}: {out.stderr.strip()!r}"
        )
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java() -> tuple[str, int]:
    java = shutil.which("java")
    if java is None:
        raise EnvironmentProblem(
            "java was not found on PATH: install Java 17 or newer "
            "(e.g. `apt-get install openjdk-17-jre-headless`) to run the local Kafka cluster."
        )
    major = java_major_version(java)
    if major < MIN_JAVA:
        raise EnvironmentProblem(
            f"{java} is Java {major}, but Kafka 4.x needs Java {MIN_JAVA} or newer: install "
            "OpenJDK 17+ and put it first on PATH."
        )
    return java, major


def find_mvn() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise EnvironmentProblem(
            "mvn (Apache Maven) was not found on PATH: install Maven 3.8+ "
            "(e.g. `apt-get install maven`) so the Kafka jars can be fetched from Maven Central."
        )
    return mvn
