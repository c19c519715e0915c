"""`spark-submit .../reconciler/cli/spark_submit.py ARGS`: the same as `reconciler fleet drift
ARGS`, on the master spark-submit chose. spark-submit runs a file, not a module: this one is
only an entry point, so the job (fleet/job.py) never imports the command line that starts it."""

from __future__ import annotations

import sys

from reconciler.cli.main import main


def submit(argv: list[str] | None = None) -> None:
    """The CLI's `fleet drift` with `argv` (default: this script's own arguments)."""
    main(["fleet", "drift", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    submit()
