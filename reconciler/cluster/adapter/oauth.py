"""OAuth 2.0 / OIDC login (SASL OAUTHBEARER): one token source for both Kafka clients.

`client:` settings name librdkafka's OIDC client-credentials flow:

    sasl.mechanism: OAUTHBEARER
    sasl.oauthbearer.method: oidc
    sasl.oauthbearer.client.id / client.secret / token.endpoint.url / scope / extensions

reconciler fetches the token itself (`TokenSource`) and hands it to librdkafka through
`oauth_cb` and to kafka-python (KIP-455 reassignments) through a token provider, instead of
letting librdkafka fetch on its own thread:
- both clients log in with the same token, fetched once per lifetime;
- a wrong client secret or an unreachable endpoint is one sentence within seconds (the HTTP
  call is bounded), before any Kafka connection: librdkafka would retry it until the request
  timeout;
- every token is remembered for redaction (redaction.py) the moment it arrives, so no log,
  error or `--debug` line can show it.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reconciler import redaction
from reconciler.errors import ClusterError

if TYPE_CHECKING:  # kafka-python loads only where reassignments need it
    from urllib.error import HTTPError

    from kafka.net.sasl.oauth import AbstractTokenProvider

PREFIX = "sasl.oauthbearer."
# librdkafka's OIDC properties this module takes over (all of its client-credentials flow).
OIDC_KEYS = frozenset(
    PREFIX + k
    for k in (
        "method", "client.id", "client.secret", "token.endpoint.url", "scope", "extensions",
        "grant.type",
    )
)  # fmt: skip
REFRESH_MARGIN = 0.8  # refresh at 80% of a token's lifetime, as librdkafka does


@dataclass(frozen=True, slots=True)
class Oidc:
    """The client-credentials settings of one cluster's `client:`."""

    cluster: str
    token_url: str
    client_id: str
    client_secret: str
    scope: str | None
    extensions: tuple[tuple[str, str], ...]
    cafile: str | None

    def where(self) -> str:
        return f"token endpoint {self.token_url} (client id '{self.client_id}')"


def settings(cluster: str, client: Mapping[str, str]) -> Oidc | None:
    """The OIDC settings when `client:` asks for OAUTHBEARER with method oidc, else None.
    A missing setting is an error naming it."""
    mechanism = client.get("sasl.mechanism", client.get("sasl.mechanisms", ""))
    if mechanism.upper() != "OAUTHBEARER":
        return None
    if client.get(PREFIX + "method", "").lower() != "oidc":
        raise ClusterError(
            f"cluster '{cluster}': sasl.mechanism OAUTHBEARER needs sasl.oauthbearer.method: "
            "oidc with sasl.oauthbearer.client.id, client.secret and token.endpoint.url in its "
            "`client:` settings (librdkafka's unsecured test tokens are not supported)."
        )
    grant = client.get(PREFIX + "grant.type", "client_credentials")
    if grant != "client_credentials":
        raise ClusterError(
            f"cluster '{cluster}': sasl.oauthbearer.grant.type {grant!r} is not supported; "
            "reconciler logs in with the client-credentials grant (client_credentials)."
        )
    missing = [
        PREFIX + k
        for k in ("client.id", "client.secret", "token.endpoint.url")
        if not client.get(PREFIX + k)
    ]
    if missing:
        raise ClusterError(
            f"cluster '{cluster}': sasl.oauthbearer.method oidc needs {', '.join(missing)} in "
            "its `client:` settings."
        )
    pairs = [p.split("=", 1) for p in client.get(PREFIX + "extensions", "").split(",") if p]
    return Oidc(
        cluster=cluster,
        token_url=client[PREFIX + "token.endpoint.url"],
        client_id=client[PREFIX + "client.id"],
        client_secret=client[PREFIX + "client.secret"],
        scope=client.get(PREFIX + "scope") or None,
        extensions=tuple((k.strip(), v.strip()) for k, v in (p for p in pairs if len(p) == 2)),
        cafile=client.get("https.ca.location") or client.get("ssl.ca.location"),
    )


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    expires_at: float  # epoch seconds
    principal: str  # the token's `sub`
    fetched_at: float

    def fresh(self, now: float) -> bool:
        return now < self.fetched_at + REFRESH_MARGIN * (self.expires_at - self.fetched_at)


class TokenSource:
    """Tokens for one cluster's settings, fetched when none is fresh (thread-safe)."""

    def __init__(self, oidc: Oidc, seconds: float) -> None:
        self.oidc = oidc
        self.seconds = min(seconds, 10.0)  # an identity provider answers in well under that
        self._lock = threading.Lock()
        self._token: Token | None = None
        redaction.remember([oidc.client_secret])

    def token(self) -> Token:
        with self._lock:
            if self._token is None or not self._token.fresh(time.time()):
                self._token = self._fetch()
            return self._token

    def _fetch(self) -> Token:
        # loaded only by clusters that log in with OAuth (http.client and ssl: ~15 ms)
        import ssl
        import urllib.error
        import urllib.request

        form = {"grant_type": "client_credentials"}
        if self.oidc.scope:
            form["scope"] = self.oidc.scope
        # RFC 6749 2.3.1: both parts form-encoded before the Basic scheme's base64
        pair = (self.oidc.client_id, self.oidc.client_secret)
        basic = ":".join(urllib.parse.quote_plus(p) for p in pair)
        request = urllib.request.Request(
            self.oidc.token_url,
            data=urllib.parse.urlencode(form).encode(),
            headers={
                "Authorization": "Basic " + base64.b64encode(basic.encode()).decode(),
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        context = ssl.create_default_context(cafile=self.oidc.cafile) if self.oidc.cafile else None
        started = time.time()
        try:
            with urllib.request.urlopen(request, timeout=self.seconds, context=context) as answer:
                body = answer.read(1 << 20)
        except urllib.error.HTTPError as exc:
            raise ClusterError(self._refused(exc)) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", None) or exc
            if isinstance(why, ssl.SSLError):
                raise ClusterError(
                    f"the TLS handshake with the {self.oidc.where()} of cluster "
                    f"'{self.oidc.cluster}' failed ({why}): check https.ca.location (the CA "
                    "that signed the identity provider's certificate) and the endpoint's host."
                ) from None
            raise ClusterError(
                f"could not reach the {self.oidc.where()} of cluster '{self.oidc.cluster}' "
                f"({why}): check sasl.oauthbearer.token.endpoint.url and that the identity "
                "provider is running and reachable from here."
            ) from None
        return self._token_of(body, started)

    def _refused(self, exc: HTTPError) -> str:
        try:
            said = json.loads(exc.read(65536) or b"{}")
        except ValueError:
            said = {}
        code = said.get("error", "") if isinstance(said, dict) else ""
        reason = f"HTTP {exc.code}{f' {code}' if code else ''}"
        if exc.code in (400, 401, 403) and code in ("", "invalid_client", "unauthorized_client"):
            check = "sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret"
        elif code == "invalid_scope":
            check = "sasl.oauthbearer.scope"
        else:
            check = "sasl.oauthbearer.token.endpoint.url and the identity provider's log"
        return (
            f"the {self.oidc.where()} of cluster '{self.oidc.cluster}' refused to issue a "
            f"token ({reason}): check {check} in its `client:` settings."
        )

    def _token_of(self, body: bytes, started: float) -> Token:
        try:
            answer: Any = json.loads(body)
            value = str(answer["access_token"])
        except (ValueError, KeyError, TypeError):
            raise ClusterError(
                f"the {self.oidc.where()} of cluster '{self.oidc.cluster}' answered without an "
                "access_token: check sasl.oauthbearer.token.endpoint.url."
            ) from None
        redaction.remember([value])  # before anything can log it
        claims = _claims(value)
        lifetime = answer.get("expires_in")
        if isinstance(lifetime, int | float) and lifetime > 0:
            expires = started + float(lifetime)
        else:
            expires = float(claims.get("exp", started + 300))
        return Token(value, expires, str(claims.get("sub", self.oidc.client_id)), started)

    # --- the two clients -----------------------------------------------------------------------

    def librdkafka_callback(self) -> Any:
        """librdkafka's `oauth_cb`: (token, expiry in epoch seconds, principal, extensions)."""
        extensions = dict(self.oidc.extensions)

        def callback(_: str) -> tuple[str, float, str, dict[str, str]]:
            token = self.token()
            return token.value, token.expires_at, token.principal, extensions

        return callback

    def kafka_python_provider(self) -> AbstractTokenProvider:
        """kafka-python's `sasl_oauth_token_provider`."""
        from kafka.net.sasl.oauth import AbstractTokenProvider

        source = self

        class Provider(AbstractTokenProvider):
            def token(self) -> str:
                return source.token().value

            def extensions(self) -> dict[str, str]:
                return dict(source.oidc.extensions)

        return Provider()


def _claims(token: str) -> dict[str, Any]:
    """A JWT's claims, unverified (only `sub` and `exp` are read: the broker verifies)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


_sources: dict[Oidc, TokenSource] = {}
_sources_lock = threading.Lock()


def source(oidc: Oidc, seconds: float) -> TokenSource:
    """The token source of these settings, shared by every client of the process."""
    with _sources_lock:
        if oidc not in _sources:
            _sources[oidc] = TokenSource(oidc, seconds)
        return _sources[oidc]
