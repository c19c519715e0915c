"""Running the real CLI entry point in-process, as a user would, for the spec tests."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from click.testing import CliRunner

from reconciler.cli import main


def run_cli(args: list[str], env: Mapping[str, str | None] | None = None) -> tuple[int, str]:
    """Exit code and all output (stdout then stderr) of `reconciler ARGS`, via main()."""
    runner = CliRunner()
    with runner.isolation(env=env) as streams, pytest.raises(SystemExit) as exit_info:
        main(args)
    code = exit_info.value.code
    output = streams[0].getvalue().decode() + streams[1].getvalue().decode()
    return (code if isinstance(code, int) else 0), output
