"""Finding a repository's topic files: `topics/**/*.yaml` and `topics/**/*.yaml.j2`.

Sorted by path so every run reads them in the same order. Hidden files and directories (names
starting with '.') are skipped; near misses (`.yml`, `.yaml.jinja`, ...) are warned about rather
than ignored silently (R013); a symlinked directory is followed only while it stays inside the
repository (R007), and only once, so a link loop ends.
"""

from __future__ import annotations

import os
from pathlib import Path

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import rules
from reconciler.spec.source import real_path, relative

TOPIC_SUFFIXES = (".yaml", ".yaml.j2")
TEMPLATE_SUFFIX = ".yaml.j2"
# Names people use for topic files that would otherwise be skipped without a word.
_NEAR_MISSES = (".yml", ".yml.j2", ".yaml.jinja", ".yaml.jinja2", ".yaml.tmpl", ".j2")


def find_topic_files(root: Path, topics_dir: Path) -> tuple[list[Path], list[Diagnostic]]:
    """Topic files under `topics_dir`, sorted by path relative to `root`.

    Symlinked directories are followed only while they stay inside the repository (and only
    once, so a link loop ends); symlinked files are returned and refused by `read_source` if
    they lead outside.
    """
    real_root = real_path(root)
    found: list[Diagnostic] = []
    paths: list[Path] = []
    visited: set[Path] = set()
    for current, dirnames, filenames in os.walk(topics_dir, followlinks=True):
        here = Path(current)
        visited.add(real_path(here))
        kept: list[str] = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            target = real_path(here / name)
            if not target.is_relative_to(real_root):
                rel = relative(here / name, root)
                found.append(
                    rules.SYMLINK_ESCAPE(
                        f"{rel} is a symlink to {target}, outside the repository: topic files "
                        "must live in it; copy them in instead",
                        Location(rel, 1, 1),
                    )
                )
            elif target not in visited:
                kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            if name.startswith("."):
                continue  # editor lock files and the like
            path = here / name
            if name.endswith(TOPIC_SUFFIXES):
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
