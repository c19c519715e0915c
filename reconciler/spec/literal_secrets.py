"""R509: a secret written literally in reconciler.yaml instead of read from a variable.

reconciler.yaml lives in git, so a password written there is readable by everyone who can
clone the repository, in every fork, and in git's history after it is removed. A secret's value
should be a `${VAR}` reference, the variable set where the command runs (a CI secret).

Which settings hold secrets is decided by the key's name, so settings added later (keystores,
cloud login keys) are covered without a list: a name saying password, passwd, passphrase,
secret, token or credential, or naming a private key in PEM (`ssl.key.pem`, `ssl.keystore.key`,
`*.private.key`); not a name of where a secret is kept (`*.location`, `*.file`, `*.path`,
`*.url`). The JAAS line and the OAUTHBEARER config string (`sasl.jaas.config`,
`sasl.oauthbearer.config`) hold `name=value` pairs: a pair whose name says secret is checked
the same way. Every such key is also one reconciler.redaction hides (a test keeps them so).

What is literal is the value as written with its references taken out and their defaults kept:
`${PW:-hunter2}` writes hunter2 in the file, `${PW:-}` writes nothing. The message names the
setting and never shows its value.
"""

from __future__ import annotations

import re

from reconciler.diagnostics import Diagnostic, Location
from reconciler.redaction import inner_pairs
from reconciler.spec import r_codes

_SECRET = re.compile(
    r"password|passwd|passphrase|secret|token|credential|(?:^|\.)(?:ssl\.key\.pem|keystore\.key|"
    r"private\.key)$",
    re.IGNORECASE,
)
_WHERE = re.compile(r"\.(?:location|file|path|url)$", re.IGNORECASE)
_PAIRS = re.compile(r"jaas|oauthbearer\.config", re.IGNORECASE)


def holds_secret(key: str) -> bool:
    """Whether a `client:` key's value is itself a secret (not where one is kept)."""
    return _SECRET.search(key) is not None and _WHERE.search(key) is None


def literal_secret(
    cluster: str, key: str, raw: str, written: str, at: Location
) -> Diagnostic | None:
    """R509 when the value of `key` holds a secret written in the file. `raw` is the value as
    written, `written` the same with every `${...}` reference taken out and defaults kept."""
    secret = reference = None
    if holds_secret(key):
        if written.strip():
            secret, reference = key, f'"${{{variable(cluster, key)}}}"'
    elif _PAIRS.search(key):  # name=value pairs: the first secret one written out
        names = [n for n, value in inner_pairs(written) if holds_secret(n) and value.strip()]
        if names:
            secret = f"{key} ({names[0]}=...)"
            reference = f'{names[0]}="${{{variable(cluster, names[0])}}}"'
    if secret is None:
        return None
    how = "written literally"
    if "${" in raw:
        how = "partly written literally (a default, or text beside a reference)"
    return r_codes.LITERAL_SECRET(
        f"the secret {secret} of cluster {cluster} is {how} in reconciler.yaml, so everyone "
        f"who can read the repository has it: write a reference such as {reference} "
        "instead, set that variable where reconciler runs (a CI secret), and change the "
        "secret (git's history keeps the old value)",
        at,
    )


def variable(cluster: str, key: str) -> str:
    """A variable name to suggest for a cluster's setting: PROD_SASL_PASSWORD."""
    name = re.sub(r"[^A-Z0-9]+", "_", f"{cluster}_{key}".upper()).strip("_")
    return f"_{name}" if name[:1].isdigit() else name
