"""What every command shares: the global options' context, common options, colour and progress
rules, writing JSON, and the Markdown comment a failed command still prints."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from reconciler.atomic_write import replace_whole
from reconciler.errors import ConfigError, InvalidSpecs
from reconciler.redaction import redact

if TYPE_CHECKING:  # the spec loader is imported by the commands that read specs
    from reconciler.workflow.context import Context

F = TypeVar("F", bound=Callable[..., Any])


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Ctx:
    """What the global options set, handed to every command."""

    def __init__(self, repo: Path, debug: bool) -> None:
        self.repo = repo
        self.debug = debug
        self._context: Context | None = None

    @property
    def context(self) -> Context:
        """The command's spec repository, read once (reconciler/workflow/context.py)."""
        if self._context is None:
            from reconciler.workflow.context import Context

            self._context = Context(self.repo)
        return self._context


pass_ctx = click.make_pass_decorator(Ctx)


def use_color() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def show_progress(message: str) -> None:
    """A status line on stderr for people watching a terminal; silent in pipes and CI logs."""
    if sys.stderr.isatty():
        click.echo(f"{message} ...", err=True)


def write_json(path: Path, document: object) -> None:
    try:
        # Plans and audit records hold no `client:` values; redacting costs little if one did.
        replace_whole(path, redact(json.dumps(document, indent=1)) + "\n")
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror}") from exc


def cluster_option(
    help: str = "Cluster name from reconciler.yaml [default: its only cluster].",
) -> Callable[[F], F]:
    # Never required: cli/cluster_choice.py picks the only cluster, or a saved plan's own
    return click.option("--cluster", "-c", metavar="NAME", help=help)


def format_option(choices: tuple[str, ...] = ("text", "json", "markdown")) -> Callable[[F], F]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default="text",
        show_default=True,
        help="Output format.",
    )


def verbose_option() -> Callable[[F], F]:
    return click.option(
        "-v",
        "--verbose",
        is_flag=True,
        help="Also show the cluster state hash the text output is based on (JSON always has "
        "it as based_on).",
    )


def failure_comment(command: str, cluster: str, fmt: str, exc: Exception, max_chars: int) -> None:
    """With --format markdown, stdout gets a comment that says what failed (the diagnostics of
    invalid specs with file:line), so a pull request or an issue never shows an empty body; the
    error itself still goes to stderr (cli.main)."""
    from reconciler.render.markdown import render_failure

    diagnostics = exc.diagnostics if isinstance(exc, InvalidSpecs) else ()
    if fmt == "markdown":
        click.echo(render_failure(command, cluster, str(exc), diagnostics, max_chars=max_chars))
