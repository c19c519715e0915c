"""One cluster's settings only: a command for cluster X reads and expands X's `bootstrap` and
`client:` alone; validate without --cluster reads every cluster's and warns (R502) about an
unset variable, naming the cluster. (The commands that reach Kafka, on a real broker:
tests/plan/test_settings_scope_real.py.)"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from reconciler.diagnostics import Severity
from reconciler.errors import InvalidSpecs
from reconciler.spec.loader import load_repo
from reconciler.spec.repo_config import load_repo_config
from reconciler.spec.settings_scope import NONE, Settings
from reconciler.workflow.context import Context
from tests.spec.helpers import run_cli

# staging reads variables a job for prod does not have; none is set in these tests
TWO_CLUSTERS = """\
clusters:
  prod:
    bootstrap: "${PROD_BOOTSTRAP:-127.0.0.1:9092}"
    client:
      sasl.password: "${PROD_PASSWORD:-}"
  staging:
    bootstrap: "${STAGING_BOOTSTRAP}"
    client:
      security.protocol: SASL_SSL
      sasl.password: "${STAGING_PASSWORD}"
      sasl.mechanism: SCRAM-SHA-512
"""
UNSET: dict[str, str | None] = {
    "PROD_BOOTSTRAP": None,
    "PROD_PASSWORD": None,
    "STAGING_BOOTSTRAP": None,
    "STAGING_PASSWORD": None,
}


def repo(tmp_path: Path, config: str = TWO_CLUSTERS) -> Path:
    (tmp_path / "topics").mkdir(parents=True, exist_ok=True)
    (tmp_path / "topics" / "t.yaml").write_text("topics:\n  - name: a.b\n    partitions: 1\n")
    (tmp_path / "reconciler.yaml").write_text(config)
    return tmp_path


class Watched(Mapping[str, str]):
    """An environment that fails the test when a variable of `forbidden` is looked up."""

    def __init__(self, values: Mapping[str, str], forbidden: frozenset[str]) -> None:
        self.known, self.forbidden = dict(values), forbidden
        self.asked: list[str] = []

    def __getitem__(self, name: str) -> str:
        self.asked.append(name)
        assert name not in self.forbidden, f"{name} of another cluster was looked up"
        return self.known[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.known)

    def __len__(self) -> int:
        return len(self.known)


STAGING = frozenset({"STAGING_BOOTSTRAP", "STAGING_PASSWORD"})


def test_a_load_for_one_cluster_never_looks_up_another_clusters_variables(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    env = Watched({"PROD_PASSWORD": "pw-of-prod"}, STAGING)
    result = load_repo(root, "prod", env=env)
    assert result.valid, [str(d) for d in result.diagnostics]
    assert result.diagnostics == ()
    assert set(env.asked) == {"PROD_BOOTSTRAP", "PROD_PASSWORD"}
    assert result.config is not None
    prod, staging = result.config.clusters["prod"], result.config.clusters["staging"]
    assert (prod.bootstrap, dict(prod.client)) == (
        "127.0.0.1:9092",
        {"sasl.password": "pw-of-prod"},
    )
    assert prod.settings_read
    # staging's entry is known (its name, policy) but its settings were not read
    assert (staging.bootstrap, staging.client, staging.settings_read) == ("", (), False)
    # import's load: every cluster's topics, prod's settings
    env.asked.clear()
    again = load_repo(root, None, env=env, settings=Settings.of("prod"))
    assert again.valid and sorted(again.desired) == ["prod", "staging"]
    assert set(env.asked) == {"PROD_BOOTSTRAP", "PROD_PASSWORD"}
    # the --cluster default and the specs' digest need names only: no variable at all
    env.asked.clear()
    config, found = load_repo_config(root, env, NONE)
    assert config is not None and found == [] and env.asked == []


def test_another_clusters_variable_whose_expansion_would_fail_is_never_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Set, staging's bootstrap variable would make its entry invalid (R507): prod's commands
    never see that, validate of every cluster does."""
    root = repo(tmp_path)
    env = {"STAGING_BOOTSTRAP": "not a bootstrap", "STAGING_PASSWORD": ""}
    assert load_repo(root, "prod", env=env).valid
    every = load_repo(root, env=env)
    assert [(d.code, d.severity) for d in every.diagnostics] == [("R507", Severity.ERROR)]
    assert load_repo(root, "staging", env=env).errors == 1
    # the settings plan, snapshot and apply connect with: workflow.cluster_config
    monkeypatch.setenv("STAGING_BOOTSTRAP", "not a bootstrap")
    monkeypatch.delenv("PROD_BOOTSTRAP", raising=False)
    assert Context(root).cluster_config("prod").bootstrap == "127.0.0.1:9092"
    with pytest.raises(InvalidSpecs):
        Context(root).cluster_config("staging")


def test_the_clusters_own_unset_variable_is_the_same_error_as_before(tmp_path: Path) -> None:
    root = repo(tmp_path)
    found = load_repo(root, "staging", env={}).diagnostics
    assert [str(d) for d in found] == [
        "reconciler.yaml:7:16: error[R502]: environment variable STAGING_BOOTSTRAP is not set "
        "and '${STAGING_BOOTSTRAP}' has no default: set it, or write ${STAGING_BOOTSTRAP:-default}",
        "reconciler.yaml:10:22: error[R502]: environment variable STAGING_PASSWORD is not set "
        "and '${STAGING_PASSWORD}' has no default: set it, or write ${STAGING_PASSWORD:-default}",
    ]


def test_validate_warns_about_each_clusters_unset_variables_naming_the_cluster(
    tmp_path: Path,
) -> None:
    root = str(repo(tmp_path))
    code, output = run_cli(["--repo", root, "validate"], env=UNSET)
    assert code == 0, output
    warnings = [line for line in output.splitlines() if "warning[R502]" in line]
    assert warnings == [
        "reconciler.yaml:7:16: warning[R502]: environment variable STAGING_BOOTSTRAP is not set "
        "and '${STAGING_BOOTSTRAP}' has no default: set it, or write "
        "${STAGING_BOOTSTRAP:-default}; commands for cluster staging fail until it is set where "
        "they run",
        "reconciler.yaml:10:22: warning[R502]: environment variable STAGING_PASSWORD is not set "
        "and '${STAGING_PASSWORD}' has no default: set it, or write "
        "${STAGING_PASSWORD:-default}; commands for cluster staging fail until it is set where "
        "they run",
    ]
    assert output.splitlines()[-1].startswith("ok: 1 topic in 2 files for 2 clusters")
    code, output = run_cli(["--repo", root, "validate", "--cluster", "prod"], env=UNSET)
    assert (code, "R502" in output) == (0, False), output
    code, output = run_cli(["--repo", root, "validate", "--cluster", "staging"], env=UNSET)
    assert code == 1, output
    assert "reconciler.yaml:7:16: error[R502]: environment variable STAGING_BOOTSTRAP" in output
    code, output = run_cli(["--repo", root, "validate", "--format", "json"], env=UNSET)
    assert code == 0, output
    assert '"severity": "warning"' in output and '"code": "R502"' in output


def test_compile_reads_the_settings_of_the_clusters_it_compiles(tmp_path: Path) -> None:
    root = str(repo(tmp_path / "repo"))
    out = str(tmp_path / "out")
    code, output = run_cli(["--repo", root, "compile", "--cluster", "prod", "--out", out], UNSET)
    assert code == 0 and "R502" not in output, output
    code, output = run_cli(["--repo", root, "compile", "--all-clusters", "--out", out], UNSET)
    assert code == 0, output
    assert "warning[R502]: environment variable STAGING_PASSWORD" in output
    assert (tmp_path / "out" / "staging.jsonl").is_file()
    code, output = run_cli(["--repo", root, "compile", "--cluster", "staging", "--out", out], UNSET)
    assert code == 1 and "error[R502]" in output, output


@pytest.mark.parametrize(
    ("staging", "code"),
    [
        ("    bootstrap: x:1\n    clinet: {}\n", "R703"),  # a schema error
        ('    bootstrap: "${STAGING BOOTSTRAP}"\n', "R505"),  # a reference's syntax
        ("    bootstrap: 'kafka::9092'\n", "R507"),  # a bootstrap without references
        ("    bootstrap: x:1\n    policy: {name_pattern: '[a-'}\n", "R503"),
    ],
)
def test_what_needs_no_environment_is_still_an_error_in_every_clusters_entry(
    tmp_path: Path, staging: str, code: str
) -> None:
    config = 'clusters:\n  prod:\n    bootstrap: "127.0.0.1:9092"\n  staging:\n' + staging
    result = load_repo(repo(tmp_path, config), "prod", env={})
    assert [d.code for d in result.diagnostics if d.is_error] == [code], result.diagnostics


def test_the_settings_warnings_are_given_for_the_clusters_whose_settings_are_read(
    tmp_path: Path,
) -> None:
    config = textwrap.dedent("""\
        clusters:
          prod:
            bootstrap: 127.0.0.1:9092
          staging:
            bootstrap: kafka.example.com:9092
            client:
              security.protocol: SASL_PLAINTEXT
              sasl.mechanism: PLAIN
              sasl.password: literal-secret-of-staging
        """)
    root = repo(tmp_path, config)
    assert load_repo(root, "prod", env={}).diagnostics == ()
    codes = [d.code for d in load_repo(root, "staging", env={}).diagnostics]
    assert codes == ["R510", "R509"]
    assert [d.code for d in load_repo(root, env={}).diagnostics] == codes
