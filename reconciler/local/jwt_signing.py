"""RS256 JSON Web Tokens for the local token issuer: an RSA key made at `local up`, its JWKS.

Python's own big integers are all RSA needs (key generation by Miller-Rabin, signing by
`pow`), so the local issuer adds no dependency. It signs tokens for a throwaway cluster on
127.0.0.1; it is not meant to guard anything else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BITS = 2048
EXPONENT = 65537
# DER of DigestInfo{sha256} up to the digest (RFC 8017, section 9.2, note 1)
_SHA256_PREFIX = bytes.fromhex("3031300d060960864801650304020105000420")
_SMALL_PRIMES = tuple(
    p for p in range(3, 2000, 2) if all(p % d for d in range(3, math.isqrt(p) + 1, 2))
)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _int_bytes(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    n: int
    e: int
    d: int

    def jwk(self) -> dict[str, str]:
        """The public half, as a JWKS entry."""
        return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                "n": b64url(_int_bytes(self.n)), "e": b64url(_int_bytes(self.e))}  # fmt: skip

    def sign(self, message: bytes) -> bytes:
        """RSASSA-PKCS1-v1_5 with SHA-256 (JWS "RS256")."""
        size = (self.n.bit_length() + 7) // 8
        digest = _SHA256_PREFIX + hashlib.sha256(message).digest()
        encoded = b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest
        return pow(int.from_bytes(encoded, "big"), self.d, self.n).to_bytes(size, "big")

    def token(self, claims: Mapping[str, Any]) -> str:
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = ".".join(
            b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
        )
        return f"{signing_input}.{b64url(self.sign(signing_input.encode()))}"

    def to_json(self) -> str:
        return json.dumps({"kid": self.kid, "n": self.n, "e": self.e, "d": self.d})

    @staticmethod
    def from_json(text: str) -> SigningKey:
        raw = json.loads(text)
        return SigningKey(str(raw["kid"]), int(raw["n"]), int(raw["e"]), int(raw["d"]))


def _probably_prime(candidate: int, rounds: int = 40) -> bool:
    if any(candidate % p == 0 for p in _SMALL_PRIMES):
        return candidate in _SMALL_PRIMES
    odd, twos = candidate - 1, 0
    while odd % 2 == 0:
        odd, twos = odd // 2, twos + 1
    for _ in range(rounds):
        witness = pow(2 + secrets.randbelow(candidate - 3), odd, candidate)
        if witness in (1, candidate - 1):
            continue
        for _ in range(twos - 1):
            witness = pow(witness, 2, candidate)
            if witness == candidate - 1:
                break
        else:
            return False
    return True


def _prime(bits: int) -> int:
    while True:
        # top two bits set: the product of two such primes has exactly 2 * bits bits
        candidate = secrets.randbits(bits) | (3 << (bits - 2)) | 1
        if _probably_prime(candidate):
            return candidate


def generate(bits: int = BITS) -> SigningKey:
    """A new RSA key with a random key id."""
    while True:
        p, q = _prime(bits // 2), _prime(bits // 2)
        phi = (p - 1) * (q - 1)
        if p != q and math.gcd(EXPONENT, phi) == 1:
            return SigningKey(secrets.token_hex(8), p * q, EXPONENT, pow(EXPONENT, -1, phi))
