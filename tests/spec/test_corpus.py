"""The corpus of invalid spec repositories: each names its code, file and line.

Each directory of tests/spec/corpus/ is a small spec repository (its reconciler.yaml, or the
corpus's shared one) with an `expect.yaml`:

    code: R105                 # the diagnostic the case is about
    file: topics/t.yaml        # where it must point
    line: 12
    column: 7                  # optional
    message: did you mean      # optional: a fragment of the message
    severity: warning          # optional (default error)
    also: [R702]               # other codes the case legitimately produces (default none)
    count: 1                   # optional: how many diagnostics of `code` there must be
    generate: huge_file        # optional: inputs git should not hold (see GENERATORS)
    repo_config: false         # optional: no reconciler.yaml at all

Every case runs twice: through load_repo (exact code, place, and no unexpected codes) and
through the real CLI entry point (exit code, the `path:line:col: error[CODE]:` line, and never a
traceback).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from reconciler.spec import r_codes
from reconciler.spec.loader import load_repo
from reconciler.spec.source import MAX_FILE_BYTES
from tests.spec.helpers import run_cli

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
# A case that spends the render's CPU limit (a second a run): `make test` runs it, `make check`
# leaves it out
SLOW_CASES = {"r606_template_timeout"}
SPINS = [pytest.mark.slow, pytest.mark.spins]  # renders until the CPU limit stops it
RUNS = [pytest.param(c, marks=SPINS) if c in SLOW_CASES else c for c in CASES]
# The corpus runs with a known, empty environment: no test depends on the machine's variables.
ENV: dict[str, str] = {}
UNSET: dict[str, str | None] = {"RECONCILER_TEST_UNSET_BOOTSTRAP": None}


def _huge_file(root: Path) -> None:
    line = b"# " + b"x" * 97 + b"\n"
    (root / "topics" / "big.yaml").write_bytes(line * (6 * 2**20 // len(line) + 1))


def _nul_bytes(root: Path) -> None:
    (root / "topics" / "t.yaml").write_bytes(b"topics:\n  - name: a.b\x00\n")


def _latin1(root: Path) -> None:
    text = "topics:\n  - name: a.b\n    description: café\n"
    (root / "topics" / "t.yaml").write_bytes(text.encode("latin-1"))


def _symlink_escape(root: Path) -> None:
    outside = root.parent / "outside.yaml"
    outside.write_text("topics:\n  - name: secret.topic\n")
    (root / "topics" / "evil.yaml").symlink_to(outside)


def _broken_symlink(root: Path) -> None:
    (root / "topics" / "gone.yaml").symlink_to(root / "topics" / "nowhere.yaml")


def _symlink_loop(root: Path) -> None:
    (root / "topics" / "a.yaml").symlink_to(root / "topics" / "b.yaml")
    (root / "topics" / "b.yaml").symlink_to(root / "topics" / "a.yaml")


GENERATORS: dict[str, Callable[[Path], None]] = {
    "symlink_loop": _symlink_loop,
    "huge_file": _huge_file,
    "nul_bytes": _nul_bytes,
    "latin1": _latin1,
    "symlink_escape": _symlink_escape,
    "broken_symlink": _broken_symlink,
}


def expectation(case: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((CORPUS / case / "expect.yaml").read_text())
    return loaded


def build(case: str, tmp_path: Path) -> Path:
    """The case's repository in a temp dir, ready to validate."""
    expect = expectation(case)
    root = tmp_path / "repo"
    shutil.copytree(
        CORPUS / case, root, symlinks=True, ignore=shutil.ignore_patterns("expect.yaml")
    )
    if expect.get("repo_config", True) and not (root / "reconciler.yaml").exists():
        shutil.copy(CORPUS / "reconciler.yaml", root / "reconciler.yaml")
    (root / "topics").mkdir(exist_ok=True)
    if "generate" in expect:
        GENERATORS[expect["generate"]](root)
    return root


def test_the_corpus_is_large_and_covers_every_rule() -> None:
    assert len(CASES) >= 40
    covered = set()
    for case in CASES:
        expect = expectation(case)
        covered |= {expect["code"], *expect.get("also", [])}
    assert {rule.code for rule in r_codes.RULES} <= covered


@pytest.mark.parametrize("case", RUNS)
def test_case_reports_its_code_at_its_place(case: str, tmp_path: Path) -> None:
    expect = expectation(case)
    result = load_repo(build(case, tmp_path), env=ENV)
    listing = "\n".join(str(d) for d in result.diagnostics)
    hits = [
        d
        for d in result.diagnostics
        if d.code == expect["code"]
        and d.location is not None
        and d.location.file == expect["file"]
        and d.location.line == expect["line"]
    ]
    assert hits, f"expected {expect['code']} at {expect['file']}:{expect['line']}, got:\n{listing}"
    hit = hits[0]
    assert hit.location is not None
    if "column" in expect:
        assert hit.location.column == expect["column"], listing
    if "message" in expect:
        assert expect["message"] in hit.message, listing
    assert hit.severity.value == expect.get("severity", "error")
    assert {d.code for d in result.diagnostics} == {expect["code"], *expect.get("also", [])}, (
        listing
    )
    if "count" in expect:
        assert sum(d.code == expect["code"] for d in result.diagnostics) == expect["count"], listing
    assert result.valid is (expect.get("severity") == "warning")


@pytest.mark.parametrize("case", RUNS)
def test_cli_reports_case_without_traceback(case: str, tmp_path: Path) -> None:
    expect = expectation(case)
    severity = expect.get("severity", "error")
    code, output = run_cli(["--repo", str(build(case, tmp_path)), "validate"], env=UNSET)
    assert "Traceback" not in output
    assert code == (0 if severity == "warning" else 1), output
    line = f"{expect['file']}:{expect['line']}:{expect.get('column', '')}"
    prefix = f"{severity}[{expect['code']}]: "
    assert any(row.startswith(line) and prefix in row for row in output.splitlines()), output
    summary = output.rstrip("\n").splitlines()[-1]
    assert summary.startswith("ok: ") if severity == "warning" else " error" in summary, output


def test_the_huge_file_is_refused_unread(tmp_path: Path) -> None:
    """The size cap is checked before reading: a file just over it is refused, one under is not."""
    root = build("r004_file_too_large", tmp_path)
    assert (root / "topics" / "big.yaml").stat().st_size > MAX_FILE_BYTES
    (root / "topics" / "big.yaml").write_bytes(b"# small\ntopics: []\n")
    assert load_repo(root, env=ENV).valid
