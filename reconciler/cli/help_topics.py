"""`reconciler help [TOPIC]`: the project's documentation pages, shipped in the wheel, printed
where the tool runs. Messages, help texts and generated files point here (`reconciler help
spec`) or to the pages' URL (PROJECT_URL), never to a `docs/` path a user does not have."""

from __future__ import annotations

import difflib

import click

from reconciler.cli.shared import CONTEXT
from reconciler.errors import ConfigError
from reconciler.resources import package_file

# pyproject.toml's project URLs say the same; `reconciler help commands` names it
PROJECT_URL = "https://github.com/kafka-topic-reconciler/reconciler"


def topics() -> dict[str, str]:
    """Each page's topic (its file name without .md) to its title (its first heading)."""
    found = {}
    for page in package_file("docs").iterdir():
        if page.name.endswith(".md"):
            first = page.read_text(encoding="utf-8").lstrip().splitlines()[:1]
            found[page.name[:-3]] = first[0].lstrip("# ").strip() if first else ""
    return dict(sorted(found.items()))


@click.command("help", context_settings=CONTEXT)
@click.argument("topic", required=False)
def help_(topic: str | None) -> None:
    """Print a documentation page (TOPIC), or list them all.

    The pages are the project's documentation, shipped with this version of reconciler; they
    are also at https://github.com/kafka-topic-reconciler/reconciler/tree/main/docs.
    """
    known = topics()
    if topic is None:
        width = max(map(len, known))
        for name, title in known.items():
            click.echo(f"  {name:<{width}}  {title}")
        click.echo("\n`reconciler help TOPIC` prints one; `reconciler COMMAND --help` a command's.")
        return
    name = topic.removesuffix(".md").removeprefix("docs/")
    if name not in known:
        near = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise ConfigError(f"no help topic '{topic}'{hint}; the topics are {', '.join(known)}")
    click.echo(package_file("docs", f"{name}.md").read_text(encoding="utf-8").rstrip("\n"))
