"""The command line: parses arguments, calls the library (reconciler.workflow), prints, and maps
errors to exit codes. The only code that prints or prompts.

    main.py            the `reconciler` group, its global options, and `main` (exit codes)
    shared.py          what the commands share (context, options, colour, progress, JSON out)
    repo_commands.py   init, validate, import, compile
    plan_commands.py   plan, apply
    state_commands.py  drift, snapshot
    fleet_commands.py  fleet drift (Spark)
    local_commands.py  local up, status, stop-node, start-node, down, fetch (the dev cluster)
"""

from __future__ import annotations

from reconciler.cli.main import cli, main

__all__ = ["cli", "main"]
