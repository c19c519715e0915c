"""`reconciler plan` as the pull-request check sees it: the exit code, and the Markdown comment.

A plan apply would refuse (an error, or a hazard the specs do not acknowledge) fails the check
with exit 1, whatever --detailed-exitcode says; the comment stays under --max-chars; and a plan
that could not be made (invalid specs, an unreachable cluster) is a comment too. Planned offline
against a snapshot (`--state`) or failing before any cluster is reached: no broker is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.cluster.snapshot import write_snapshot
from tests.planning.factories import cluster, spread, topic
from tests.spec_repo import Result, SpecRepo
from tests.unreachable import UNREACHABLE_MS

ROOT = Path(__file__).resolve().parents[2]
PLAN_SCHEMA = json.loads((ROOT / "schemas" / "plan.schema.json").read_text())


@pytest.fixture
def repo(tmp_path: Path) -> SpecRepo:
    spec_repo = SpecRepo(tmp_path / "specs", "127.0.0.1:1", "t")
    state = cluster(topic("t.keyed", spread(3, 2)), topic("t.plain", spread(3, 2)))
    write_snapshot(tmp_path / "snap.json", "test", state)
    return spec_repo


def plan(repo: SpecRepo, *args: str) -> Result:
    snapshot = str(repo.root.parent / "snap.json")
    return repo.run("plan", "--cluster", "test", "--state", snapshot, *args)


@pytest.mark.parametrize("detailed", [[], ["--detailed-exitcode"]])
def test_an_unacknowledged_hazard_is_not_applyable_and_exits_1(
    repo: SpecRepo, detailed: list[str]
) -> None:
    repo.topics({"name": "t.keyed", "partitions": 6, "keyed": True}, {"name": "t.plain"})

    markdown = plan(repo, "--format", "markdown", *detailed)
    assert markdown.code == 1, markdown.stdout + markdown.stderr
    refused = (
        "**Not applyable**: approve the hazard under its topic's `acknowledge:` (t.keyed: "
        "`- {key_reorder: {from: 3, to: 6}}`) or drop the change, then plan again."
    )
    assert refused in markdown.stdout
    assert markdown.stdout.count("Not applyable") == 1  # said once, with what to add
    assert "Applyable." not in markdown.stdout

    data = plan(repo, "--format", "json", *detailed)
    assert data.code == 1
    assert data.json()["applyable"] is False
    assert data.json()["summary"]["errors"] == 0  # no error: the hazard alone refuses it

    text = plan(repo, *detailed)
    assert text.code == 1
    assert text.stdout.splitlines()[-1] == refused.replace("**", "")


def test_an_acknowledged_hazard_is_applyable(repo: SpecRepo) -> None:
    repo.topics(
        {
            "name": "t.keyed",
            "partitions": 6,
            "keyed": True,
            "acknowledge": [{"key_reorder": {"from": 3, "to": 6}}],
        },
        {"name": "t.plain"},
    )
    markdown = plan(repo, "--format", "markdown", "--detailed-exitcode")
    assert markdown.code == 2, markdown.stdout + markdown.stderr
    assert "Applyable." in markdown.stdout and "Not applyable" not in markdown.stdout
    assert plan(repo, "--format", "markdown").code == 0
    assert plan(repo, "--format", "json").json()["applyable"] is True


def test_the_comment_stays_under_max_chars(repo: SpecRepo) -> None:
    many = [{"name": f"t.bulk-{i:04d}", "config": {"retention.ms": "3d"}} for i in range(150)]
    repo.topics({"name": "t.keyed", "partitions": 6, "keyed": True}, *many)

    whole = plan(repo, "--format", "markdown", "--max-chars", "1000000")
    assert len(whole.stdout) > 20_000 and "more change(s)" not in whole.stdout

    fitted = plan(repo, "--format", "markdown", "--max-chars", "20000")
    assert fitted.code == 1  # the hazard, shown in the Hazards table though its section is not
    comment = fitted.stdout.removesuffix("\n")  # click.echo's newline is not in the comment
    assert len(comment) <= 20_000
    assert "| `t.keyed` | `key_reorder` | needs acknowledgment |" in comment
    assert "more change(s) (" in comment and "`reconciler plan --format text`" in comment
    assert comment.startswith("## reconciler plan for `test`")

    default = plan(repo, "--format", "markdown")
    assert default.stdout == whole.stdout  # 60,000 by default: this plan fits whole

    too_small = plan(repo, "--format", "markdown", "--max-chars", "500")
    assert too_small.code == 1 and "--max-chars" in too_small.stderr


def test_invalid_specs_are_a_comment_naming_file_line_and_code(repo: SpecRepo) -> None:
    repo.topics({"name": "t.plain"}, {"name": "t.bad", "partitions": 0})
    result = repo.run("plan", "--cluster", "test", "--format", "markdown")
    assert result.code == 1
    assert result.stdout.startswith("## reconciler plan for `test`")
    assert "**`reconciler plan` failed**: 1 error(s) in the spec files" in result.stdout
    # The diagnostics on stderr, as before, and in the comment with the same file:line:column
    where = result.stderr.splitlines()[0].split(": ")[0]
    assert where.startswith("topics/main.yaml:") and "error[R301]" in result.stderr
    assert f"| `{where}` |" in result.stdout and "| R301 |" in result.stdout
    assert "error: 1 error(s) in the spec files" in result.stderr


def test_an_unreachable_cluster_is_a_comment_naming_the_bootstrap(repo: SpecRepo) -> None:
    repo.topics({"name": "t.plain"})
    repo.write(
        "reconciler.yaml",
        {
            "clusters": {
                "test": {
                    "bootstrap": "127.0.0.1:1",
                    "client": {"request.timeout.ms": UNREACHABLE_MS},
                }
            }
        },
    )
    result = repo.run("plan", "--cluster", "test", "--format", "markdown")
    assert result.code == 1, result.stdout + result.stderr
    assert result.stdout.startswith("## reconciler plan for `test`")
    assert "cluster 'test' at 127.0.0.1:1" in result.stdout
    assert "127.0.0.1:1" in result.stderr

    text = repo.run("plan", "--cluster", "test")
    assert text.code == 1 and text.stdout == ""  # only Markdown is a comment
