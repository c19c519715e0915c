"""SCRAM credentials as Kafka keeps them, and reconciler's record of their secrets
(`reconciler help access`).

DescribeUserScramCredentials (KIP-554) answers a user's mechanisms and iteration counts only,
never the salt or keys, so Kafka cannot say whether a secret changed. reconciler keeps a salted
digest of each secret it set (cluster/secret_digest.py) in its own compacted topic
`_reconciler_users` (reserved.py), one record per user and mechanism: the next plan compares
the `${VAR}`'s value with it. The digest is neither the secret nor Kafka's stored key: a
PBKDF2 of its own, with its own salt, so reading the topic does not give a login.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, order=True)
class ScramCredential:
    """One credential Kafka shows: a user, a mechanism (SCRAM-SHA-256, SCRAM-SHA-512) and
    its iterations."""

    user: str
    mechanism: str
    iterations: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.user, self.mechanism)


@dataclass(frozen=True, slots=True)
class SecretDigest:
    """reconciler's record of the secret it last set for a credential: PBKDF2-HMAC-SHA256 of
    the secret with `salt` (both base64), never the secret itself."""

    user: str
    mechanism: str
    salt: str
    digest: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.user, self.mechanism)


@dataclass(frozen=True, slots=True)
class ClusterScram:
    """The cluster's SCRAM credentials (sorted) and the digests on record for them.
    `digests_read` False: from a snapshot, which keeps no digest (nor salt, nor secret), so
    whether a secret changed is not known and not planned."""

    credentials: tuple[ScramCredential, ...]
    digests: tuple[SecretDigest, ...] = ()
    digests_read: bool = True


@dataclass(frozen=True, slots=True)
class ScramAlteration:
    """One credential set (`secret` given) or deleted (`secret` None): an item of
    AlterUserScramCredentials. The secret is kept out of repr and comparisons."""

    user: str
    mechanism: str
    iterations: int
    secret: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.user, self.mechanism)
