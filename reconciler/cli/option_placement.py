"""Group options accepted after the subcommand too: `reconciler plan --repo X` means
`reconciler --repo X plan`, `reconciler local up --state-dir D` means `reconciler local
--state-dir D up`.

Before click parses, each option token is given to the command that owns it: the innermost
command along the invoked path that has an option of that name (so a subcommand's own option
always wins over a group's of the same name), and moved, with its value, to that command's place
on the command line. Tokens no command knows stay where they are, for click's own "No such
option" error. Positional arguments, and everything after `--`, never move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import click


@dataclass
class _Level:
    command: click.Command
    name: str  # the token that invoked it ("" for the root)
    tokens: list[str] = field(default_factory=list)
    subcommand_found: bool = False


def _options(command: click.Command) -> dict[str, click.Option]:
    """Every option name of `command` (help included), to the option."""
    ctx = click.Context(command, **command.context_settings)
    found: dict[str, click.Option] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                found[name] = param
    return found


def _values_taken(option: click.Option) -> int:
    """How many following tokens an option consumes when written without `=`."""
    if option.is_flag or option.count:
        return 0
    return max(option.nargs, 1)


def hoist(root: click.Group, ctx: click.Context, args: Sequence[str]) -> list[str]:
    """`args` (the root's arguments) with every group option moved to its group's place."""
    levels = [_Level(root, "")]
    known = [_options(root)]
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        current = levels[-1]
        if token == "--":
            current.tokens.extend(args[index - 1 :])
            break
        if token.startswith("-") and token != "-":
            name, has_value, _ = token.partition("=")
            owner = next(
                (depth for depth in range(len(levels) - 1, -1, -1) if name in known[depth]),
                None,
            )
            if owner is None:  # unknown, or a short option's attached value (-cNAME): leave it
                current.tokens.append(token)
                continue
            taken = 0 if has_value else _values_taken(known[owner][name])
            levels[owner].tokens.extend(args[index - 1 : index + taken])
            index += taken
            continue
        if isinstance(current.command, click.Group) and not current.subcommand_found:
            current.subcommand_found = True
            sub = current.command.get_command(ctx, token)
            if sub is not None:
                levels.append(_Level(sub, token))
                known.append(_options(sub))
                continue
            current.tokens.append(token)  # click reports the unknown command
            current.tokens.extend(args[index:])
            break
        current.tokens.append(token)
    result: list[str] = []
    for level in levels:
        if level.name:
            result.append(level.name)
        result.extend(level.tokens)
    return result
