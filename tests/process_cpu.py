"""CPU seconds of each test phase, the test process's and its child processes' (the brokers and
other JVMs it started, the CLI runs it spawned), for tests/file_times.py's table per file.

Read from /proc at the end of each phase: this process and every live descendant, each with what
its reaped children used (utime + stime + cutime + cstime), so a JVM that started and stopped
inside the test counts too, and so do the CLI runs that tests/cli_fork.py's server forks and
reaps. The machine is shared with other runs: CPU seconds compare runs where wall seconds mostly
measure the neighbours. Linux only; elsewhere nothing is recorded.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

KEY = "cpu_s"  # the name of the figure in each report's user_properties
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_last = pytest.StashKey[float]()


def _stat(pid: str) -> tuple[int, int] | None:
    """(ppid, utime + stime + cutime + cstime) in ticks, or None for a process gone."""
    try:
        text = (Path("/proc") / pid / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), sum(int(f) for f in fields[11:15])


def _children(pid: int) -> list[int] | None:
    """The children of `pid` (every thread's), or None where the kernel does not list them
    (/proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN)."""
    kids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        for tid in tasks:
            kids += map(int, Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
    except FileNotFoundError:
        return None if pid == os.getpid() else kids
    except OSError:
        return kids  # gone meanwhile
    return kids


def cpu_seconds() -> float:
    """This process's CPU with its descendants', live or reaped. Read down the tree from this
    process (a few files for a test that started nothing): scanning all of /proc took ~6 ms
    of CPU per call on the shared machine, four calls a test, a quarter of `make check`'s CPU."""
    me = os.getpid()
    own = _stat(str(me))
    todo = _children(me)
    if own is None or todo is None:
        return _scanned()
    total, seen = own[1], {me}
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        found = _stat(str(pid))
        if found is not None:
            total += found[1]
            todo += _children(pid) or []
    return total / _TICK


def _scanned() -> float:
    """cpu_seconds from a scan of every process (a kernel without the children lists)."""
    me = os.getpid()
    parents: dict[int, int] = {}
    used: dict[int, int] = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        found = _stat(pid)
        if found is None:
            continue
        parents[int(pid)], used[int(pid)] = found
    ours = {me}
    grew = True
    while grew:  # descendants: the children of what is ours, until nothing is added
        more = {pid for pid, parent in parents.items() if parent in ours} - ours
        grew = bool(more)
        ours |= more
    return sum(used.get(pid, 0) for pid in ours) / _TICK


class ProcessCpu:
    """Registered on each process that runs tests (a worker, or the one process)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        item.stash[_last] = cpu_seconds()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        now = cpu_seconds()
        report.user_properties.append((KEY, now - item.stash.get(_last, now)))
        item.stash[_last] = now
        return report
