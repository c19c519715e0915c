from __future__ import annotations

import gc
import logging
import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.kafka_fixtures import ANNOUNCED, kafka1, kafka3, kafka_dist, ns
from tests.spark_jvm import one_job_drivers

__all__ = ["kafka1", "kafka3", "kafka_dist", "ns"]

# CI gets one try: there the property tests draw the same examples every run (a failure found
# once is found every time, and a landing is never blocked by a draw); elsewhere each run draws
# new ones, so a developer's runs keep exploring. A failing example is printed to add as a case.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
# `make check` (--hypothesis-profile=check): every property runs, on a fifth of the examples
# (20 where the default is 100; a test's own count through tests/property_examples.py), on
# top of the profile loaded above; `make test` draws them all.
settings.register_profile("check", parent=settings.default, max_examples=20)

# The Spark drivers the tests start for one job each run the JIT's quick tier only (C2's
# compiles were a third of such a JVM's CPU): tests/spark_jvm.py
one_job_drivers()

# Fixtures that start a JVM: a test using one (directly or through another fixture) is marked, so
# `make check` can leave out everything that waits for Kafka or Spark (`-m "not kafka and not
# spark and not slow"`) without each module remembering to say so.
_KAFKA = frozenset({"kafka_dist", "kafka1", "kafka3"})

# Tests that start no JVM yet take seconds to minutes each: `slow`, which `make test` runs and
# `make check` leaves out (`--durations` put them at four fifths of the other tests' time: the
# README's development section). By fixture here; a slow module says so itself (`pytestmark =
# pytest.mark.slow`, e.g. tests/spec/test_fuzz.py).
_SLOW_FIXTURES = frozenset({"installed"})  # the wheel, built and installed in a fresh venv


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & _KAFKA:
            item.add_marker(pytest.mark.kafka)
        if "spark" in names:
            item.add_marker(pytest.mark.spark)
        # a `matrix` test (a Spark version or a way to deploy the fleet job, in a JVM of its
        # own: `make compat` runs it) is slow too, so `make check` never runs one
        if names & _SLOW_FIXTURES or item.get_closest_marker("matrix") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything collection imported and built (the package, pyspark, the test items: some
    200,000 objects) out of the collector's sight for the run: a full collection walked them
    all, 0.2 to 0.3 s a time in a worker, and one runs at the end of every test on real
    brokers (`_garbage_collected_here`) and at each close of a cluster with clients
    (reconciler/gcpause.py). What a test makes is still collected (docs/testing.md, "The
    collector and the imported heap")."""
    gc.collect()
    gc.freeze()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The Kafka releases and broker count of the core journey (tests/compat/test_journey.py):
    by default its ends on two brokers (`make test`); `make compat` passes `matrix`."""
    group = parser.getgroup("reconciler")
    group.addoption(
        "--kafka-versions",
        default=os.environ.get("RECONCILER_KAFKA_VERSIONS", ""),
        help="the journey's Kafka releases: 'matrix' (the newest patch of every minor line), "
        "or a comma list such as 2.8.2,3.6.2 [env RECONCILER_KAFKA_VERSIONS; default: "
        "2.4.1,4.4.0]",
    )
    group.addoption(
        "--kafka-brokers",
        type=int,
        default=int(os.environ.get("RECONCILER_KAFKA_BROKERS") or 2),
        help="brokers of each journey cluster, in racks rack-a, rack-b, ... (the replication-"
        "factor change needs 2) [env RECONCILER_KAFKA_BROKERS; default: 2]",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers) sums
        from tests.file_times import FileTimes

        config.pluginmanager.register(FileTimes(), "file_times")
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        from tests.process_cpu import ProcessCpu  # where tests run: a worker, or the one process

        config.pluginmanager.register(ProcessCpu(), "process_cpu")
    if config.pluginmanager.hasplugin("xdist"):  # `make test` runs on workers
        from tests.worker_groups import WorkerGroups

        config.pluginmanager.register(WorkerGroups(ANNOUNCED), "worker_groups")


@pytest.fixture(autouse=True)
def _logging_as_found() -> Iterator[None]:
    """The root logger's level and handlers as they were before the test: a CLI run in-process
    with --debug (tests/spec/helpers.py `run_cli`) installs a DEBUG handler on stderr
    (redaction.install_logging), which stayed for the rest of the worker: every later library
    log record in it was formatted, and at the session's end a client left open printed its
    reconnect tracebacks into `make test`'s output."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    root.setLevel(level)
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)


@pytest.fixture(autouse=True)
def _short_sample(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """On real brokers, a plan that deletes watches the deleted topics' log end offsets for 200
    ms rather than 5 s (RECONCILER_SAMPLE_MS, reaching the CLI's child processes too): hundreds
    of plans, applies and drifts delete in these tests, and each waited the whole window out.
    The tests of the window itself (tests/apply/test_in_use_kafka.py `default_sample`) unset it."""
    if request.node.get_closest_marker("kafka") is not None:
        monkeypatch.setenv("RECONCILER_SAMPLE_MS", "200")


@pytest.fixture(autouse=True)
def _quick_template_limit(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked `spins` (a template that renders forever: R606) is stopped after 1 s of
    CPU rather than the product's 5 (render_limits.CPU_LIMIT_SECONDS; the child inherits it at
    fork), so it does not burn the whole limit. Every other test keeps the product's 5 s: a
    test of the memory limit must not race the CPU limit. A template that doubles a string
    until MemoryError (R607, the corpus's r607_template_memory) copies twice the memory limit's
    bytes first: 0.36 CPU s on a quiet machine, over 1 s at load average 17 (2026-11-30, beside
    seven brokers), where a 1 s limit made it R606. CLI runs in a child process keep the
    product's limits.

    The memory limit shrinks (512 MiB to 192): those copies are then fewer."""
    from reconciler.spec import render_limits

    if request.node.get_closest_marker("spins") is not None:
        monkeypatch.setattr(render_limits, "CPU_LIMIT_SECONDS", 1)
    monkeypatch.setattr(render_limits, "MEMORY_LIMIT_BYTES", 192 * 2**20)


@pytest.fixture(autouse=True)
def _quick_pattern_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user regular expression that backtracks without end is stopped after 0.2 s of CPU
    rather than the product's 1 (patterns.MATCH_SECONDS, `regex`'s timeout, which counts the
    process's CPU time, so a loaded machine does not trip it): the tests of R508 waited the
    whole second out, and a real name matches in microseconds."""
    from reconciler import patterns

    monkeypatch.setattr(patterns, "MATCH_SECONDS", 0.2)


@pytest.fixture(autouse=True)
def _garbage_collected_here(request: pytest.FixtureRequest) -> Iterator[None]:
    """In a test on real brokers, Python's cyclic garbage collector runs only on the test's own
    thread, at its end. Left to itself it runs on whichever thread allocates, librdkafka's
    too (its threads make admin answers into Python values), and a librdkafka client in a
    reference cycle (a failed call's exception frames hold it) freed there makes librdkafka
    abort the whole process: rd_kafka_destroy() from its own thread."""
    if request.node.get_closest_marker("kafka") is None:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


@pytest.fixture(autouse=True)
def _unwrapped_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's text as one message a line (COLUMNS far beyond any message), so tests that
    read it for its content do not depend on where it wraps; the tests of wrapping set
    COLUMNS themselves (tests/planning/test_text_width.py, tests/plan/test_text_output_real.py)."""
    monkeypatch.setenv("COLUMNS", "100000")
