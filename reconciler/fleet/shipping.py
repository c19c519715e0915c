"""The code the executors run, shipped with the job: a worker needs only Python and PySpark.

The executors' Python runs one function of reconciler's (the policy.ignore match, names.py,
when a pattern needs Python's regex dialect). Rather than ask for reconciler on every worker,
the driver ships what that function imports beyond the standard library and PySpark, as it is
installed here:

    reconciler and the pure-Python packages   one zip, SparkContext.addPyFile (zipimport)
    a package with compiled modules (regex)   a zip of its folder, SparkContext.addArchive,
                                              unpacked into the executor's files folder,
                                              which PySpark puts on each worker's sys.path
    a single-file module                      SparkContext.addFile, into that same folder

What that function imports is asked of Python itself: a child interpreter imports names.py
and lists the top-level modules it loaded, and those that belong to the distributions
reconciler requires are shipped. The child is started before the JVM (`Inquiry`) and runs
while it starts; the zips store their files uncompressed, which is quicker to write.

A compiled module loads only on a worker of the same Python version and platform as the
driver; elsewhere install the package on the workers (`pip install regex`).
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from pyspark import SparkContext

DISTRIBUTION = "kafka-topic-reconciler"
WORKER_MODULE = "reconciler.fleet.names"  # what the executors' Python imports


@dataclass(frozen=True, slots=True)
class Shipment:
    """What one run shipped, in a temporary folder removed by `remove`."""

    folder: Path
    zipped: tuple[str, ...]  # top-level modules in the addPyFile zip (reconciler first)
    archives: tuple[str, ...]  # packages with compiled modules, one archive each
    files: tuple[str, ...]  # single-file modules

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class Inquiry:
    """The child interpreter that lists what the executors' function imports, started at
    once; `modules()` waits for its answer."""

    def __init__(self) -> None:
        self._child = subprocess.Popen(
            [sys.executable, "-c", _LIST_MODULES, WORKER_MODULE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def modules(self) -> tuple[str, ...]:
        """Top-level modules beyond reconciler that the executors' function imports and that
        belong to a distribution reconciler requires, sorted."""
        out, err = self._child.communicate(timeout=120)
        if self._child.returncode != 0:
            raise RuntimeError(f"cannot list what {WORKER_MODULE} imports: {err.strip()}")
        owners = importlib.metadata.packages_distributions()
        required = _required(DISTRIBUTION)
        return tuple(
            sorted(
                name
                for name in json.loads(out)
                if name != "reconciler"
                and any(_canonical(d) in required for d in owners.get(name, ()))
            )
        )


def ship(context: SparkContext, needed: tuple[str, ...]) -> Shipment:
    """Build the zip (and archives) of reconciler and the `needed` modules (Inquiry) into a
    temporary folder and add them to `context`."""
    folder = Path(tempfile.mkdtemp(prefix="reconciler-fleet-ship-"))
    zipped: list[str] = []
    archives: list[str] = []
    files: list[str] = []
    bundle = folder / "reconciler.zip"
    try:
        with zipfile.ZipFile(bundle, "w") as out:
            for name in ("reconciler", *needed):
                where = _location(name)
                if where is None:
                    continue
                if where.is_file():
                    context.addFile(str(where))
                    files.append(name)
                elif _compiled(where):
                    archive = folder / f"{name}.zip"
                    with zipfile.ZipFile(archive, "w") as a:
                        _add_tree(a, where, Path())
                    # unpacked as <files folder>/<name>: importable as the package `name`
                    context.addArchive(f"{archive}#{name}")
                    archives.append(name)
                else:
                    _add_tree(out, where, Path(name))
                    zipped.append(name)
        context.addPyFile(str(bundle))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Shipment(folder, tuple(zipped), tuple(archives), tuple(files))


_LIST_MODULES = (
    "import importlib, json, sys; importlib.import_module(sys.argv[1]); "
    "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))"
)


def _required(distribution: str) -> set[str]:
    """The distributions `distribution` requires, transitively, without extras (canonical
    names); empty when it is not installed as a distribution (a source checkout)."""
    seen: set[str] = set()
    pending = [distribution]
    while pending:
        name = pending.pop()
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            if "extra ==" in requirement.replace('"', "").replace("'", ""):
                continue
            other = _canonical(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])
            if other and other not in seen:
                seen.add(other)
                pending.append(other)
    return seen


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _location(name: str) -> Path | None:
    """A top-level module's folder (a package) or file."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin) if spec.origin and spec.has_location else None


def _compiled(folder: Path) -> bool:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return any(p.name.endswith(suffixes) for p in folder.rglob("*"))


def _add_tree(out: zipfile.ZipFile, folder: Path, prefix: Path) -> None:
    """The package's files, without byte-code caches (each worker compiles its own)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            out.write(path, str(prefix / path.relative_to(folder)))
