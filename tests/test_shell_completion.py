"""Shell completion: `_RECONCILER_COMPLETE={bash,zsh,fish}_source reconciler` prints the script
(click writes it as bytes, through the CLI's output channel), and bash completes with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.shell_completion import get_completion_class

from reconciler.cli.main import cli
from tests.spec_repo import RECONCILER


def _run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        RECONCILER, capture_output=True, text=True, env={**os.environ, **env}, timeout=60,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_its_completion_script(shell: str) -> None:
    proc = _run({"_RECONCILER_COMPLETE": f"{shell}_source"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    completion = get_completion_class(shell)
    assert completion is not None
    expected = completion(cli, {}, "reconciler", "_RECONCILER_COMPLETE").source()
    assert proc.stdout == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
def test_bash_completes_a_subcommand_with_the_printed_script(tmp_path: Path) -> None:
    script = tmp_path / "completion.bash"
    script.write_text(_run({"_RECONCILER_COMPLETE": "bash_source"}).stdout)
    shim = tmp_path / "reconciler"  # the command the script calls back, as installed
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m reconciler "$@"\n')
    shim.chmod(0o755)
    body = (
        f"source {script}; COMP_WORDS=(reconciler pla); COMP_CWORD=1; "
        "complete -p reconciler >/dev/null && _reconciler_completion reconciler; "
        'echo "${COMPREPLY[@]}"'
    )
    proc = subprocess.run(
        ["bash", "-c", body], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["plan"]
