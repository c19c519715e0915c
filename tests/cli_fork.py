"""The tests' CLI runs, forked from a process that has already imported the package.

A `python -m reconciler ...` costs ~0.6 CPU-s of interpreter start and imports (confluent_kafka,
jsonschema, jinja2, the package) before it does anything, and the suite runs about a thousand of
them: on this 2-core machine that was a tenth of `make test`. `run` gives the same thing as
`subprocess.run([python, -m, reconciler, ...], capture_output=True, text=True)`: its own process,
argv, environment, working directory, stdin and pipes, exit code, atexit and non-daemon threads
waited for; only the imports are done once, in a server (one per test process) that forks a child
per run.

Forking is safe because the server never creates a Kafka client or a thread: librdkafka's threads
belong to clients, and the children start with none. What a child cannot get from the fork (the
interpreter's startup reading PYTHON* variables, the locale and stdio encodings) falls back to a
real subprocess: see `_needs_a_fresh_interpreter`. RECONCILER_TEST_FORK=0 turns the server off.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Read at interpreter start, so a child of the server would not see a change of them
_STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG")


def _needs_a_fresh_interpreter(env: Mapping[str, str]) -> bool:
    def startup(variables: Mapping[str, str]) -> dict[str, str]:
        return {k: v for k, v in variables.items() if k.startswith(_STARTUP_VARIABLES)}

    # the server starts with this process's environment, or has started with it
    return startup(env) != startup(_Server.started_with or os.environ)


class _Server:
    """The fork server of this test process, started on first use, stopped at exit."""

    started_with: Mapping[str, str] = {}
    _proc: subprocess.Popen[bytes] | None = None
    _path = ""
    _registered = False

    @classmethod
    def address(cls) -> str:
        if cls._proc is None or cls._proc.poll() is not None:
            folder = tempfile.mkdtemp(prefix="reconciler-cli-fork-")
            cls._path = os.path.join(folder, "socket")
            cls.started_with = dict(os.environ)
            cls._proc = subprocess.Popen(
                [sys.executable, __file__, cls._path], stdin=subprocess.PIPE, env=cls.started_with
            )
            assert cls._proc.stdin is not None
            ready = time.monotonic() + 120
            while not os.path.exists(cls._path):  # the server binds once its imports are done
                if cls._proc.poll() is not None or time.monotonic() > ready:
                    raise RuntimeError(
                        f"the CLI fork server did not start ({cls._proc.returncode})"
                    )
                time.sleep(0.02)
            if not cls._registered:
                atexit.register(cls.stop)
                cls._registered = True
        return cls._path

    @classmethod
    def stop(cls) -> None:
        proc, cls._proc = cls._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if cls._path:
            Path(cls._path).unlink(missing_ok=True)
            Path(cls._path).parent.rmdir()
            cls._path = ""


def run(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    input: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m reconciler ARGS` with captured text output, as subprocess.run gives it."""
    environment = dict(os.environ if env is None else env)
    command = [sys.executable, "-m", "reconciler", *args]
    if os.environ.get("RECONCILER_TEST_FORK") == "0" or _needs_a_fresh_interpreter(environment):
        return subprocess.run(
            command, env=environment, cwd=cwd, input=input, timeout=timeout,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    address = _Server.address()
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    request = json.dumps(
        {"argv": list(args), "env": environment, "cwd": os.fspath(cwd or os.getcwd())}
    ).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = 0
    try:
        conn.connect(address)
        header = struct.pack("!I", len(request))
        socket.send_fds(conn, [header + request], [stdin_r, stdout_w, stderr_w])
        for fd in (stdin_r, stdout_w, stderr_w):
            os.close(fd)
        pid = struct.unpack("!i", _read_exactly(conn, 4))[0]
        owned, stdin_w, stdout_r, stderr_r = (stdin_w, stdout_r, stderr_r), -1, -1, -1
        out, err = _communicate(*owned, (input or "").encode(), timeout)  # it closes them
        status = struct.unpack("!i", _read_exactly(conn, 4))[0]
        pid = 0
    except subprocess.TimeoutExpired:
        raise subprocess.TimeoutExpired(command, timeout or 0) from None
    finally:
        if pid:  # interrupted or timed out: the child goes, as subprocess.run's would
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for fd in (stdin_w, stdout_r, stderr_r):
            if fd >= 0:
                os.close(fd)
        conn.close()
    code = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess(
        command, code, out.decode(errors="replace"), err.decode(errors="replace")
    )


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise RuntimeError("the CLI fork server went away")
        data += chunk
    return data


def _communicate(
    stdin_w: int, stdout_r: int, stderr_r: int, data: bytes, timeout: float | None
) -> tuple[bytes, bytes]:
    """Feed stdin and read both pipes until the child closes them, like Popen.communicate."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {stdout_r: [], stderr_r: []}
    with selectors.DefaultSelector() as selector:
        selector.register(stdout_r, selectors.EVENT_READ)
        selector.register(stderr_r, selectors.EVENT_READ)
        if data:
            selector.register(stdin_w, selectors.EVENT_WRITE)
        else:
            os.close(stdin_w)
        open_fds = {stdout_r, stderr_r} | ({stdin_w} if data else set())
        try:
            while open_fds:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired("reconciler", timeout or 0)
                for key, _ in selector.select(left):
                    fd = int(key.fd)
                    if fd == stdin_w:
                        try:
                            data = data[os.write(fd, data[:65536]) :]
                        except BrokenPipeError:
                            data = b""
                        if not data:
                            selector.unregister(fd)
                            os.close(fd)
                            open_fds.discard(fd)
                        continue
                    chunk = os.read(fd, 65536)
                    if chunk:
                        chunks[fd].append(chunk)
                    else:
                        selector.unregister(fd)
                        os.close(fd)
                        open_fds.discard(fd)
        except BaseException:
            for fd in open_fds:
                os.close(fd)
            raise
    return b"".join(chunks[stdout_r]), b"".join(chunks[stderr_r])


# --- the server -------------------------------------------------------------------------------


def _preload() -> None:
    """Import what the commands import, so that each child starts with it done."""
    import importlib
    import pkgutil

    import reconciler

    for module in pkgutil.walk_packages(reconciler.__path__, "reconciler."):
        # the fleet job imports pyspark (a second and a JVM's worth of modules most runs do not
        # use); __main__ would run the CLI
        if module.name.startswith(("reconciler.fleet", "reconciler.__main__")):
            continue
        importlib.import_module(module.name)


def _child(argv: list[str], env: dict[str, str], cwd: str) -> int:
    """In the forked child: become `python -m reconciler ARGV` and return its exit code."""
    import runpy
    import threading
    import traceback

    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.path[0] = cwd  # as `python -m` puts the working directory first
    sys.argv = ["-m", *argv]
    code: int = 0
    try:
        runpy.run_module("reconciler", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        traceback.print_exc()
        code = 128 + signal.SIGINT
    except BaseException:
        traceback.print_exc()
        code = 1
    # what the interpreter does on its way out: wait for non-daemon threads, run atexit, flush
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    return code


def _serve(path: str) -> None:
    import threading

    _preload()
    if threading.active_count() != 1:  # a fork copies no thread but keeps the locks they held
        raise SystemExit(f"an import started a thread: {threading.enumerate()}")
    # The imported package out of the collector's sight (docs/testing.md, "The collector and the
    # imported heap"): a child's collections (the adapter's at each close) walk its own objects
    # only, and leave the server's pages shared rather than writing to each object's header.
    gc.collect()
    gc.freeze()
    waker_r, waker_w = socket.socketpair()
    waker_r.setblocking(False)
    waker_w.setblocking(False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(waker_w.fileno())
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)  # the client waits for this name: bound and listening
    running: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(waker_r, selectors.EVENT_READ)
    selector.register(sys.stdin, selectors.EVENT_READ)  # a pipe from the test process
    while True:
        for key, _ in selector.select(1.0):
            if key.fileobj is sys.stdin:
                if not os.read(0, 4096):
                    return  # the test process is gone
            elif key.fileobj is waker_r:
                with contextlib.suppress(BlockingIOError):
                    waker_r.recv(4096)
            elif key.fileobj is listener:
                conn, _ = listener.accept()
                _start(conn, listener, waker_r, waker_w, running)
        while running:  # every child that ended: its status to its client
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ended = running.pop(pid, None)
            if ended is not None:
                with contextlib.suppress(OSError):
                    ended.sendall(struct.pack("!i", status))
                ended.close()


def _start(
    conn: socket.socket,
    listener: socket.socket,
    waker_r: socket.socket,
    waker_w: socket.socket,
    running: dict[int, socket.socket],
) -> None:
    conn.setblocking(True)
    fds: list[int] = []
    try:  # a client gone before its request was whole takes no child and leaves the server up
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        if len(message) < 4 or len(fds) != 3:
            raise RuntimeError("an incomplete request")
        size = struct.unpack("!I", message[:4])[0]
        body = message[4:]
        request: dict[str, Any] = json.loads(body + _read_exactly(conn, size - len(body)))
    except (OSError, RuntimeError, ValueError):
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for sock in (conn, listener, waker_r, waker_w):
                sock.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            code = _child(request["argv"], request["env"], request["cwd"])
        except BaseException:  # the child's own set-up failed: said on its stderr
            import traceback

            traceback.print_exc()
            code = 70
        os._exit(code)
    for fd in fds:
        os.close(fd)
    running[pid] = conn
    with contextlib.suppress(OSError):  # a client gone meanwhile: the child is reaped all the same
        conn.sendall(struct.pack("!i", pid))


if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # the checkout, as pytest's rootdir
    _serve(sys.argv[1])
