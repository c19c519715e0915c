"""Secrets of `client:` never shown: not in logs of any library, not in errors, not in files
(Finding 5)."""

from __future__ import annotations

import ast
import io
import logging
import re
from pathlib import Path

from reconciler import redaction
from reconciler.cli.output import Channel
from reconciler.local.state import LocalCluster
from tests.spec_repo import SpecRepo, redacted

PASSWORD = "Hunter2-'quoted'\\slash-pw"  # a quote and a backslash: logged escaped by repr()
KEY_PASSWORD = "Key-Pa55word-9f3e"
CLIENT_SECRET = "oauth-Client-Secret-77ab"
JAAS_PASSWORD = "Jaas-Pa55word-c0de"


def test_secret_values_are_found_by_key_and_inside_jaas_and_oauth_strings() -> None:
    """Finding 5: the values to hide, including the password inside a JAAS line."""
    client = {
        "sasl.password": PASSWORD,
        "sasl.username": "alice-the-user",
        "sasl.jaas.config": f'PlainLoginModule required username="u" password="{JAAS_PASSWORD}";',
        "sasl.oauthbearer.config": f"clientId=app clientSecret={CLIENT_SECRET} scope=x",
        "ssl.key.password": "abc",  # too short to search for: it would blank out words
    }
    found = redaction.secret_values(client)
    assert {PASSWORD, JAAS_PASSWORD, CLIENT_SECRET} <= found
    assert client["sasl.jaas.config"] in found
    assert "alice-the-user" not in found and "abc" not in found
    assert redacted(client)["sasl.password"] == "***"
    assert redacted(client)["sasl.username"] == "alice-the-user"


def test_log_records_of_any_library_are_redacted_in_message_args_and_traceback() -> None:
    """Finding 5: kafka-python logs its configuration dict as an argument (%s, so repr-escaped);
    an exception message may quote a secret; the handler's filter hides both."""
    redaction.remember_client({"sasl.password": PASSWORD, "sasl.jaas.config": JAAS_PASSWORD})
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(redaction.RedactingFilter())
    logger = logging.getLogger("kafka.admin.test_redaction")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.debug("Starting with configuration: %s", {"sasl_plain_password": PASSWORD})
        try:
            raise ValueError(f"bad login {JAAS_PASSWORD}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = out.getvalue()
    assert re.search(r"'sasl_plain_password': [\"']\*\*\*[\"']", text), text
    assert "bad login ***" in text
    for secret in (PASSWORD, repr(PASSWORD)[1:-1], JAAS_PASSWORD):
        assert secret not in text


def test_streams_are_redacted() -> None:
    """Finding 5: what is printed (click.echo, tracebacks) passes through the same redaction."""
    redaction.remember([KEY_PASSWORD])
    out = io.StringIO()
    stream = Channel(out)  # what the CLI's `main` puts in place of sys.stdout and sys.stderr
    stream.write(f"error: key {KEY_PASSWORD} refused\n")
    assert out.getvalue() == "error: key *** refused\n"


def test_every_librdkafka_client_gets_the_python_logger() -> None:
    """Finding 9: a librdkafka client made without `logger=` writes its own `%6|...|FAIL|`
    lines to stderr, past --debug and past redaction; every one in reconciler/ has it."""
    package = Path(__file__).resolve().parent.parent / "reconciler"
    made = 0
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in {"AdminClient", "Producer", "Consumer"}:
                made += 1
                keywords = {k.arg for k in node.keywords}
                assert "logger" in keywords, f"{path}:{node.lineno}: {name}(...) without logger="
    assert made >= 3


def _secret_repo(root: Path, bootstrap: str, ns: str) -> SpecRepo:
    repo = SpecRepo(root, bootstrap, ns)
    repo.write(
        "reconciler.yaml",
        {
            "topics": "topics/",
            "clusters": {
                "test": {
                    "bootstrap": "${KAFKA_BOOTSTRAP}",
                    # Harmless over PLAINTEXT: librdkafka and kafka-python take and ignore them.
                    "client": {
                        "sasl.username": "alice",
                        "sasl.password": PASSWORD,
                        "ssl.key.password": KEY_PASSWORD,
                        "sasl.oauthbearer.client.secret": CLIENT_SECRET,
                    },
                    "policy": {"ignore": [f"^(?!{ns})"]},
                }
            },
        },
    )
    repo.topics({"name": f"{ns}.orders", "partitions": 1, "replication_factor": 1})
    return repo


def test_no_secret_in_anything_plan_snapshot_or_apply_print_or_write(
    kafka1: LocalCluster, ns: str, tmp_path: Path
) -> None:
    """Finding 5: with and without --debug, against a real cluster: kafka-python's DEBUG line
    with its whole configuration is shown, with the password replaced."""
    repo = _secret_repo(tmp_path / "repo", kafka1.bootstrap, ns)
    secrets = [PASSWORD, repr(PASSWORD)[1:-1], KEY_PASSWORD, CLIENT_SECRET]
    written = [tmp_path / "plan.json", tmp_path / "snap.json", tmp_path / "audit.json"]
    printed: list[str] = []
    for debug in ([], ["--debug"]):
        runs = [
            repo.run(*debug, "plan", "-c", "test", "-o", str(written[0])),
            repo.run(*debug, "plan", "-c", "test", "--format", "json"),
            repo.run(*debug, "snapshot", "-c", "test", "-o", str(written[1])),
            repo.run(
                *debug,
                "apply",
                "-c",
                "test",
                str(written[0]),
                "--auto-approve",
                "--audit-json",
                str(written[2]),
            ),
        ]
        for result in runs:
            assert result.code == 0, result.stderr
            printed += [result.stdout, result.stderr]
        if debug:
            shown = "".join(r.stderr for r in runs)
            assert "Starting KafkaAdminClient with configuration" in shown
            # kafka-python gets only what its login needs (client_security.py), so a password
            # key it shows at all is masked
            assert not re.search(r"'(sasl_plain_password|ssl_password)': [\"'](?!\*\*\*)", shown)
        printed += [path.read_text() for path in written]
    everything = "\n".join(printed)
    for secret in secrets:
        assert secret not in everything
