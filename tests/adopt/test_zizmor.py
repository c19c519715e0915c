"""zizmor, the static security analyser for GitHub Actions, on every workflow of this repository
(the release workflow included) and on those `reconciler init` writes: no finding of medium or
high severity, with ignore comments not honoured (a finding cannot be silenced in the file it
is in). The version is pinned in pyproject.toml's dev dependencies: a newer zizmor may find new
issues in unchanged workflows, and is taken up on purpose. Offline: the audits that ask GitHub
(known-vulnerable actions, impostor commits) are left out; actions are pinned by commit SHA
(tests/adopt/test_workflows.py), reviewed when a pin moves."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from reconciler.init_repo import scaffold, write_new

ROOT = Path(__file__).resolve().parents[2]
BLOCKING = ("medium", "high")


def _zizmor() -> Path:
    path = Path(sys.prefix) / "bin" / "zizmor"
    if not path.is_file():
        pytest.fail(
            f"no zizmor at {path}: it comes with the dev dependencies: run `make env`",
            pytrace=False,
        )
    return path


def zizmor(workflows: Path) -> list[dict[str, Any]]:
    """zizmor's findings on the workflows in `workflows` (all severities, as JSON)."""
    done = subprocess.run(
        [str(_zizmor()), "--offline", "--no-ignores", "--no-config", "--format", "json",
         "--color", "never", str(workflows)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    # exit 0: no findings; 1x: findings (their highest severity); anything else: it failed
    assert done.returncode == 0 or 10 <= done.returncode <= 14, done.stderr
    findings: list[dict[str, Any]] = json.loads(done.stdout)
    return findings


def blocking(findings: list[dict[str, Any]]) -> list[str]:
    out = []
    for finding in findings:
        severity = finding["determinations"]["severity"].lower()
        if severity in BLOCKING:
            where = finding["locations"][0]
            path = where["symbolic"]["key"]["Local"]["verbatim_path"]
            row = where["concrete"]["location"]["start_point"]["row"] + 1
            out.append(f"{path}:{row}: {severity} {finding['ident']}: {finding['desc']}")
    return out


def init_workflows(tmp_path: Path) -> Path:
    repo = tmp_path / "specs"
    write_new(repo, scaffold("prod", "kafka-1.example.com:9092"))
    return repo / ".github" / "workflows"


def test_zizmor_is_the_pinned_version() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (pin,) = [d for d in pyproject["project"]["optional-dependencies"]["dev"] if "zizmor" in d]
    pinned = re.fullmatch(r"zizmor==(\S+)", pin)
    assert pinned, f"pyproject.toml: pin zizmor exactly, not {pin!r}"
    shown = subprocess.run(
        [str(_zizmor()), "--version"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["zizmor", pinned.group(1)], "run `make env`"


def test_zizmor_finds_nothing_medium_or_high_in_this_repositorys_workflows() -> None:
    workflows = ROOT / ".github" / "workflows"
    assert (workflows / "release.yml").is_file()
    assert blocking(zizmor(workflows)) == []


def test_zizmor_finds_nothing_medium_or_high_in_the_workflows_init_writes(
    tmp_path: Path,
) -> None:
    assert blocking(zizmor(init_workflows(tmp_path))) == []


def test_zizmor_catches_an_injection_and_credentials_left_in_the_checkout(
    tmp_path: Path,
) -> None:
    """The check can fail: an expression of the pull request's title in a script (template
    injection) and a checkout that keeps its token on disk (artipacked)."""
    workflows = init_workflows(tmp_path)
    plan = workflows / "reconciler-plan.yml"
    text = plan.read_text(encoding="utf-8")
    for old, new in (
        ("          persist-credentials: false\n", ""),
        ('          if [ -z "$PR_NUMBER" ]; then\n',
         '          echo "${{ github.event.pull_request.title }}"\n'
         '          if [ -z "$PR_NUMBER" ]; then\n'),
    ):  # fmt: skip
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    plan.write_text(text, encoding="utf-8")
    found = blocking(zizmor(workflows))
    assert any("template-injection" in f for f in found), found
    assert any("artipacked" in f for f in found), found
