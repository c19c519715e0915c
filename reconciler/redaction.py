"""Secrets never shown: every secret value of `client:` is replaced by '***' wherever it appears.

Redaction is by VALUE, not by where a value is printed: a password reaches output through paths
nobody lists in advance (kafka-python logs its whole configuration at DEBUG, an exception quotes
a JAAS line, librdkafka's `debug` dumps its properties). So each secret `client:` value is
remembered when a `Connection` is made (`remember_client`), and three choke points replace it:

- `RedactingFilter` on every logging handler the CLI installs: the formatted message, its
  arguments, the traceback and the stack of every record, whatever library logged it;
- the CLI's output layer (reconciler/cli/output.py, installed by the CLI's `main`) around
  sys.stdout and sys.stderr: everything printed, tracebacks included;
- `redact(text)` for anything else written (the CLI's JSON files).

Also searched for: the value as repr() and JSON escape it (a password holding a quote or a
backslash is logged escaped) and URL-quoted, and the `key=value` secrets inside a secret value
(`password="..."` of `sasl.jaas.config`, `clientSecret=...` of `sasl.oauthbearer.config`).
Values shorter than MIN_LENGTH are not searched for: they would blank out ordinary words.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from typing import TextIO

REDACTED = "***"
MIN_LENGTH = 4

# Property names that carry credentials in librdkafka / Kafka clients. Over-redacting a
# harmless property (ssl.key.location) costs nothing; leaking a password costs a rotation.
_SECRET_KEY = re.compile(
    r"password|passwd|passphrase|secret|token|credential|jaas|private|ssl\.key|keystore\.key|"
    r"oauthbearer\.config|api\.?key",
    re.IGNORECASE,
)
# `name=value` / `name="value"` pairs inside a JAAS line or an OAUTHBEARER config string.
_INNER_PAIR = re.compile(r"""([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s;,"']+))""")


class _Remembered:
    """The secret values seen so far, and one regular expression matching any of them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.values: set[str] = set()
        self.pattern: re.Pattern[str] | None = None


_remembered = _Remembered()
_HANDLER = "reconciler.redaction"


# Where a secret is sent, not a secret: the error sentences name it (e.g. the OAuth token
# endpoint, whose property name holds "token").
_PUBLIC_KEY = re.compile(r"endpoint\.url$", re.IGNORECASE)


def is_secret(key: str) -> bool:
    """Whether a client property's value must never be shown."""
    return _SECRET_KEY.search(key) is not None and _PUBLIC_KEY.search(key) is None


def secret_values(client: Mapping[str, str] | Iterable[tuple[str, str]]) -> set[str]:
    """The values in these client properties that must never be shown."""
    pairs = client.items() if isinstance(client, Mapping) else client
    found: set[str] = set()
    for key, value in pairs:
        if not is_secret(key):
            continue
        found.add(value)
        found.update(inner for name, inner in inner_pairs(value) if is_secret(name))
    return {value for value in found if len(value) >= MIN_LENGTH}


def inner_pairs(value: str) -> Iterator[tuple[str, str]]:
    """The `name=value` pairs inside a JAAS line or an OAUTHBEARER config string."""
    for match in _INNER_PAIR.finditer(value):
        yield match.group(1), next((g for g in match.groups()[1:] if g is not None), "")


def remember(values: Iterable[str]) -> None:
    """Redact these values from now on, in every form they may be printed in."""
    forms: set[str] = set()
    for value in values:
        if len(value) < MIN_LENGTH:
            continue
        forms |= {
            value,
            repr(value)[1:-1],
            json.dumps(value)[1:-1],
            urllib.parse.quote(value, safe=""),
            urllib.parse.quote_plus(value),
        }
    with _remembered.lock:
        if forms <= _remembered.values:
            return
        _remembered.values |= forms
        # Longest first, so a secret containing another is replaced whole.
        alternatives = sorted(_remembered.values, key=len, reverse=True)
        _remembered.pattern = re.compile("|".join(re.escape(s) for s in alternatives))


def remember_client(client: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
    """Redact the secret values of these `client:` properties from now on."""
    remember(secret_values(client))


def redact(text: str) -> str:
    """`text` with every remembered secret replaced by '***'."""
    pattern = _remembered.pattern
    return text if pattern is None or not text else pattern.sub(REDACTED, text)


def redacted_properties(client: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Client properties safe to print: secret-looking values replaced by '***'."""
    pairs = client.items() if isinstance(client, Mapping) else client
    return {key: REDACTED if is_secret(key) else redact(value) for key, value in pairs}


class RedactingFilter(logging.Filter):
    """Rewrites a record so that no remembered secret survives in what a handler prints."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a library's bad format string: keep the raw parts, redacted
            message = f"{record.msg} {record.args}"
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever sys.stderr is at the time (the redacting stream, or a test's)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _: TextIO) -> None:
        pass


def install_logging(debug: bool) -> None:
    """Logs of every library, ours included, reach stderr only with --debug, and redacted.

    Without --debug the root logger gets a handler that drops everything, so no library's
    warning reaches stderr through logging's last-resort handler either.
    """
    root = logging.getLogger()
    for installed in list(root.handlers):
        if installed.get_name() == _HANDLER:
            root.removeHandler(installed)
    handler: logging.Handler
    if debug:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
        root.setLevel(logging.DEBUG)
    else:
        handler = logging.NullHandler()
    handler.addFilter(RedactingFilter())
    handler.set_name(_HANDLER)
    root.addHandler(handler)
