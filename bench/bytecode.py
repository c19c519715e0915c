"""Benchmarks time reconciler as it is installed: from its modules' compiled bytecode.

pip compiles every module of a package it installs; a checkout run with
PYTHONDONTWRITEBYTECODE set (as some shells and container images export it) compiles them
all from source again in every process instead, about a quarter of a live plan's CPU at 1,000
topics (docs/benchmarks.md, start-up). `as_installed()` has the commands a bench starts write
and read bytecode under the cache, outside the clone, as `make test` does (Makefile PYCACHE).
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

import reconciler


def as_installed() -> None:
    """For every process started after this: bytecode written once and read after."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    cache = os.environ.get("RECONCILER_CACHE") or Path.home() / ".cache" / "reconciler"
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(cache) / "pycache"))
    # compiled now, as pip does at install, so that no measured run is the one compiling
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    compileall.compile_dir(Path(reconciler.__file__).parent, quiet=1)
