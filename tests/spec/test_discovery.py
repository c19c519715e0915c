"""Discovery reads every topic file or says why not: nothing under topics/ is skipped silently.

Each name below is laid out in a real directory and walked by `find_topic_files`; the table
says whether it is loaded, or not read and why, and whether it could hold topics (a warning
that stops every delete) or not (listed only).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.spec.discovery import find_topic_files, folder_not_read
from reconciler.spec.loader import load_repo

LOADED = "loaded"
# path under topics/ -> LOADED, or (reason fragment, could hold topics)
CASES: dict[str, str | tuple[str, bool]] = {
    "a.yaml": LOADED,
    "team/b.yaml.j2": LOADED,
    "UP.YAML": ("its extension is not in lower case", True),
    "Mixed.Yaml": ("its extension is not in lower case", True),
    "t.YAML.J2": ("its extension is not in lower case", True),
    "x.yml": ("its extension is not .yaml or .yaml.j2", True),
    "x2.Yml": ("its extension is not .yaml or .yaml.j2", True),
    "x3.yml.j2": ("its extension is not .yaml or .yaml.j2", True),
    "t.yaml.jinja": ("its extension is not .yaml or .yaml.j2", True),
    "only.J2": ("its extension is not .yaml or .yaml.j2", True),
    ".hidden.yaml": ("hidden", True),
    ".staging/s.yaml": ("inside the hidden folder topics/.staging", True),
    ".staging/deep/S.YML": ("inside the hidden folder topics/.staging", True),
    ".staging/notes.txt": ("inside the hidden folder topics/.staging", False),
    ".empty/readme": ("inside the hidden folder topics/.empty", False),
    "README.md": ("not a topic file name: extension .md", False),
    ".gitkeep": ("hidden", False),
    "team/Makefile": ("not a topic file name: extension none", False),
}


@pytest.fixture
def topics(tmp_path: Path) -> Path:
    for rel in CASES:
        path = tmp_path / "topics" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("topics: []\n")
    (tmp_path / "topics" / ".#lock.yaml").symlink_to(tmp_path / "nowhere")  # an editor's lock
    (tmp_path / "topics" / ".linked").symlink_to(tmp_path.parent)  # out of the repository
    return tmp_path


def test_every_entry_is_loaded_or_reported_with_its_reason(topics: Path) -> None:
    found = find_topic_files(topics, topics / "topics")
    loaded = {p.relative_to(topics / "topics").as_posix() for p in found.paths}
    assert loaded == {rel for rel, want in CASES.items() if want == LOADED}
    not_read = {n.path.removeprefix("topics/"): n for n in found.not_read}
    for rel, want in CASES.items():
        if isinstance(want, str):  # LOADED
            continue
        reason, could_hold_specs = want
        assert rel in not_read, rel
        assert reason in not_read[rel].reason, (rel, not_read[rel])
        assert not_read[rel].could_hold_specs is could_hold_specs, rel
    # the hidden folders themselves are listed, and the dangling hidden symlink counts as a spec
    assert not_read[".staging"].reason == not_read[".empty"].reason == "a hidden folder"
    assert not_read[".#lock.yaml"].could_hold_specs
    assert "cannot be examined" in not_read[".#lock.yaml"].reason
    assert not_read[".linked"].could_hold_specs  # hidden: a warning, not R007's error
    assert "a symlink outside the repository" in not_read[".linked"].reason
    # exactly those that could hold topics are warnings (R013), each at its file
    warned = {str(d.location.file) for d in found.diagnostics if d.location is not None}
    assert {d.code for d in found.diagnostics} == {"R013"}
    assert warned == {f"topics/{rel}" for rel, n in not_read.items() if n.could_hold_specs}


def test_what_could_hold_topics_reaches_every_cluster_desired_state(topics: Path) -> None:
    (topics / "reconciler.yaml").write_text(
        "clusters:\n  a: {bootstrap: 127.0.0.1:9092}\n  b: {bootstrap: 127.0.0.1:9093}\n"
    )
    result = load_repo(topics, env={})
    assert result.valid  # warnings only
    unread = {path for path, _ in result.desired["a"].unread}
    assert "topics/UP.YAML" in unread and "topics/.staging/s.yaml" in unread
    assert "topics/README.md" not in unread
    assert result.desired["a"].unread == result.desired["b"].unread
    assert any(n.path == "topics/README.md" for n in result.not_read)


@pytest.mark.parametrize(
    ("folder", "why"),
    [
        ("topics", None),
        ("topics/imported", None),
        ("topics/team/new", None),
        ("topics/.staging", ".staging is a hidden folder"),
        ("topics/team/.old/x", ".old is a hidden folder"),
        ("elsewhere", "outside the topics directory topics/"),
        ("topics/../elsewhere", "outside the topics directory topics/"),
        (".", "outside the topics directory topics/"),
    ],
)
def test_a_folder_import_may_write_into_is_one_discovery_reads(
    tmp_path: Path, folder: str, why: str | None
) -> None:
    (tmp_path / "topics").mkdir()
    found = folder_not_read(tmp_path, tmp_path / "topics", tmp_path / folder)
    assert (found is None) if why is None else (found is not None and why in found), found
