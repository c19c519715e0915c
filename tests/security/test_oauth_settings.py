"""OAUTHBEARER `client:` settings reconciler cannot log in with: one sentence each, before any
connection (the bootstrap address is a closed port), exit 1, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import write_repo
from tests.spec_repo import run_cli

GOOD = {
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.oauthbearer.method": "oidc",
    "sasl.oauthbearer.client.id": "ci",
    "sasl.oauthbearer.client.secret": "s3cret-value",
    "sasl.oauthbearer.token.endpoint.url": "http://127.0.0.1:9/token",
}
CASES = {
    "no method": (
        {k: v for k, v in GOOD.items() if k != "sasl.oauthbearer.method"},
        "error: cluster 'sec': sasl.mechanism OAUTHBEARER needs sasl.oauthbearer.method: oidc "
        "with sasl.oauthbearer.client.id, client.secret and token.endpoint.url in its `client:` "
        "settings (librdkafka's unsecured test tokens are not supported).",
    ),
    "no secret, no endpoint": (
        {k: v for k, v in GOOD.items() if "secret" not in k and "endpoint" not in k},
        "error: cluster 'sec': sasl.oauthbearer.method oidc needs "
        "sasl.oauthbearer.client.secret, sasl.oauthbearer.token.endpoint.url in its `client:` "
        "settings.",
    ),
    "another grant": (
        {**GOOD, "sasl.oauthbearer.grant.type": "urn:ietf:params:oauth:grant-type:jwt-bearer"},
        "error: cluster 'sec': sasl.oauthbearer.grant.type "
        "'urn:ietf:params:oauth:grant-type:jwt-bearer' is not supported; reconciler logs in "
        "with the client-credentials grant (client_credentials).",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_settings_reconciler_cannot_use(tmp_path: Path, case: str) -> None:
    client, sentence = CASES[case]
    repo = write_repo(tmp_path, "127.0.0.1:9", "o.", client, [{"name": "o.a"}])
    result = run_cli(repo, "127.0.0.1:9", "plan", "-c", "sec")
    assert result.code == 1
    assert [line for line in result.stderr.splitlines() if line.strip()] == [sentence]
    assert "s3cret-value" not in result.stdout + result.stderr
