"""The Kafka broker's jars: fetched once from Maven Central, cached outside the repository.

The pinned default version lives in one place, the pom next to this file; any other release
(`local up --kafka-version V`) is the same pom with its properties overridden on Maven's
command line (versions.py says which). Jars go to
`$RECONCILER_CACHE/kafka/<version>/libs` (default `~/.cache/reconciler`), Maven's own download
cache to `$RECONCILER_CACHE/m2`, so a fresh clone on a warm machine starts Kafka without the
network, and the clone never holds a jar.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reconciler.errors import LocalClusterError
from reconciler.local import versions
from reconciler.local.toolchain import find_mvn
from reconciler.resources import package_file

# The Maven project listing the broker's jars; shipped in the package, read as a resource.
POM = package_file("local", "pom.xml")
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_MAVEN_NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def kafka_version() -> str:
    """The pinned Kafka version, read from the pom so there is a single source of truth."""
    root = ET.fromstring(POM.read_text(encoding="utf-8"))
    node = root.find("m:properties/m:kafka.version", _MAVEN_NS)
    if node is None or not node.text:
        raise LocalClusterError("the packaged local/pom.xml has no <kafka.version> property")
    return node.text.strip()


def cache_dir() -> Path:
    """`$RECONCILER_CACHE`, else `$XDG_CACHE_HOME/reconciler`, else `~/.cache/reconciler`."""
    if explicit := os.environ.get("RECONCILER_CACHE"):
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "reconciler"


@dataclass(frozen=True, slots=True)
class Distribution:
    version: str
    libs: Path  # directory of jars; the JVM classpath is "<libs>/*"
    jars: int
    fetched_seconds: float | None  # None: found in the cache

    @property
    def classpath(self) -> str:
        return str(self.libs / "*")


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise fetches between processes (two test runs, or a demo and a test run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_distribution(
    cache: Path | None = None,
    version: str | None = None,
    fetching: Callable[[str], None] | None = None,
) -> Distribution:
    """Return the cached jars of Kafka `version` (default: the pinned one), fetching them with
    Maven if needed (`fetching(version)` is told first: a first fetch takes 15-20 s)."""
    version = versions.parse(version).text if version else kafka_version()
    root = (cache or cache_dir()) / "kafka" / version
    libs = root / "libs"
    marker = root / "complete"
    with _locked(root.with_suffix(".lock")):
        if marker.exists():
            return Distribution(version, libs, _count_jars(libs), None)
        if fetching is not None:
            fetching(version)
        started = time.monotonic()
        _fetch(version, libs, (cache or cache_dir()) / "m2")
        marker.write_text(version + "\n")
        return Distribution(version, libs, _count_jars(libs), time.monotonic() - started)


def _count_jars(libs: Path) -> int:
    return sum(1 for _ in libs.glob("*.jar"))


def _fetch(version: str, libs: Path, m2: Path) -> None:
    mvn = find_mvn()
    staging = libs.with_name("libs.partial")
    shutil.rmtree(staging, ignore_errors=True)
    # Maven needs a file on disk; the packaged pom may sit inside a zip, so copy it next to libs.
    pom = libs.with_name("pom.xml")
    pom.parent.mkdir(parents=True, exist_ok=True)
    pom.write_text(POM.read_text(encoding="utf-8"), encoding="utf-8")
    release = versions.parse(version)
    cmd = [
        mvn, "-B", "-q", "-f", str(pom), f"-Dmaven.repo.local={m2}",
        f"{DEPENDENCY_PLUGIN}:copy-dependencies",
        "-DincludeScope=runtime", f"-DoutputDirectory={staging}",
        f"-Dkafka.version={version}", f"-Dscala.binary={release.scala}",
    ]  # fmt: skip
    if not release.log4j2:
        cmd.append("-Dlogging=log4j1")
    if release.zookeeper_client:
        cmd.append(f"-Dzookeeper.client={release.zookeeper_client}")
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        artifact = f"org.apache.kafka:kafka_{release.scala}:{version}"
        # Maven's words for a missing artifact, first time and when it remembers the miss
        missing = f"org.apache.kafka:kafka_{release.scala}:jar:{version}"
        if missing in tail and ("Could not find artifact" in tail or "was not found" in tail):
            raise LocalClusterError(
                f"Kafka {version} is not on Maven Central (no {artifact}): give "
                "--kafka-version a released version, as listed at https://repo1.maven.org/"
                f"maven2/org/apache/kafka/kafka_{release.scala}/."
            )
        raise LocalClusterError(
            f"Maven could not fetch Kafka {version} ({artifact}) from Maven Central (exit "
            f"{result.returncode}). Check that the release exists and that Maven Central is "
            f"reachable, then retry.\n{tail}"
        )
    broker_jar = staging / f"kafka_{release.scala}-{version}.jar"
    if not broker_jar.exists():
        raise LocalClusterError(f"Maven finished but {broker_jar.name} is missing in {staging}")
    shutil.rmtree(libs, ignore_errors=True)
    staging.rename(libs)  # atomic: an interrupted fetch never leaves a half-filled libs/
