"""The `reconciler` command group and its entry point: only here are errors turned into messages
and exit codes (0 success or no changes, 1 error, 2 changes present: plan --detailed-exitcode,
drift)."""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path
from typing import ClassVar

import click

from reconciler import __version__, redaction
from reconciler.cli.fleet_commands import fleet
from reconciler.cli.plan_commands import apply, plan
from reconciler.cli.repo_commands import compile_, import_, init, validate
from reconciler.cli.shared import (
    CONTEXT,
    Ctx,
)
from reconciler.cli.state_commands import drift, snapshot
from reconciler.errors import InvalidSpecs, ReconcilerError


class _Commands(click.Group):
    """The command group, with `local` imported only when it is run or listed: its cluster
    tooling is a fifth of the start-up of every other command."""

    _LAZY: ClassVar[dict[str, str]] = {"local": "reconciler.local.commands"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._LAZY and cmd_name not in self.commands:
            module = importlib.import_module(self._LAZY[cmd_name])
            self.add_command(getattr(module, cmd_name))
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="reconciler")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default="current directory",
    help="Spec repository (holds reconciler.yaml and topics/).",
)
@click.option(
    "--debug",
    is_flag=True,
    help="Show tracebacks, and the Kafka clients' own logs, on stderr (secrets as ***).",
)
@click.pass_context
def cli(ctx: click.Context, repo: Path, debug: bool) -> None:
    """Declarative GitOps for Apache Kafka topics.

    Topic specs live as YAML in git. `validate` checks them, `plan` shows the difference
    against a live cluster like `terraform plan`, `apply` makes it in a dependency-safe order,
    and `drift` reports what changed behind your back. `local` runs a real Kafka cluster on
    this machine to try it all.

    Exit codes: 0 success or no changes, 1 error, 2 changes present (plan
    --detailed-exitcode, drift).
    """
    ctx.obj = Ctx(repo=repo, debug=debug)
    # Every library's log records (kafka-python's, librdkafka's, ours) only with --debug, and
    # through the filter that replaces secret values (reconciler.redaction).
    redaction.install_logging(debug)


for command in (init, validate, plan, apply, drift, import_, snapshot, compile_, fleet):
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; only here are errors turned into messages and exit codes."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    redaction.install_streams()  # no secret value of `client:` in anything printed
    try:
        code = cli.main(args=argv, prog_name="reconciler", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(1 if exc.exit_code == 2 else exc.exit_code)  # usage errors are errors: exit 1
    except ReconcilerError as exc:
        if debug:
            traceback.print_exc()
        if isinstance(exc, InvalidSpecs):  # every problem, file:line first, then the summary
            for diagnostic in exc.diagnostics:
                click.echo(str(diagnostic), err=True)
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception:  # the one broad catch, at the top
        # A bug, not bad input: say so plainly and ask for a report; --debug shows the trace.
        if debug:
            traceback.print_exc()
        else:
            click.echo(
                "internal error: reconciler hit a bug; rerun with --debug for the traceback "
                "and report it.",
                err=True,
            )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
