"""Templates are bounded in time, memory and output size (Finding 6).

Each test is one member of a class of unbounded templates; every one must end in its own R6xx
code naming the file, never in a hang, an out-of-memory kill or an internal error. The CPU
limit is lowered to 2 s here so the tests stay quick; the mechanism is the same. The memory
cases use well under a second of CPU before they hit the memory limit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reconciler.spec import render_limits, templates
from reconciler.spec.loader import load_repo
from tests.spec.helpers import run_cli

CONFIG = "clusters:\n  a: {bootstrap: 'h:1', vars: {n: 3}}\n  b: {bootstrap: 'h:1'}\n"
GOOD = "topics:\n  - name: ok.{{ cluster }}\n    partitions: 1\n"


def repo_with(tmp_path: Path, body: str) -> Path:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(CONFIG)
    (tmp_path / "topics" / "bad.yaml.j2").write_text(body)
    (tmp_path / "topics" / "good.yaml.j2").write_text(GOOD)
    return tmp_path


def codes(root: Path) -> list[tuple[str, str]]:
    result = load_repo(root)
    # The good template, rendered after (or next to) the bad one, is unaffected.
    assert {"ok.a", "ok.b"} <= result.topic_names
    return [(d.code, d.location.file if d.location else "") for d in result.diagnostics]


UNBOUNDED = {
    # memory: values that double, filters that expand, repetition
    "string doubling": (
        "{% set ns = namespace(s='x') %}topics: []\n"
        "{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}\n",
        "R607",
    ),
    "list doubling": (
        "{% set ns = namespace(l=[1]) %}topics: []\n"
        "{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}\n",
        "R607",
    ),
    "number squaring": (
        "{% set ns = namespace(n=3) %}topics: []\n"
        "{% for i in range(64) %}{% set ns.n = ns.n * ns.n %}{% endfor %}\n",
        "R607",
    ),
    "number adding": (
        "{% set ns = namespace(n=3) %}topics: []\n"
        "{% for i in range(99999) %}{% set ns.n = ns.n + ns.n %}{% endfor %}\n",
        "R607",
    ),
    "huge power": ("topics: []\n# {{ 2 ** 100000 }}\n", "R607"),
    "power of a power": ("topics: []\n# {{ (2 ** 1000) ** 1000 }}\n", "R607"),
    "string repetition": ("topics: []\n# {{ 'x' * 10 ** 9 }}\n", "R607"),
    "list repetition": ("topics: []\n# {{ ([1] * 10 ** 9)|length }}\n", "R607"),
    "center filter, folded while compiling": (
        "topics: []\n# {{ 'x'|center(2000000000) }}\n",
        "R607",
    ),
    "format filter": ("topics: []\n# {{ '%0999999999d'|format(1) }}\n", "R607"),
    "join with a long separator": (
        "topics: []\n# {{ range(100000)|join('x' * 50000) }}\n",
        "R607",
    ),
    "replace growing": (
        "{% set ns = namespace(s='ab') %}topics: []\n"
        "{% for i in range(60) %}{% set ns.s = ns.s|replace('a', ns.s ~ ns.s) %}{% endfor %}\n",
        "R607",
    ),
    "indent of a huge width": ("topics: []\n# {{ 'a\nb'|indent(2000000000) }}\n", "R607"),
    # time: nested loops, recursion
    "nested ranges": (
        "topics: []\n{% for i in range(100000) %}{% for j in range(100000) %}"
        "{% endfor %}{% endfor %}\n",
        "R606",
    ),
    "macro calling itself twice": (
        "{% macro f(n) %}{% if n < 40 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}{% endmacro %}"
        "topics: []\n# {{ f(0)|length }}\n",
        "R606",
    ),
    # output size
    "output over 5 MiB": (
        "topics: []\n{% for i in range(99999) %}# {{ 'x' * 80 }}\n{% endfor %}",
        "R605",
    ),
}


# The cases that end at the CPU limit spend it (a second each): `make test` runs them,
# `make check` leaves them out
CPU_BOUND = {"nested ranges", "macro calling itself twice"}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=[pytest.mark.slow, pytest.mark.spins]) if c in CPU_BOUND else c
        for c in sorted(UNBOUNDED)
    ],
)
def test_an_unbounded_template_gets_its_limit_code(tmp_path: Path, case: str) -> None:
    """Finding 6: each way to grow without bound ends in its own R6xx code for the file."""
    body, code = UNBOUNDED[case]
    assert codes(repo_with(tmp_path, body)) == [(code, "topics/bad.yaml.j2")]


def test_the_limit_diagnostic_names_file_line_and_what_to_do(tmp_path: Path) -> None:
    """Finding 6: through the CLI: exit 1, one line with file and line, no traceback."""
    body = "topics: []\n{% set ns = namespace(n=3) %}\n{% for i in range(64) %}" + (
        "{% set ns.n = ns.n * ns.n %}{% endfor %}\n"
    )
    root = repo_with(tmp_path, body)
    code, output = run_cli(["--repo", str(root), "validate"])
    assert code == 1
    assert "topics/bad.yaml.j2:3:1: error[R607]: template value too large" in output
    assert "Traceback" not in output and "internal error" not in output


@pytest.mark.slow  # waits out a 2 s wall-clock limit (`make check` leaves it out)
def test_a_child_that_never_answers_is_killed_and_the_next_job_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding 6: the wall-clock limit: a renderer stuck outside Python (no CPU used, so no
    CPU limit fires) is killed; the jobs after it run in a fresh child."""
    # ample for jobs 0 and 2 (a forked child returning a string) on a loaded machine; the test
    # waits it out once, for job 1
    monkeypatch.setattr(render_limits, "WALL_LIMIT_SECONDS", 2.0)

    def work(job: int) -> str:
        if job == 1:
            time.sleep(3600)  # blocked: only the parent's wall clock ends it
        return f"done {job}"

    results = render_limits.start(
        [0, 1, 2], work, lambda job, why: f"stopped {job} timeout={why.timeout}"
    ).results()
    assert results == ["done 0", "stopped 1 timeout=True", "done 2"]


def test_a_child_that_dies_costs_only_its_job() -> None:
    """Finding 6: a renderer killed outright (as the kernel does at RLIMIT_CPU) is reported
    for the job it was on, and the others are unaffected."""

    def work(job: int) -> str:
        if job == 1:
            os.kill(os.getpid(), signal.SIGXCPU)
        return f"done {job}"

    results = render_limits.start(
        [0, 1, 2], work, lambda job, why: f"stopped {job} timeout={why.timeout}"
    ).results()
    assert results == ["done 0", "stopped 1 timeout=True", "done 2"]


@pytest.mark.slow  # spends a 1 s CPU limit (`make check` leaves it out)
@pytest.mark.spins
def test_a_template_over_a_limit_for_one_cluster_is_not_rendered_again(tmp_path: Path) -> None:
    """Finding 6: the limit is reported once; the other cluster does not pay it again."""
    body = UNBOUNDED["nested ranges"][0]
    result = load_repo(repo_with(tmp_path, body))
    messages = [d.message for d in result.diagnostics]
    assert len(messages) == 1 and messages[0].endswith("(for cluster a)")


def test_all_templates_together_are_bounded_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6: each file's 5 MiB cap is not enough alone (a few bytes of template render
    5 MiB, for every cluster); the batch's total output is capped, the file crossing it named."""
    # bad.yaml.j2 renders 111 characters and good.yaml.j2 41, for each of the two clusters: 304
    monkeypatch.setattr(templates, "MAX_TOTAL_OUTPUT_CHARS", 310)
    root = repo_with(tmp_path, "topics: []\n" + "# padding\n" * 10)
    for index in range(3):
        (root / "topics" / f"more{index}.yaml.j2").write_text("topics: []\n" + "# x\n" * 20)
    result = load_repo(root)
    assert {"ok.a", "ok.b"} <= result.topic_names
    found = [(d.code, d.location.file if d.location else "") for d in result.diagnostics]
    assert found == [("R605", f"topics/more{index}.yaml.j2") for index in range(3)]
    assert "the templates together render more than" in result.diagnostics[0].message


def test_a_child_never_frees_the_parents_kafka_clients() -> None:
    """Garbage cycles holding librdkafka clients, left uncollected by the parent (gcpause keeps
    the collector off while clients live), are inherited by the render child: freed there,
    librdkafka's destructor ran without its threads and the child died of SIGSEGV, which read
    as R607 for an ordinary template (seen under load in `make check`)."""
    script = textwrap.dedent("""
        import gc
        from confluent_kafka.admin import AdminClient
        from reconciler.spec import render_limits
        gc.disable()
        for _ in range(3):
            holder = {"admin": AdminClient({"bootstrap.servers": "127.0.0.1:1",
                                            "log_level": 0})}
            holder["self"] = holder
            del holder
        def work(job):
            gc.collect()  # what a render's allocations may set off at any moment
            return "rendered"
        print(render_limits.start([1, 2], work, lambda job, why: f"stopped: {why}").results())
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, "['rendered', 'rendered']"), done.stderr
