"""How `make test` splits the suite over pytest-xdist workers (`-n N --dist loadfile`).

Each test file runs whole on one worker, so its module-scoped clusters start once and its tests
keep their order. The files of a directory whose conftest.py starts a costly session fixture
run on one worker too, so that fixture starts once per run, and so do the files of a group
that share a package-scoped one (SHARED_FILES). kafka1/kafka3 are per worker: each
worker starts its own pair (seconds), and the Kafka tests, most of the suite's time, spread
over the workers. (xdist's own `--dist loadgroup` marks do not reach its scheduler under
pytest 9.2, whose node ids xdist can no longer rewrite.)
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling

from tests import run_times

# directory -> the session fixture its conftest.py starts
SHARED_DIRECTORIES = {
    "tests/fleet/": "spark: a SparkSession",
    "tests/adopt/": "installed: the wheel, built and installed in a fresh virtualenv",
}


# unit of work -> why, and the files that share a package-scoped fixture: run one after the
# other on one worker, the fixture starts once for them all (and stops when the worker leaves
# their package, not idle through the rest of the run as a session fixture would)
SHARED_FILES = {
    "tests/security/ (sasl)": (
        "sasl: one `local up --security sasl_scram` cluster (tests/security/conftest.py)",
        (
            "tests/security/test_access_acls.py",
            "tests/security/test_sasl_acls.py",
            "tests/security/test_scram_users.py",
        ),
    ),
}


# file -> why each of its parameters is a unit of work of its own
SPLIT_BY_PARAMETER = {
    "tests/compat/test_journey.py": "each Kafka version starts a cluster of its own",
}


class FileScheduling(LoadFileScheduling):
    """xdist's loadfile, with each directory of SHARED_DIRECTORIES and each group of
    SHARED_FILES one unit of work, and each
    parameter of a file of SPLIT_BY_PARAMETER one (`make compat`: two versions at a time),
    handed out the longest first."""

    _ordered = False

    def _assign_work_unit(self, node: Any) -> None:
        """The first time: the queue the longest units first, by the seconds recorded in the
        runs before (tests/run_times.py), rather than by their number of tests."""
        if not self._ordered:
            self._ordered = True
            order = run_times.longest_first(self.workqueue, run_times.recorded())
            for name in order:
                self.workqueue.move_to_end(name)
        super()._assign_work_unit(node)

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        for directory in SHARED_DIRECTORIES:
            if path.startswith(directory):
                return directory
        for unit, (_why, files) in SHARED_FILES.items():
            if path in files:
                return unit
        if path in SPLIT_BY_PARAMETER and nodeid.endswith("]") and "[" in nodeid:
            return f"{path}[{nodeid.rsplit('[', 1)[1]}"
        return path


class WorkerGroups:
    """Registered by tests/conftest.py when pytest-xdist is loaded."""

    def __init__(self, announced: str) -> None:
        self.announced = announced

    @pytest.hookimpl
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "loadfile":
            return None
        return FileScheduling(config, log)

    @pytest.hookimpl
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker finished: print the clusters it started and stopped, with their times."""
        reporter = node.config.pluginmanager.getplugin("terminalreporter")
        lines = getattr(node, "workeroutput", {}).get(self.announced, [])
        if reporter is not None:
            for line in lines:
                reporter.write_line(line.replace("[kafka]", f"[kafka {node.gateway.id}]"))
