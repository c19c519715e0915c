"""SIGINT and SIGTERM at every point of an apply, through the CLI's own handler, in-process on
the in-memory fake: every point a signal can land at (reconciler/stopping.py's test hook) with
both signals, each apply ending with the exit code of its signal, exactly the changes before the
point made, no lock left, the audit record finished with what was done, and a re-run
converging. Where the signal lands is apply's logic; the real-broker side (a real signal in a
real process while Kafka answers, every kind of standard output) is test_signals.py and
test_signals_fuzz.py on the three-broker cluster.

On the fake a request is answered at once, so an `in-flight-N` point signals right before the
level's request is sent rather than while it waits for the answer: the request still goes, as
it would have been in flight (the stop is honoured only before the next request)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler import stopping
from reconciler.apply.record import journal
from reconciler.cluster.protocol.reserved import LOCK_TOPIC
from tests.apply.test_signals import spec
from tests.fakes.cluster import FakeKafka, connect_commands_to
from tests.spec.helpers import run_cli
from tests.spec_repo import SpecRepo

LEVEL_1 = {"a000", "a001", "a002"}
# What is made when the signal lands at each point (levels: a000-a002, then b, then c)
MADE = {
    "locked": set(),
    "level-1": LEVEL_1,  # the level's request is sent; the stop is seen before the next
    "in-flight-1": LEVEL_1,
    "after-level-1": LEVEL_1,
    "level-2": LEVEL_1 | {"b"},
    "in-flight-2": LEVEL_1 | {"b"},
    "after-level-2": LEVEL_1 | {"b"},
    "in-flight-3": LEVEL_1 | {"b", "c"},
    "finishing": LEVEL_1 | {"b", "c"},
}


@pytest.fixture
def kafka(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKafka]:
    """The fake every command reaches; the CLI's signal handlers and an asked stop are undone
    after the test (main installs the handlers in this process)."""
    fake = FakeKafka()
    connect_commands_to(fake, monkeypatch.setattr)
    real = stopping.test_point

    def at_once(name: str) -> None:  # the in-flight points' thread waits for a real request
        if name.startswith("in-flight-") and name in os.environ.get(
            "RECONCILER_TEST_SIGNAL_AT", ""
        ).split(","):
            sig = "SIGTERM" if os.environ.get("RECONCILER_TEST_SIGNAL") == "TERM" else "SIGINT"
            os.kill(os.getpid(), signal.Signals[sig])
            return
        real(name)

    monkeypatch.setattr(stopping, "test_point", at_once)
    handlers = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield fake
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        stopping.reset()


def _run(repo: SpecRepo, *args: str, **env: str) -> tuple[int, str]:
    env = {"KAFKA_BOOTSTRAP": repo.bootstrap, "NO_COLOR": "1", **env}
    code, output = run_cli(["--repo", str(repo.root), *args], env=env)
    assert "Traceback" not in output and "internal error" not in output, output
    return code, output


@pytest.mark.parametrize("sig", ["INT", "TERM"])
@pytest.mark.parametrize("point", list(MADE))
def test_a_signal_at_any_point_stops_cleanly_and_a_rerun_converges(
    kafka: FakeKafka, tmp_path: Path, capfd: pytest.CaptureFixture[str], point: str, sig: str
) -> None:
    repo = SpecRepo(tmp_path, "fake-kafka:9092", "s")
    repo.topics(*spec("s"))
    record = tmp_path / "audit.json"
    code, said = _run(
        repo, "apply", "--cluster", "test", "--auto-approve", "--audit-json", str(record),
        RECONCILER_TEST_SIGNAL_AT=point, RECONCILER_TEST_SIGNAL=sig,
    )  # fmt: skip
    assert code == 128 + (2 if sig == "INT" else 15), said
    # the handler writes its line to stderr's descriptor at once (output.raw)
    assert f"SIG{sig}: stopping after the request in flight" in capfd.readouterr().err
    assert LOCK_TOPIC not in kafka.topics  # released
    made = {t.rsplit(".", 1)[1] for t in kafka.topics if t.startswith("s.")}
    assert made == MADE[point], said
    if point == "locked":  # stopped before the audit record started: nothing was changed
        assert f"stopped by SIG{sig} before the first change: nothing was changed" in said
        assert not record.exists()
    else:  # the record is on the cluster, finished, and in the file, saying what was done
        entry = journal.applies(kafka.client().read_audit())[
            json.loads(record.read_text())["apply_id"]
        ]
        assert entry["end"] == "finished"
        results = {c["topic"].rsplit(".", 1)[1]: c["result"] for c in entry["changes"]}
        assert {t for t, r in results.items() if r == "applied"} == made
        assert {t for t, r in results.items() if r == "skipped"} == set(results) - made
        assert entry["record"]["outcome"] == ("interrupted" if made != LEVEL_1 | {"b", "c"}
                                              else "succeeded")  # fmt: skip
        skipped = 5 - len(made)
        rerun = "; re-run apply to finish" if skipped else ""  # all made: nothing to finish
        assert (
            f"Apply stopped by SIG{sig}: {len(made)} applied, 0 already done, 0 failed, "
            f"{skipped} skipped{rerun}."
        ) in said.splitlines(), said[-1500:]
        assert (f"not run: the apply was stopped by SIG{sig}" in said) == bool(skipped)
    stopping.reset()  # the next command is another process's
    again, said = _run(repo, "apply", "--cluster", "test", "--auto-approve")
    assert again == 0, said
    assert "closed the audit record of an earlier apply" not in said  # ours was written
    assert _run(repo, "plan", "--cluster", "test", "--detailed-exitcode")[0] == 0
