"""Whether each declared SCRAM user's secret is the one reconciler set (`help access`).

The one place planning reads a secret: the `${VAR}` a user's `password:` names, from the
environment, compared with the salted digest on record (cluster/secret_digest.py). Only the
verdict leaves this module: "same", "changed", or "unknown" (Kafka has the credential but
no digest is on record: reconciler did not set it, or its record was lost).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from reconciler.cluster.protocol.scram import SecretDigest
from reconciler.cluster.secret_digest import digest_of, matches
from reconciler.spec.scram_users import ScramUser

Verdict = Literal["same", "changed", "unknown"]


def secret_from(variable: str) -> bytes:
    """The secret in `variable`, read now (the spec loader checked it is set; b"" if not)."""
    return os.environ.get(variable, "").encode()


def verdicts(
    users: Sequence[ScramUser], digests: Sequence[SecretDigest]
) -> dict[tuple[str, str], Verdict]:
    """Each user's secret against the digest on record for its credential."""
    on_record = {d.key: d for d in digests}
    found: dict[tuple[str, str], Verdict] = {}
    for user in users:
        record = on_record.get(user.key)
        if record is None:
            found[user.key] = "unknown"
        else:
            found[user.key] = "same" if matches(record, secret_from(user.variable)) else "changed"
    return found


def fingerprint(variable: str) -> str:
    """`salt:digest` of the secret in `variable` now, with a fresh salt: what a saved plan
    carries so that its apply can tell the secret is still the one planned."""
    record = digest_of("", "", secret_from(variable))
    return f"{record.salt}:{record.digest}"


def same_secret(variable: str, secret_digest: str) -> bool:
    """Whether `variable` holds the secret `secret_digest` (a `fingerprint`) was made of."""
    salt, _, digest = secret_digest.partition(":")
    return matches(SecretDigest("", "", salt, digest), secret_from(variable))
