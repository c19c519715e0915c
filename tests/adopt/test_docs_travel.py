"""Docs that travel: the installed package carries its documentation (`reconciler help TOPIC`)
and its project URLs, and nothing it prints or writes points at a `docs/...` path, which a user
of the package does not have."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
import zipfile
from pathlib import Path

from tests.adopt.conftest import Installed
from tests.unreachable import SHORTEST_WAIT

ROOT = Path(__file__).resolve().parents[2]
# a relative path to a page (docs/spec.md, docs/x); a URL's ".../tree/main/docs/..." is fine
RELATIVE = re.compile(r"(?<![\w/.-])docs/[\w.-]+")


def _texts(wheel: Path) -> list[tuple[str, str]]:
    """(where, text) of everything the package says: every string of its Python code (messages,
    help texts, templates of generated files) and every data file, except the doc pages."""
    found = []
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not name.startswith("reconciler/") or name.startswith("reconciler/docs/"):
                continue
            text = archive.read(name).decode("utf-8", errors="replace")
            if name.endswith(".py"):
                tokens = tokenize.generate_tokens(io.StringIO(text).readline)
                found += [
                    (f"{name}:{t.start[0]}", t.string)
                    for t in tokens
                    if t.type in {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
                ]
            else:
                found += [(f"{name}:{n}", line) for n, line in enumerate(text.splitlines(), 1)]
    return found


def test_nothing_the_package_says_points_at_a_docs_path(installed: Installed) -> None:
    texts = _texts(installed.wheel)
    assert len(texts) > 1000  # the whole package was read
    assert [(where, m) for where, t in texts for m in RELATIVE.findall(t)] == []


def test_init_writes_no_docs_path(installed: Installed, tmp_path: Path) -> None:
    done = installed.run(tmp_path, *SHORTEST_WAIT, "init", "repo", "--bootstrap", "127.0.0.1:9092")
    assert done.returncode == 0, done.stderr
    assert RELATIVE.findall(done.stdout + done.stderr) == []
    for path in (tmp_path / "repo").rglob("*"):
        if path.is_file():
            assert RELATIVE.findall(path.read_text()) == [], path


def test_help_prints_the_shipped_pages(installed: Installed, tmp_path: Path) -> None:
    listed = installed.run(tmp_path, "help")
    assert listed.returncode == 0
    pages = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
    assert [line.split()[0] for line in listed.stdout.splitlines()[: len(pages)]] == pages
    for page in pages:
        shown = installed.run(tmp_path, "help", page)
        assert shown.returncode == 0
        assert shown.stdout == (ROOT / "docs" / f"{page}.md").read_text().rstrip("\n") + "\n"
    wrong = installed.run(tmp_path, "help", "rule")
    assert wrong.returncode == 1
    assert wrong.stderr.startswith("error: no help topic 'rule' (did you mean 'rules'?);")


def test_the_package_names_its_project_urls(installed: Installed) -> None:
    shown = subprocess.run(
        [str(installed.bin / "pip"), "show", "-v", "kafka-topic-reconciler"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    urls = dict(
        line.strip().split(", ", 1)
        for line in shown.stdout.split("Project-URLs:", 1)[1].splitlines()
        if ", http" in line
    )
    assert {"Documentation", "Source", "Issues"} <= set(urls)
    assert all(url.startswith("https://github.com/") for url in urls.values())
