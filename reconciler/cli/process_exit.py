"""How the process ends once a command that loaded a Kafka client library is done: Python's exit
functions, then os._exit, without the interpreter's teardown.

A read abandoned mid-flight leaves clients running: the other half of a state read whose first
half already failed (a refused login raises at once, while the reassignments' thread still waits
within its own timeout), a request given up on after its deadline, a client kept alive by the
traceback of the error being reported. librdkafka's clients run C threads of their own,
kafka-python daemon threads. Python's normal exit tears the interpreter down and then runs
libc's exit handlers (OpenSSL's cleanup among them) while those threads still run: a callback
into the torn-down interpreter, or a SCRAM or TLS step on freed OpenSSL state, then kills the
process with SIGSEGV after its last line was printed (a correct refusal, exit 1, became -11 in
about one run of eight on a busy machine).

Knowing every such client is not possible from here (librdkafka's producer and consumer cannot
even be weakly referenced), so the rule is by cause: once confluent-kafka or kafka-python is
loaded, the process ends with os._exit after running what a normal exit runs that matters
(atexit functions: logging's flush, temporary folders' removal) and flushing stdout and stderr.
Every file the tool writes is closed before this (reconciler/atomic_write.py). A thread that is
not a daemon (none is started by reconciler) keeps the normal exit, which waits for it. Only
the process's own command line ends so (cli/main.py `main()` without arguments): `main(args)`,
called in a process of someone else's (the tests), raises SystemExit as usual.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

CLIENT_LIBRARIES = ("confluent_kafka", "kafka")


def end(code: int) -> NoReturn:
    """Exit with `code`, safely while Kafka clients may still run (see the module)."""
    if not any(name in sys.modules for name in CLIENT_LIBRARIES) or _waited_for():
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed or broken: reported already
            stream.flush()
    os._exit(code)


def _waited_for() -> bool:
    """Whether a thread that is not a daemon runs: Python's exit waits for it, as it should."""
    main = threading.main_thread()
    return any(not t.daemon for t in threading.enumerate() if t is not main)
