"""Which cluster a command works on when `--cluster` is not given: the only one reconciler.yaml
defines, or a saved plan's own (`apply PLAN.json`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.errors import ConfigError, InvalidSpecs
from reconciler.spec.settings_scope import NONE

if TYPE_CHECKING:
    from reconciler.workflow.context import Context


def chosen_cluster(context: Context, given: str | None) -> str:
    """`given`, else the repository's only cluster; a ConfigError naming them when several.
    reconciler.yaml is read through the command's context: the load that follows opens it
    no more."""
    if given is not None:
        return given
    config, found = context.config(NONE)  # names only: no settings read
    if config is None:  # no or unreadable reconciler.yaml: its diagnostics say why
        raise InvalidSpecs(tuple(found))
    names = sorted(config.clusters)
    if len(names) == 1:
        return names[0]
    if not names:
        raise ConfigError(
            f"reconciler.yaml in {config.root} defines no cluster; add one under clusters:"
        )
    raise ConfigError(
        f"reconciler.yaml in {config.root} defines {len(names)} clusters "
        f"({', '.join(names)}); choose one with --cluster NAME"
    )


def plan_cluster(given: str | None, planned: str, plan_file: Path) -> str:
    """A saved plan's cluster; an explicit --cluster must name the same one."""
    if given is not None and given != planned:
        raise ConfigError(
            f"{plan_file}: the plan is for cluster '{planned}', not '{given}'; drop --cluster "
            f"(the plan names its cluster) or plan cluster '{given}' again"
        )
    return planned
