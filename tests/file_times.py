"""Where `make test`'s time goes: after the run, the test time of each file (setup, call and
teardown, module-scoped clusters included) and of each directory, largest first, with the worker
that ran it. `--durations` names single tests; the suite's length is decided by files and by the
one worker that got the most (tests/worker_groups.py keeps a file on one worker). Beside each
file's wall seconds, its CPU seconds (tests/process_cpu.py: the test process and the JVMs and
commands it started), which a shared machine disturbs far less."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests import run_times
from tests.process_cpu import KEY

_SHOWN = 20


class FileTimes:
    def __init__(self) -> None:
        self.files: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.workers: dict[str, float] = defaultdict(float)
        self.where: dict[str, str] = {}
        self.tests: dict[str, float] = defaultdict(float)  # node id -> seconds (run_times)

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = report.nodeid.split("::", 1)[0]
        node = getattr(report, "node", None)  # the xdist worker that sent it, on the controller
        worker = node.gateway.id if node is not None else "main"
        self.files[path] += report.duration
        self.tests[report.nodeid] += report.duration
        for key, value in report.user_properties:
            if key == KEY and isinstance(value, float):
                self.cpu[path] += value
        self.workers[worker] += report.duration
        self.where[path] = worker

    @pytest.hookimpl
    def pytest_unconfigure(self) -> None:
        # the last test's reports may reach the controller as its worker shuts down, after
        # sessionfinish: the next run's order of units (tests/run_times.py)
        run_times.record(self.tests)

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.files:
            return
        directories: dict[str, float] = defaultdict(float)
        for path, seconds in self.files.items():
            directories[path.rsplit("/", 1)[0]] += seconds
        write = terminalreporter.write_line
        terminalreporter.section("test time by worker, directory and file")
        for worker, seconds in sorted(self.workers.items()):
            write(f"{seconds:8.1f}s  worker {worker}")
        for directory, seconds in sorted(directories.items(), key=lambda kv: -kv[1]):
            write(f"{seconds:8.1f}s  {directory}/")
        ranked = sorted(self.files.items(), key=lambda kv: -kv[1])
        shown = len(ranked) if terminalreporter.config.getoption("durations") == 0 else _SHOWN
        for path, seconds in ranked[:shown]:
            write(f"{seconds:8.1f}s {self.cpu[path]:8.1f} CPU s  {path}  ({self.where[path]})")
