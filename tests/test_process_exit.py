"""How the CLI process ends (reconciler/cli/process_exit.py): once a Kafka client library is
loaded, without the interpreter's teardown, which raced librdkafka's and kafka-python's threads
of abandoned requests (SIGSEGV, or glibc's "corrupted double-linked list" abort, after a
correct refusal was printed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# A client stuck in a request on a thread of its own when the command ends: librdkafka's
# Metadata to a port nothing listens on, retried for five minutes.
STUCK_CLIENT = """
    import threading
    from confluent_kafka.admin import AdminClient
    admin = AdminClient({"bootstrap.servers": "127.0.0.1:9", "log_level": 0})
    threading.Thread(target=lambda: admin.list_topics(timeout=300), daemon=True).start()
"""


def _end(before: str, code: int) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(before) + textwrap.dedent(f"""
        import atexit, sys
        from reconciler.cli import process_exit
        atexit.register(lambda: print("exit functions ran", file=sys.stderr))
        sys.stdout.write("the report, unflushed")
        try:
            process_exit.end({code})
        finally:
            print("teardown ran", file=sys.stderr)
    """)
    # the timeout detects a hang (an exit waiting for the stuck client), it measures nothing
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


def test_with_a_client_stuck_mid_request_the_process_ends_at_once_with_its_code() -> None:
    done = _end(STUCK_CLIENT, 3)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "the report, unflushed"
    assert "exit functions ran" in done.stderr
    assert "teardown ran" not in done.stderr  # os._exit: no unwinding, no interpreter teardown


@pytest.mark.parametrize(
    "before",
    [
        "",  # no Kafka client library loaded (validate, compile, help)
        # a thread that is not a daemon: Python's exit waits for it, as it should
        """
        import threading, time, kafka
        threading.Thread(target=lambda: (time.sleep(1), print("thread ended"))).start()
        """,
    ],
    ids=["no-client-library", "a-thread-to-wait-for"],
)
def test_otherwise_the_exit_is_pythons_own(before: str) -> None:
    done = _end(before, 4)
    assert done.returncode == 4, done.stderr
    assert done.stdout.startswith("the report, unflushed")
    assert "teardown ran" in done.stderr and "exit functions ran" in done.stderr
    if "thread" in before:
        assert "thread ended" in done.stdout


def test_main_called_with_arguments_in_another_process_raises_systemexit() -> None:
    """Tests and embedders call main(args) in a process of theirs, where a Kafka client library
    is loaded: they get SystemExit, never os._exit (which would end their process)."""
    import confluent_kafka  # noqa: F401  (loaded, as in the suite's own processes)

    from reconciler.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
