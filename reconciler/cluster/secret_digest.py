"""The salted digest reconciler keeps of a SCRAM secret it set (protocol/scram.py): drift of a
secret Kafka will not show is decided by it, never by the secret.

PBKDF2-HMAC-SHA256, 100,000 iterations, a random 16-byte salt per record: about 35 ms per
credential on the benchmark machine (`python -c "import hashlib,os,timeit; print(timeit.timeit(
lambda: hashlib.pbkdf2_hmac('sha256', b'x', os.urandom(16), 100_000), number=10) / 10)"`),
so a guess against a leaked record costs as much, and a plan of a few hundred users seconds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

from reconciler.cluster.protocol.scram import SecretDigest

ROUNDS = 100_000


def _derive(secret: bytes, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", secret, salt, ROUNDS)


def digest_of(user: str, mechanism: str, secret: bytes) -> SecretDigest:
    """A new record of `secret` with a fresh salt."""
    salt = os.urandom(16)
    return SecretDigest(user, mechanism, _b64(salt), _b64(_derive(secret, salt)))


def matches(record: SecretDigest, secret: bytes) -> bool:
    """Whether `secret` is the one `record` was made of (compared in constant time)."""
    try:
        salt, want = base64.b64decode(record.salt), base64.b64decode(record.digest)
    except ValueError:
        return False
    return hmac.compare_digest(_derive(secret, salt), want)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
