"""Every file path the code's comments, the docs and the build files name exists: a comment
pointing a newcomer at a module that was moved or renamed sends them nowhere. Paths under the
repository's own top-level folders are checked; a name ending in a pattern (`reconciler-*.yml`,
`{80,120}`) names a family of files and is left out."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_NAMED = re.compile(
    r"(?<![\w./-])((?:reconciler|tests|docs|bench|scripts|schemas|\.ci|\.github)/[\w./-]*[\w/])"
    r"(?!\.?[\w*{<-])"
)
_TEXT = re.compile(r"(\.(py|md|toml|sh|yml|yaml|j2|cfg|txt)|Makefile|\.ci/run)$")

# Paths named on purpose that do not exist: the tests' examples of a bad or new path
NOT_FILES = {
    ("tests/adopt/test_docs_travel.py", "docs/x"),
    ("tests/adopt/test_workflows.py", "docs/x.md"),
    ("tests/test_layers.py", "reconciler/newcomer.py"),
}


_HERE = "tests/test_paths_named.py"  # names NOT_FILES' paths itself


def _tracked() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode == 0 and listed.stdout:
        return listed.stdout.split()
    return [  # not a git checkout (an unpacked sdist): the files themselves
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts
    ]


def test_every_path_named_in_comments_and_docs_exists() -> None:
    named = 0
    missing = []
    for name in _tracked():
        if not _TEXT.search(name) or name == _HERE or not (ROOT / name).is_file():
            continue
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in _NAMED.finditer(line):
                path = match.group(1).rstrip(".")
                named += 1
                if (name, path) not in NOT_FILES and not (ROOT / path).exists():
                    missing.append(f"{name}:{number}: {path}")
    assert named > 300, f"only {named} paths found: is the pattern still finding them?"
    assert missing == [], "paths named that do not exist:\n" + "\n".join(missing)
