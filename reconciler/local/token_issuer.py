"""The OAuth 2.0 token issuer of `local up --security oauth`.

Run as `python -m reconciler.local.token_issuer CONFIG` (sidecars.py starts it).

Two endpoints on 127.0.0.1, enough for Kafka's OIDC validator and the clients' OIDC flow:

- `POST /token`: the client-credentials grant (RFC 6749 4.4); the client authenticates with
  HTTP Basic or with `client_id`/`client_secret` in the form. A signed RS256 JWT comes back with
  `sub` = the client id, `aud` and `iss` from the config, `scope` as asked, valid one hour.
- `GET /jwks`: the public key the brokers verify tokens with.

CONFIG (JSON, 0600, written by security.py) holds the port, issuer, audience, the clients'
secrets and the signing key's file. `--port` and `--issuer`/`--audience` override them: the
tests run a second issuer whose tokens the brokers must refuse. Nothing is logged but the
request line; a token or secret never is.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import secrets
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from reconciler.local.jwt_signing import SigningKey

LIFETIME = 3600  # seconds a token is valid


class Issuer:
    def __init__(self, config: dict[str, Any], port: int, issuer: str, audience: str) -> None:
        self.key = SigningKey.from_json(Path(config["key"]).read_text())
        self.clients: dict[str, str] = dict(config["clients"])
        self.port = port
        self.issuer = issuer
        self.audience = audience

    def client(self, headers: Any, form: dict[str, str]) -> str | None:
        """The authenticated client id, or None."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        auth = headers.get("Authorization", "")
        if auth.startswith("Basic "):
            try:
                pair = base64.b64decode(auth[6:], validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
            client_id, _, secret = (urllib.parse.unquote_plus(p) for p in pair.partition(":"))
        expected = self.clients.get(client_id or "")
        if expected is None or secret is None:
            return None
        return client_id if secrets.compare_digest(expected, secret) else None

    def grant(self, client_id: str, scope: str) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": self.issuer, "sub": client_id, "aud": self.audience, "azp": client_id,
            "iat": now, "nbf": now, "exp": now + LIFETIME, "scope": scope,
            "jti": secrets.token_hex(8),
        }  # fmt: skip
        return {
            "access_token": self.key.token(claims),
            "token_type": "Bearer",
            "expires_in": LIFETIME,
            "scope": scope,
        }


def handler(issuer: Issuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/jwks":
                self._send(200, {"keys": [issuer.key.jwk()]})
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:
            if self.path.split("?")[0] != "/token":
                self._send(404, {"error": "not_found"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, 65536)).decode(errors="replace")
            form = dict(urllib.parse.parse_qsl(body))
            if form.get("grant_type") != "client_credentials":
                self._send(400, {"error": "unsupported_grant_type"})
                return
            client_id = issuer.client(self.headers, form)
            if client_id is None:
                self._send(401, {"error": "invalid_client",
                                 "error_description": "client authentication failed"})  # fmt: skip
                return
            self._send(200, issuer.grant(client_id, form.get("scope", "")))

        def log_message(self, format: str, *args: Any) -> None:
            # the request line only: never a header (Basic credentials) or a body
            sys.stderr.write(f"{self.command} {self.path.split('?')[0]}\n")

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="reconciler.local.token_issuer")
    parser.add_argument("config", type=Path)
    parser.add_argument("--port", type=int)
    parser.add_argument("--issuer")
    parser.add_argument("--audience")
    args = parser.parse_args(argv)
    config = json.loads(args.config.read_text())
    port = args.port or int(config["port"])
    issuer_name = args.issuer or (
        config["issuer"] if args.port is None else f"http://127.0.0.1:{port}"
    )
    issuer = Issuer(config, port, issuer_name, args.audience or config["audience"])
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(issuer))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
