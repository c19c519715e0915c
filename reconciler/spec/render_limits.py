"""Rendering templates in a child process under hard limits of CPU time, memory and wall clock.

A template is code from a pull request: one that doubles a string in a loop, multiplies huge
numbers or nests loops over large ranges must not take down the machine that validates it.
The sandbox's own checks (templates.py) refuse the common cases early, with the template line;
this module is the backstop for every other way to grow without bound (filters that expand,
C-level operations the sandbox never sees, recursion via macros).

One child is forked per batch of renders (every template of a `load_repo` call, for every
cluster), so a normal load pays one fork, not one per template; it renders while the parent
parses the plain files (`start`, then `results`). In the child:

- RLIMIT_AS caps its address space at what it had when forked plus `MEMORY_LIMIT_BYTES`; an
  allocation beyond it raises MemoryError inside the render: R607, with the template line.
- A profiling timer raises `RenderTimeout` after `CPU_LIMIT_SECONDS` of CPU per render: R606,
  with the line. RLIMIT_CPU (a few seconds later) kills the child if a single C-level operation
  never returns to Python.

The parent waits `WALL_LIMIT_SECONDS` per render (a stopped or starved child); a child that dies
or is killed costs only the render it was working on (R606 or R607, line unknown), and a fresh
child continues with the next one.

Without fork (not Linux or macOS), renders run in-process with only the sandbox's checks.
"""

from __future__ import annotations

import fcntl
import gc
import multiprocessing
import os
import resource
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import FrameType
from typing import Generic, NoReturn, TypeVar

CPU_LIMIT_SECONDS = 5  # per render: a normal template takes milliseconds
MEMORY_LIMIT_BYTES = 512 * 2**20  # per child, above what it inherits
WALL_LIMIT_SECONDS = 60.0  # per render, as seen by the parent: generous on a loaded machine

Job = TypeVar("Job")
Result = TypeVar("Result")


class RenderTimeout(Exception):
    """Raised inside a render that used more than CPU_LIMIT_SECONDS of CPU time."""


class Stopped(Exception):
    """The child rendering a job died or was killed: `timeout` says whether for time."""

    def __init__(self, timeout: bool, detail: str) -> None:
        super().__init__(detail)
        self.timeout = timeout


def start(
    jobs: Sequence[Job],
    work: Callable[[Job], Result],
    stopped: Callable[[Job, Stopped], Result],
) -> Pending[Job, Result]:
    """`work(job)` for each job, in a limited child; `stopped(job, why)` for a job whose child
    died or was killed. The child starts rendering now, on another core, while the caller does
    other work (load_repo parses the plain files meanwhile); `results()` collects them, in the
    order of `jobs`."""
    return Pending(jobs, work, stopped)


class Pending(Generic[Job, Result]):
    """A batch of renders under way in a limited child (see start)."""

    def __init__(
        self,
        jobs: Sequence[Job],
        work: Callable[[Job], Result],
        stopped: Callable[[Job, Stopped], Result],
    ) -> None:
        self._jobs, self._work, self._stopped = jobs, work, stopped
        self._results: list[Result] = []
        self._child: _Child | None = None
        if jobs and hasattr(os, "fork"):
            self._child = _spawn(jobs, 0, work)

    def results(self) -> list[Result]:
        """Every job's result, in order (waiting for the child; fresh children after one
        that stopped)."""
        jobs, results = self._jobs, self._results
        if not hasattr(os, "fork"):
            return [self._work(job) for job in jobs]
        while len(results) < len(jobs):
            child, self._child = self._child or _spawn(jobs, len(results), self._work), None
            try:
                _collect(child, len(jobs), results)
            except Stopped as why:
                results.append(self._stopped(jobs[len(results)], why))
                # and on from the next job, in a fresh child
        return results

    def cancel(self) -> None:
        """Stop a child whose results nobody will collect (the caller failed meanwhile)."""
        if self._child is not None:
            child, self._child = self._child, None
            child.receiver.close()
            os.kill(child.pid, signal.SIGKILL)
            _reap(child.pid)


@dataclass(frozen=True, slots=True)
class _Child:
    pid: int
    receiver: Connection


def _spawn(jobs: Sequence[Job], start: int, work: Callable[[Job], Result]) -> _Child:
    """Fork a child rendering the jobs from `start` on, each result sent as it is done."""
    receiver, sender = multiprocessing.Pipe(duplex=False)
    _widen(sender)
    for stream in (sys.stdout, sys.stderr):  # so the child has no buffered output to repeat
        stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        receiver.close()
        _child(jobs, start, work, sender)
    sender.close()
    return _Child(pid, receiver)


def _widen(sender: Connection) -> None:
    """A larger pipe (Linux), so the child can run ahead while the parent is busy elsewhere:
    with the default 64 KiB it would wait for the parent after a few rendered files."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:
        return
    for size in (_PIPE_BYTES, 2**16):
        try:
            fcntl.fcntl(sender.fileno(), setsize, size)
            return
        except OSError:  # above /proc/sys/fs/pipe-max-size: smaller, or as it is
            continue


_PIPE_BYTES = 2**20  # Linux's default pipe-max-size for unprivileged processes


def _collect(child: _Child, total: int, results: list[Result]) -> None:
    """Append the child's results until `total`; Stopped if it stops before the end."""
    died = False
    try:
        for _ in range(len(results), total):
            if not child.receiver.poll(WALL_LIMIT_SECONDS):
                os.kill(child.pid, signal.SIGKILL)
                raise Stopped(True, f"sent nothing for {WALL_LIMIT_SECONDS:g} s of wall-clock time")
            try:
                results.append(child.receiver.recv())
            except EOFError:
                died = True
                break
    finally:
        child.receiver.close()
        status = _reap(child.pid)
    if died:
        raise _died(status)


def _reap(pid: int) -> int:
    """Wait for the child (killing it if it lingers); its wait status."""
    delay, deadline = 0.0005, time.monotonic() + 5
    while time.monotonic() < deadline:  # it exits right after its last result
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _died(status: int) -> Stopped:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        timeout = number in (signal.SIGXCPU, signal.SIGKILL)
        return Stopped(timeout, f"stopped by {signal.Signals(number).name}")
    code = os.WEXITSTATUS(status)
    return Stopped(code == _EXIT_TIMEOUT, f"exited with status {code}")


_EXIT_TIMEOUT, _EXIT_MEMORY, _EXIT_OTHER = 71, 72, 70


def _child(
    jobs: Sequence[Job], start: int, work: Callable[[Job], Result], sender: Connection
) -> NoReturn:
    """Render and send each result; exit without running any of the parent's exit handlers."""
    _IN_CHILD.append(True)
    # Every object inherited from the parent is frozen first, so the collector the templates
    # need (the parent pauses it while loading: reconciler.gcpause) only ever frees what the
    # renders made. Collected here, a garbage cycle of the parent's holding a Kafka client ran
    # librdkafka's destructor in a child without librdkafka's threads: SIGSEGV, read as R607.
    gc.freeze()
    gc.enable()
    code = 0
    try:
        _limit_memory()
        signal.signal(signal.SIGPROF, _timeout)
        for job in jobs[start:]:
            rearm()
            result = work(job)
            signal.setitimer(signal.ITIMER_PROF, 0)
            sender.send(result)
        sender.close()
    except RenderTimeout:
        code = _EXIT_TIMEOUT
    except MemoryError:
        code = _EXIT_MEMORY
    except BaseException:  # a child must never print a traceback, nor return
        code = _EXIT_OTHER
    os._exit(code)


_IN_CHILD: list[bool] = []  # [True] in a limited child: set once, after fork


def rearm() -> None:
    """Give the work that follows a fresh CPU budget (only in a limited child)."""
    if _IN_CHILD:
        _limit_cpu()
        signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT_SECONDS)


def _timeout(signum: int, frame: FrameType | None) -> None:
    raise RenderTimeout(f"more than {CPU_LIMIT_SECONDS} s of CPU time")


def _limit_memory() -> None:
    try:
        with open("/proc/self/statm") as statm:
            inherited = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return  # no /proc (macOS): RLIMIT_AS is not enforced there anyway
    limit = inherited + MEMORY_LIMIT_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _limit_cpu() -> None:
    """SIGXCPU (which kills) a few seconds after the timer should have fired."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + CPU_LIMIT_SECONDS + 3
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
