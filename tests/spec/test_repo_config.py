"""reconciler.yaml: environment expansion, redaction, and the config it builds."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler.spec.model import Limits, Policy
from reconciler.spec.repo_config import expand_env, is_secret, load_repo_config
from tests.spec_repo import redacted


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("${A}", {"A": "x:1"}, "x:1"),
        ("${A:-d:2}", {}, "d:2"),
        ("${A:-d:2}", {"A": ""}, "d:2"),  # as in a shell, ':-' also replaces an empty value
        ("${A:-}", {}, ""),
        ("h1:${P},h2:${P}", {"P": "9"}, "h1:9,h2:9"),
        ("$A and $", {}, "$A and $"),  # only ${...} is a reference
        ("${A}", {"A": "${B}"}, "${B}"),  # values are not expanded again
    ],
)
def test_expand_env(text: str, env: dict[str, str], expected: str) -> None:
    assert expand_env(text, env) == (expected, [])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("${MISSING}", "MISSING is not set"),
        ("${A B}", "not a variable reference"),
        ("${1A}", "not a variable reference"),
        ("${A", "is not closed"),
    ],
)
def test_expand_env_problems(text: str, fragment: str) -> None:
    _, problems = expand_env(text, {})
    assert len(problems) == 1 and fragment in problems[0]


def test_redacted() -> None:
    client = {
        "security.protocol": "SASL_SSL",
        "sasl.username": "svc",
        "sasl.password": "hunter2",
        "sasl.jaas.config": "org.apache... password=hunter2;",
        "ssl.key.password": "k",
        "ssl.key.pem": "-----BEGIN",
        "sasl.oauthbearer.client.secret": "s",
    }
    shown = redacted(client)
    assert shown["security.protocol"] == "SASL_SSL" and shown["sasl.username"] == "svc"
    assert {k for k, v in shown.items() if v == "***"} == set(client) - {
        "security.protocol",
        "sasl.username",
    }
    assert redacted([("sasl.password", "x")]) == {"sasl.password": "***"}
    assert not is_secret("bootstrap.servers")


def test_config_is_built(tmp_path: Path) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        textwrap.dedent("""
            clusters:
              local:
                bootstrap: "${BOOT:-127.0.0.1:9092}"
                client: {sasl.password: "${PW}", retries: 3, enable.idempotence: true}
                vars: {env: dev}
                limits: {max_broker_partitions: 10}
                policy: {allow_delete: true, ignore: ['^_', '^tmp-']}
        """)
    )
    config, found = load_repo_config(tmp_path, {"PW": "secret"})
    assert found == [] and config is not None
    local = config.clusters["local"]
    assert local.bootstrap == "127.0.0.1:9092"
    assert dict(local.client) == {
        "enable.idempotence": "true",
        "retries": "3",
        "sasl.password": "secret",
    }
    assert local.vars == {"env": "dev"}
    assert local.limits == Limits(max_broker_partitions=10)
    assert local.policy == Policy(allow_delete=True, ignore=("^_", "^tmp-"))
    assert config.topics_dir == tmp_path / "topics"


def test_a_clusters_quotas_are_read_with_their_places_and_absent_means_none(
    tmp_path: Path,
) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "reconciler.yaml").write_text(
        textwrap.dedent("""
            clusters:
              prod:
                bootstrap: 127.0.0.1:9092
                quotas:
                  - user: billing
                    producer_byte_rate: 1048576
                    request_percentage: 33.5
                  - {user: <default>, client_id: app, controller_mutation_rate: 10}
                  - client_id: <default>
              dev:
                bootstrap: 127.0.0.1:9093
              empty:
                bootstrap: 127.0.0.1:9094
                quotas: []
        """)
    )
    config, found = load_repo_config(tmp_path, {})
    assert found == [] and config is not None
    quotas = config.clusters["prod"].quotas
    assert quotas is not None
    assert [(q.entity.text, q.values) for q in quotas] == [
        ("user=billing", (("producer_byte_rate", 1048576.0), ("request_percentage", 33.5))),
        ("user=<default>,client-id=app", (("controller_mutation_rate", 10.0),)),
        ("client-id=<default>", ()),
    ]
    assert [str(q.location) for q in quotas] == [
        "reconciler.yaml:6:9",
        "reconciler.yaml:9:9",
        "reconciler.yaml:10:9",
    ]
    assert quotas[1].entity.parts == (("user", None), ("client-id", "app"))
    assert config.clusters["dev"].quotas is None  # never read nor changed
    assert config.clusters["empty"].quotas == ()  # every quota managed: all removed
