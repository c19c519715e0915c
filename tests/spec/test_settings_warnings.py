"""validate's warnings about a cluster's settings: a secret written literally in reconciler.yaml
(R509) and a SASL login that would cross the network unencrypted (R510), and their absence for
`${VAR}` references, loopback bootstraps and SASL_SSL."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler import redaction
from reconciler.diagnostics import Diagnostic, Severity
from reconciler.spec.literal_secrets import holds_secret
from reconciler.spec.loader import load_repo
from tests import yaml_text
from tests.spec.helpers import run_cli

SECRET = "Tr0ub4dor-and-3"  # a literal value: never in any message


def diagnostics(
    tmp_path: Path,
    client: dict[str, object],
    bootstrap: str = "kafka-1.example.com:9093",
    env: dict[str, str] | None = None,
) -> list[Diagnostic]:
    (tmp_path / "topics").mkdir(exist_ok=True)
    cluster = {"bootstrap": bootstrap, "client": client}
    text = yaml_text.safe_dump({"clusters": {"prod": cluster}}, sort_keys=False)
    (tmp_path / "reconciler.yaml").write_text(text)
    found = list(load_repo(tmp_path, "prod", env=env or {}).diagnostics)
    assert all(SECRET not in d.message for d in found), found
    return found


@pytest.mark.parametrize(
    "key",
    [
        "sasl.password",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "sasl.oauthbearer.client.secret",
        # by name, so settings other branches add are covered: any key saying so
        "aws.secret.access.key",
        "aws.session.token",
        "sasl.oauthbearer.client.credential",
        "SSL.KEYSTORE.PASSWD",
        "ssl.key.pem",
        "ssl.keystore.key",
        "sasl.oauthbearer.assertion.private.key.passphrase",
    ],
)
def test_a_secret_written_literally_is_a_warning_at_its_line(tmp_path: Path, key: str) -> None:
    found = diagnostics(tmp_path, {"security.protocol": "SASL_SSL", key: SECRET})
    assert [(d.code, d.severity) for d in found] == [("R509", Severity.WARNING)]
    assert found[0].location is not None and found[0].location.line == 6
    assert f"the secret {key} of cluster prod is written literally in reconciler.yaml" in (
        found[0].message
    )
    assert holds_secret(key) and redaction.is_secret(key)  # what is flagged is also redacted


@pytest.mark.parametrize(
    ("value", "warned"),
    [
        ("${PROD_PASSWORD}", False),
        ("${PROD_PASSWORD:-}", False),  # the documented empty default
        ("", False),
        (f"${{PROD_PASSWORD:-{SECRET}}}", True),  # a literal default is in the file too
        (f"{SECRET}${{SUFFIX}}", True),
        (12345678, True),  # a number is a literal as well
    ],
)
def test_only_what_the_file_itself_holds_is_literal(
    tmp_path: Path, value: object, warned: bool
) -> None:
    env = {"PROD_PASSWORD": "x" * 9, "SUFFIX": "-2"}
    found = diagnostics(tmp_path, {"sasl.password": value}, env=env)
    assert [d.code for d in found] == (["R509"] if warned else [])


@pytest.mark.parametrize(
    "key",
    [
        "ssl.keystore.location",
        "ssl.key.location",
        "sasl.oauthbearer.token.endpoint.url",
        "ssl.keystore.type",
        "sasl.username",
        "sasl.oauthbearer.client.id",
    ],
)
def test_where_a_secret_is_kept_is_not_one(tmp_path: Path, key: str) -> None:
    assert diagnostics(tmp_path, {key: "/etc/kafka/thing"}) == []


@pytest.mark.parametrize(
    ("key", "value", "warned"),
    [
        ("sasl.jaas.config", f'PlainLoginModule required username="u" password="{SECRET}";', True),
        ("sasl.jaas.config", 'PlainLoginModule required username="u" password="${PW}";', False),
        ("sasl.jaas.config", 'Krb5LoginModule required useKeyTab=true keyTab="/k.tab";', False),
        ("sasl.oauthbearer.config", f"clientId=reconciler clientSecret={SECRET}", True),
        ("sasl.oauthbearer.config", "clientId=reconciler clientSecret=${SECRET}", False),
    ],
)
def test_the_secret_pairs_of_a_jaas_line_are_checked(
    tmp_path: Path, key: str, value: str, warned: bool
) -> None:
    found = diagnostics(tmp_path, {key: value}, env={"PW": "x" * 9, "SECRET": "y" * 9})
    assert [d.code for d in found] == (["R509"] if warned else [])


def test_a_malformed_reference_in_a_secret_does_not_quote_the_value(tmp_path: Path) -> None:
    found = diagnostics(tmp_path, {"sasl.password": f"{SECRET}${{oops"})
    assert [d.code for d in found] == ["R505"]  # and diagnostics() checked SECRET is not shown
    found = diagnostics(tmp_path, {"sasl.password": f"${{{SECRET}}}"})
    assert [d.code for d in found] == ["R505"]


@pytest.mark.parametrize(
    ("bootstrap", "client", "remote"),
    [
        ("kafka-1.example.com:9092", {"sasl.mechanism": "PLAIN"}, "kafka-1.example.com:9092"),
        ("10.0.0.7:9092", {"sasl.mechanism": "SCRAM-SHA-256"}, "10.0.0.7:9092"),
        ("kafka:9092", {"sasl.mechanism": "SCRAM-SHA-512"}, "kafka:9092"),
        ("kafka:9092", {"sasl.mechanisms": "OAUTHBEARER"}, "kafka:9092"),
        ("kafka:9092", {"sasl.mechanism": "plain"}, "kafka:9092"),
        ("127.0.0.1:9092,kafka-2:9092", {"sasl.mechanism": "PLAIN"}, "kafka-2:9092"),
        ("[2001:db8::1]:9092", {"sasl.mechanism": "PLAIN"}, "[2001:db8::1]:9092"),
        ("${BOOT}", {"sasl.mechanism": "PLAIN"}, "kafka-9.example.com:9092"),  # expanded
    ],
)
def test_sasl_plaintext_to_a_remote_address_is_a_warning(
    tmp_path: Path, bootstrap: str, client: dict[str, object], remote: str
) -> None:
    settings = {"security.protocol": "SASL_PLAINTEXT", **client}
    found = diagnostics(tmp_path, settings, bootstrap, env={"BOOT": "kafka-9.example.com:9092"})
    assert [(d.code, d.severity) for d in found] == [("R510", Severity.WARNING)]
    assert f"over SASL_PLAINTEXT to {remote}, not a loopback address" in found[0].message
    assert found[0].location is not None and found[0].location.line == 5  # security.protocol


def test_a_bootstrap_entrys_sasl_plaintext_prefix_counts(tmp_path: Path) -> None:
    found = diagnostics(tmp_path, {"sasl.mechanism": "PLAIN"}, "SASL_PLAINTEXT://kafka:9092")
    assert [d.code for d in found] == ["R510"]
    assert found[0].location is not None and found[0].location.line == 3  # the bootstrap


CLEAR_PLAIN = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}


@pytest.mark.parametrize(
    ("bootstrap", "client"),
    [
        ("127.0.0.1:9092", CLEAR_PLAIN),
        ("127.9.8.7:9092", CLEAR_PLAIN),
        ("[::1]:9092", CLEAR_PLAIN),
        ("[::ffff:127.0.0.1]:9092", {**CLEAR_PLAIN, "security.protocol": "sasl_plaintext"}),
        ("localhost:9092,LOCALHOST.:9093", CLEAR_PLAIN),
        ("kafka:9093", {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}),
        ("kafka:9092", {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"}),
        ("kafka:9092", {"security.protocol": "SASL_PLAINTEXT"}),  # GSSAPI by default
        ("kafka:9092", {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": " "}),
        ("kafka:9092", {"sasl.mechanism": "PLAIN"}),  # PLAINTEXT: no SASL at all
    ],
)  # fmt: skip
def test_loopback_sasl_ssl_and_kerberos_are_not_warned_about(
    tmp_path: Path, bootstrap: str, client: dict[str, object]
) -> None:
    assert diagnostics(tmp_path, client, bootstrap) == []


def test_validate_prints_both_warnings_and_exits_0(tmp_path: Path) -> None:
    diagnostics(
        tmp_path,
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.password": SECRET},
    )
    code, output = run_cli(["--repo", str(tmp_path), "--debug", "validate"])
    assert code == 0, output
    assert "reconciler.yaml:5:26: warning[R510]: cluster prod logs in with SASL PLAIN" in output
    assert "reconciler.yaml:7:22: warning[R509]: the secret sasl.password" in output
    assert SECRET not in output
