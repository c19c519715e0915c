"""The `reconciler` command group and its entry point: only here are errors turned into messages
and exit codes (0 success or no changes, 1 error, 2 changes present: plan --detailed-exitcode,
drift; 130/143 after SIGINT/SIGTERM). Every byte printed goes through cli/output.py, and signals
are handled by cli/signals.py."""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path
from typing import ClassVar

import click

from reconciler import __version__, redaction
from reconciler.cli import option_placement, output, process_exit, signals
from reconciler.cli.number_options import Seconds
from reconciler.cli.shared import (
    CONTEXT,
    Ctx,
)
from reconciler.cluster import wait_limit
from reconciler.errors import ClusterError, Interrupted, InvalidSpecs, ReconcilerError

# Commands whose standard output is their result: when it is lost (closed, a full disk, a reader
# gone), a 0 becomes 1 (the caller did not get what it asked for). The others changed something
# or wrote files; a lost summary does not undo that, so they keep their own code.
_REPORTS = frozenset({"validate", "plan", "drift", "snapshot"})
_invoked: list[str] = []  # the subcommand run, for the rule above
_repos: list[Path] = []  # the --repo of the command run, for _local_deaths


class _Commands(click.Group):
    """The command group, each command's module imported only when the command is run or
    listed (`--help`): a process runs one command, and `local`'s cluster tooling alone was a
    fifth of every other command's start-up (the project's benchmarks, start-up)."""

    # command name -> (module, the click command's name there)
    _LAZY: ClassVar[dict[str, tuple[str, str]]] = {
        "init": ("reconciler.cli.repo_commands", "init"),
        "validate": ("reconciler.cli.repo_commands", "validate"),
        "import": ("reconciler.cli.repo_commands", "import_"),
        "compile": ("reconciler.cli.repo_commands", "compile_"),
        "plan": ("reconciler.cli.plan_commands", "plan"),
        "apply": ("reconciler.cli.plan_commands", "apply"),
        "drift": ("reconciler.cli.state_commands", "drift"),
        "snapshot": ("reconciler.cli.state_commands", "snapshot"),
        "fleet": ("reconciler.cli.fleet_commands", "fleet"),
        "local": ("reconciler.cli.local_commands", "local"),
        "help": ("reconciler.cli.help_topics", "help_"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        # An unknown name loads them all: click suggests the nearest of those it holds
        for lazy in [cmd_name] if cmd_name in self._LAZY else self._LAZY:
            if lazy not in self.commands:
                module, name = self._LAZY[lazy]
                self.add_command(getattr(importlib.import_module(module), name), lazy)
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Global options after the subcommand too (`plan --repo X`, `local up --state-dir D`)
        return super().parse_args(ctx, option_placement.hoist(self, ctx, args))


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
@click.option(
    "--timeout",
    type=Seconds(wait_limit.SHORTEST, wait_limit.LONGEST, wait_limit.WHY),
    metavar="SECONDS",
    help="Longest wait for a cluster to answer, connecting included, 1 to 3600 [default: the "
    "cluster's client request.timeout.ms, else 30].",
)
@click.pass_context
def cli(ctx: click.Context, repo: Path, debug: bool, timeout: float | None) -> None:
    """Declarative GitOps for Apache Kafka topics.

    Topic specs live as YAML in git. `validate` checks them, `plan` shows the difference
    against a live cluster like `terraform plan`, `apply` makes it in a dependency-safe order,
    and `drift` reports what changed behind your back. `local` runs a real Kafka cluster on
    this machine to try it all.

    Exit codes: 0 success or no changes, 1 error, 2 changes present (plan
    --detailed-exitcode, drift).
    """
    ctx.obj = Ctx(repo=repo, debug=debug)
    _repos.append(repo)
    ctx.with_resource(wait_limit.limited(timeout))  # for the whole command (cluster/wait_limit)
    if ctx.invoked_subcommand:
        _invoked.append(ctx.invoked_subcommand)
    # Every library's log records (kafka-python's, librdkafka's, ours) only with --debug, and
    # through the filter that replaces secret values (reconciler.redaction).
    redaction.install_logging(debug)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; only here are errors turned into messages and exit codes."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    _invoked.clear()
    _repos.clear()
    output.install()  # every write through one layer: no secret value of `client:`, no crash
    signals.install()
    code = _after_output(_run(argv, debug))
    if argv is not None:  # called in a process of someone else's (tests): a plain SystemExit
        sys.exit(code)
    process_exit.end(code)  # the process's own command line: reconciler/cli/process_exit.py


def _run(argv: list[str] | None, debug: bool) -> int:
    try:
        code = cli.main(args=argv, prog_name="reconciler", standalone_mode=False)
    except click.exceptions.Abort as exc:
        stop = _signal_in(exc)  # click turns Ctrl-C (in a prompt too) into Abort
        if stop is not None:
            return _interrupted(stop)
        click.echo("Aborted.", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return 1 if exc.exit_code == 2 else exc.exit_code  # usage errors are errors: exit 1
    except ReconcilerError as exc:
        if debug:
            traceback.print_exc()
        if isinstance(exc, InvalidSpecs):  # every problem, file:line first, then the summary
            for diagnostic in exc.diagnostics:
                click.echo(str(diagnostic), err=True)
        click.echo(str(exc) if isinstance(exc, Interrupted) else f"error: {exc}", err=True)
        if isinstance(exc, ClusterError):
            for line in _local_deaths(str(exc)):
                click.echo(f"note: {line}", err=True)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except Exception as exc:  # the one broad catch, at the top
        stop = _signal_in(exc)  # raised inside a C callback, re-raised as SystemError
        if stop is not None:
            return _interrupted(stop)
        # A bug, not bad input: say so plainly and ask for a report; --debug shows the trace.
        if debug:
            traceback.print_exc()
        else:
            click.echo(
                "internal error: reconciler hit a bug; rerun with --debug for the traceback "
                "and report it.",
                err=True,
            )
        return 1
    return code if isinstance(code, int) else 0


def _local_deaths(message: str) -> list[str]:
    """Why nodes of the repository's local cluster died, when `message` is about that cluster
    (`reconciler local up` runs it; reconciler/local/heap.py reads the cause from their logs)."""
    if not _repos:
        return []
    from reconciler.local.heap import dead_nodes
    from reconciler.local.state import state_dir_of

    return dead_nodes(state_dir_of(_repos[0], None), message)


def _signal_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (or Terminated) `exc` was raised from, if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _interrupted(stop: KeyboardInterrupt) -> int:
    if isinstance(stop, signals.Terminated):
        click.echo("Terminated.", err=True)
        return 143
    click.echo("Interrupted.", err=True)
    return 130


def _after_output(code: int) -> int:
    """The exit code once stdout's fate is known (`reconciler help commands`, "Broken output"):
    a report that never reached its reader turns success into 1, and stderr says why (if it
    can)."""
    lost = output.lost(sys.stdout)
    if lost is None:
        return code
    report = bool(_invoked) and _invoked[0] in _REPORTS
    then = "exit 1: the report did not reach its reader" if report and code == 0 else (
        f"the exit code ({code}) is the command's own")  # fmt: skip
    click.echo(f"warning: standard output could not be written: {lost}; {then}", err=True)
    return 1 if report and code == 0 else code
