"""Finding a repository's topic files: `topics/**/*.yaml` and `topics/**/*.yaml.j2`.

Sorted by path so every run reads them in the same order. Nothing under the topics directory
is skipped without a word: every file and folder that is not loaded is returned with the
reason (`NotRead`), and those that could hold topics are warnings (R013) that also stop every
delete (the planner reads `DesiredState.unread`: a topic in an unread file would look
unmanaged, and `plan --prune` would delete it). The rules:

- loaded: a file whose name ends exactly in `.yaml` or `.yaml.j2`, lower case, outside any
  hidden folder;
- could hold topics (`could_hold_specs`): any other name ending, in any letter case, in
  `.yaml`, `.yml`, `.j2`, `.jinja`, `.jinja2` or `.tmpl` (`UP.YAML`, `x.Yml`, `t.yaml.jinja`),
  such a file inside a hidden folder (`.staging/`) or itself hidden, and a hidden entry that
  cannot be examined (it might be one);
- anything else (`README.md`, `.gitkeep`, a hidden folder without such files) is not read and
  listed, never a warning; `validate`'s text output leaves out the hidden ones (`.gitkeep`,
  `.gitignore`, `.DS_Store`: git and editors put them there, the loader was never meant to read
  them) and names the others (`README.md`, `orders.json`: perhaps meant as topics).

Letter case: `UP.YAML` is not loaded, because `.yaml` and `.YAML` differ to git and to Linux
and a topic file's name should not depend on the filesystem; it is reported and stops deletes,
so renaming it is all it takes. Hidden folders are walked (only to report them), under the
same symlink rules.

A symlinked directory is followed only while it stays inside the repository (R007), and only
once, so a link loop ends. Specs are read whole or not at all: a directory that cannot be
listed, or an entry that cannot be examined (no permission, a dangling symlink, removed while
walking), outside hidden folders, is an error (R008) naming the path, never a silent skip; any
error stops every command that plans.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from reconciler.diagnostics import Diagnostic, Location
from reconciler.spec import r_codes
from reconciler.spec.source import real_path, relative

TOPIC_SUFFIXES = (".yaml", ".yaml.j2")
TEMPLATE_SUFFIX = ".yaml.j2"
# Endings (compared in lower case) of names that could hold topics but are not loaded.
SPEC_LIKE_SUFFIXES = (".yaml", ".yml", ".j2", ".jinja", ".jinja2", ".tmpl")


@dataclass(frozen=True, slots=True)
class NotRead:
    """A file or folder under the topics directory that discovery does not load."""

    path: str  # relative to the repository root, '/' separators
    reason: str  # why, in a few words: "hidden", "extension .md", ...
    could_hold_specs: bool  # a warning (R013), and every delete refuses while it is there
    # a dotfile or inside a hidden folder (`.gitkeep`, `.DS_Store`): validate's text output
    # names it only when it could hold topics (then it is a warning anyway)
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class Discovered:
    paths: list[Path]  # the topic files to load, sorted by path relative to the root
    diagnostics: list[Diagnostic]
    not_read: list[NotRead]  # sorted by path


def spec_like(name: str) -> bool:
    """Whether a file of this name could hold topics (any letter case)."""
    return name.lower().endswith(SPEC_LIKE_SUFFIXES)


def loaded_name(name: str) -> bool:
    """Whether a file of this name, outside hidden folders, is loaded as a topic file."""
    return not name.startswith(".") and name.endswith(TOPIC_SUFFIXES)


def find_topic_files(root: Path, topics_dir: Path) -> Discovered:
    """Topic files under `topics_dir`, the problems, and everything not loaded.

    Symlinked directories are followed only while they stay inside the repository (and only
    once, so a link loop ends); symlinked files are returned and refused by `read_source` if
    they lead outside.
    """
    real_root = real_path(root)
    found: list[Diagnostic] = []
    paths: list[Path] = []
    not_read: list[NotRead] = []
    seen: set[Path] = {real_path(topics_dir)}
    # (directory, the hidden folder it is in or is, None outside hidden folders)
    pending: list[tuple[Path, str | None]] = [(topics_dir, None)]

    def skip(path: Path, reason: str, could_hold_specs: bool) -> None:
        rel = relative(path, root)
        hidden = any(part.startswith(".") for part in path.relative_to(topics_dir).parts)
        not_read.append(NotRead(rel, reason, could_hold_specs, hidden))
        if could_hold_specs:
            found.append(
                r_codes.IGNORED_FILE(
                    f"{rel} is not read ({reason}) but could hold topics, so every delete is "
                    "refused: topic files end in .yaml or .yaml.j2 (lower case) outside hidden "
                    "folders; rename or move it, or remove it",
                    Location(rel, 1, 1),
                )
            )

    while pending:
        here, hidden_in = pending.pop()
        try:
            with os.scandir(here) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError as exc:
            if hidden_in is None:
                found.append(unreadable(here, root, exc, "directory"))
            else:  # might hold topic files
                why = exc.strerror or type(exc).__name__
                skip(here, f"{_hidden_reason(here, root, hidden_in)}, and cannot be listed: "
                     f"{why}", True)  # fmt: skip
            continue
        if hidden_in is not None and relative(here, root) == hidden_in:
            skip(here, "a hidden folder", False)  # its files say more if they must
        for name in names:
            path = here / name
            hidden = (
                hidden_in
                if hidden_in is not None
                else (relative(path, root) if name.startswith(".") else None)
            )
            try:
                mode = os.stat(path).st_mode  # follows symlinks: what the entry leads to
            except OSError as exc:
                if hidden is None:
                    found.append(unreadable(path, root, exc, "entry"))
                else:  # editor lock files are often dangling symlinks: might be a spec
                    why = exc.strerror or type(exc).__name__
                    skip(path, f"{_hidden_reason(path, root, hidden)}, and cannot be examined: "
                         f"{why}", True)  # fmt: skip
                continue
            if stat.S_ISDIR(mode):
                target = real_path(path)
                if not target.is_relative_to(real_root) and hidden is not None:
                    skip(path, f"{_hidden_reason(path, root, hidden)}, a symlink outside the "
                         "repository", True)  # fmt: skip
                elif not target.is_relative_to(real_root):
                    rel = relative(path, root)
                    found.append(
                        r_codes.SYMLINK_ESCAPE(
                            f"{rel} is a symlink to {target}, outside the repository: topic "
                            "files must live in it; copy them in instead",
                            Location(rel, 1, 1),
                        )
                    )
                elif target not in seen:
                    seen.add(target)
                    pending.append((path, hidden))
            elif hidden is not None:
                skip(path, _hidden_reason(path, root, hidden), spec_like(name))
            elif loaded_name(name):
                paths.append(path)
            elif name.lower().endswith(TOPIC_SUFFIXES):
                skip(path, "its extension is not in lower case", True)
            else:
                skip(path, _extension_reason(name), spec_like(name))
    paths.sort(key=lambda p: relative(p, root))
    not_read.sort(key=lambda n: n.path)
    return Discovered(paths, found, not_read)


def folder_not_read(root: Path, topics_dir: Path, folder: Path) -> str | None:
    """Why topic files written into `folder` would not be loaded; None when they would be.

    For writers of topic files (`import --out`): the folder must be the topics directory or
    under it, outside hidden folders, and stay inside the repository."""
    folder = Path(os.path.normpath(folder.absolute()))
    topics = Path(os.path.normpath(topics_dir.absolute()))
    shown = relative(topics, root) + "/"
    if not folder.is_relative_to(topics) or not real_path(folder).is_relative_to(real_path(topics)):
        return f"it is outside the topics directory {shown}"
    for part in folder.relative_to(topics).parts:
        if part.startswith("."):
            return f"{part} is a hidden folder"
    return None


def _hidden_reason(path: Path, root: Path, hidden: str) -> str:
    rel = relative(path, root)
    return "hidden" if rel == hidden else f"inside the hidden folder {hidden}"


def _extension_reason(name: str) -> str:
    if spec_like(name):
        return "its extension is not .yaml or .yaml.j2"
    return f"not a topic file name: extension {Path(name).suffix or 'none'}"


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
    return r_codes.UNREADABLE_FILE(
        f"{rel} cannot be read: {kind}{reason}; its topics would be missing from every plan, so "
        f"nothing is planned until you {fix}",
        Location(rel, 1, 1),
    )
