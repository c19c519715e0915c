"""Finding a repository's topic files: `topics/**/*.yaml` and `topics/**/*.yaml.j2`.

Sorted by path so every run reads them in the same order. Hidden files and directories (names
starting with '.') are skipped; near misses (`.yml`, `.yaml.jinja`, ...) are warned about rather
than ignored silently (R013); a symlinked directory is followed only while it stays inside the
repository (R007), and only once, so a link loop ends.

Specs are read whole or not at all: a directory that cannot be listed, or an entry that cannot
be examined (no permission, a dangling symlink, removed while walking), is an error (R008)
naming the path, never a silent skip. A skipped directory's topics would look deleted, and
`plan --prune` would delete them; any error stops every command that plans.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import rules
from reconciler.spec.source import real_path, relative

TOPIC_SUFFIXES = (".yaml", ".yaml.j2")
TEMPLATE_SUFFIX = ".yaml.j2"
# Names people use for topic files that would otherwise be skipped without a word.
_NEAR_MISSES = (".yml", ".yml.j2", ".yaml.jinja", ".yaml.jinja2", ".yaml.tmpl", ".j2")


def find_topic_files(root: Path, topics_dir: Path) -> tuple[list[Path], list[Diagnostic]]:
    """Topic files under `topics_dir`, sorted by path relative to `root`, and the problems.

    Symlinked directories are followed only while they stay inside the repository (and only
    once, so a link loop ends); symlinked files are returned and refused by `read_source` if
    they lead outside.
    """
    real_root = real_path(root)
    found: list[Diagnostic] = []
    paths: list[Path] = []
    seen: set[Path] = {real_path(topics_dir)}
    pending = [topics_dir]
    while pending:
        here = pending.pop()
        try:
            with os.scandir(here) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError as exc:
            found.append(unreadable(here, root, exc, "directory"))
            continue
        for name in names:
            if name.startswith("."):
                continue  # editor lock files (often dangling symlinks) and the like
            path = here / name
            try:
                mode = os.stat(path).st_mode  # follows symlinks: what the entry leads to
            except OSError as exc:
                found.append(unreadable(path, root, exc, "entry"))
                continue
            if stat.S_ISDIR(mode):
                target = real_path(path)
                if not target.is_relative_to(real_root):
                    rel = relative(path, root)
                    found.append(
                        rules.SYMLINK_ESCAPE(
                            f"{rel} is a symlink to {target}, outside the repository: topic "
                            "files must live in it; copy them in instead",
                            Location(rel, 1, 1),
                        )
                    )
                elif target not in seen:
                    seen.add(target)
                    pending.append(path)
            elif name.endswith(TOPIC_SUFFIXES):
                paths.append(path)
            elif name.endswith(_NEAR_MISSES):
                rel = relative(path, root)
                found.append(
                    rules.IGNORED_FILE(
                        f"{rel} is not read: topic files end in .yaml or .yaml.j2; rename it if "
                        "it holds topics",
                        Location(rel, 1, 1),
                    )
                )
    paths.sort(key=lambda p: relative(p, root))
    return paths, found


def unreadable(path: Path, root: Path, exc: OSError, what: str) -> Diagnostic:
    """R008 for a directory that cannot be listed or an entry that cannot be examined."""
    rel = relative(path, root)
    reason = exc.strerror or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        reason += " (a dangling symlink, or removed while reading)"
    fix = (
        "give the reconciler's user read and search permission on it"
        if isinstance(exc, PermissionError)
        else "fix or remove it"
    )
    kind = "the directory cannot be listed: " if what == "directory" else ""
    return rules.UNREADABLE_FILE(
        f"{rel} cannot be read: {kind}{reason}; its topics would be missing from every plan, so "
        f"nothing is planned until you {fix}",
        Location(rel, 1, 1),
    )
