"""The commands the docs show, run: every ```console block of docs/*.md is a transcript whose
`$ reconciler ...` lines run, in order, in a copy of the example repository (reconciler.yaml and
topics/) against a real three-broker cluster of its own (the `local` cluster's $KAFKA_BOOTSTRAP).

A command's exit code must be the one the doc gives with `# exit N` at the end of the line (0
when it gives none), and the first line the doc quotes under a command must be the first line
the command printed (stdout, else stderr). Other fenced blocks are illustrations (placeholders,
other clusters) and are not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reconciler.local.cluster import default_overrides
from reconciler.local.distribution import Distribution
from reconciler.local.state import LocalCluster
from tests.kafka_fixtures import own_cluster
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.spec_repo import RECONCILER

ROOT = Path(__file__).resolve().parents[1]
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


@dataclass(frozen=True)
class Shown:
    page: str
    line: int
    args: tuple[str, ...]
    exit_code: int
    first_line: str | None  # what the doc quotes under the command, if anything


def shown_commands(page: Path) -> list[Shown]:
    found: list[Shown] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    inside = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            inside = line.strip() == "```console" and not inside
            continue
        if not inside or not line.startswith("$ "):
            continue
        command = line[2:]
        code = EXIT.search(command)
        words = shlex.split(EXIT.sub("", command), comments=True)
        assert words[0] == "reconciler", f"{page.name}:{number}: a console block runs reconciler"
        after = lines[number] if number < len(lines) else "```"
        quoted = None if after.startswith(("$ ", "```")) else after
        found.append(
            Shown(page.name, number, tuple(words[1:]), int(code.group(1)) if code else 0, quoted)
        )
    return found


PAGES = sorted((ROOT / "docs").glob("*.md"))
TRANSCRIPTS = [p for p in PAGES if shown_commands(p)]


def test_some_pages_show_transcripts() -> None:
    assert TRANSCRIPTS  # the mechanism runs something


@pytest.fixture(scope="module")
def docs_cluster(
    request: pytest.FixtureRequest,
    kafka_dist: Distribution,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalCluster]:
    """Three brokers of its own: the example's topics, and nothing another test made."""
    with own_cluster(
        request, tmp_path_factory, kafka_dist, "docs", 3, overrides=default_overrides(3)
    ) as cl:
        yield cl


@pytest.mark.parametrize("page", TRANSCRIPTS, ids=lambda p: p.name)
def test_each_shown_command_exits_as_its_page_says(
    page: Path, docs_cluster: LocalCluster, tmp_path: Path
) -> None:
    repo = tmp_path / "example"
    repo.mkdir()
    shutil.copy(ROOT / "reconciler.yaml", repo / "reconciler.yaml")
    shutil.copytree(ROOT / "topics", repo / "topics")
    env = {**os.environ, "KAFKA_BOOTSTRAP": docs_cluster.bootstrap, "NO_COLOR": "1"}
    env.pop("RECONCILER_LOCAL_DIR", None)
    try:
        for shown in shown_commands(page):
            done = subprocess.run(
                [*RECONCILER, *shown.args], cwd=repo, env=env, capture_output=True, text=True,
                timeout=300, check=False,
            )  # fmt: skip
            where = f"{shown.page}:{shown.line}: reconciler {' '.join(shown.args)}"
            assert "Traceback" not in done.stderr, where
            assert done.returncode == shown.exit_code, f"{where}\n{done.stdout}{done.stderr}"
            if shown.first_line is not None:
                printed = (done.stdout or done.stderr).splitlines()
                assert printed[:1] == [shown.first_line], where
    finally:  # the next page starts from an empty cluster again
        local_cluster_topics_removed(docs_cluster)


def local_cluster_topics_removed(cl: LocalCluster) -> None:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": cl.bootstrap}, logger=QUIET_LIBRDKAFKA)
    mine = [t for t in admin.list_topics(timeout=30).topics if not t.startswith("_")]
    for future in admin.delete_topics(mine, operation_timeout=30).values() if mine else ():
        future.result()
