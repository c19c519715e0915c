"""The command line: parses arguments, calls the library (reconciler.workflow), prints, and maps
errors to exit codes. With local/commands.py, the only code that prints or prompts.

    main.py            the `reconciler` group, its global options, and `main` (exit codes)
    shared.py          what the commands share (context, options, colour, progress, JSON out)
    repo_commands.py   init, validate, import, compile
    plan_commands.py   plan, apply
    state_commands.py  drift, snapshot
    fleet_commands.py  fleet drift (Spark)
"""

from __future__ import annotations

from reconciler.cli.main import cli, main

__all__ = ["cli", "main"]
