"""How Kafka refuses: a request's per-item answer, and the typed failures with their sentences.

Kafka-free values: the adapter classifies the client libraries' errors by Kafka's codes into
these (reconciler/cluster/adapter/failures.py, the only place that reads a client's error), and
everything else reads them here:

    Failure           one item of a request refused: Kafka's error name and message
    Denied            TOPIC/CLUSTER/GROUP_AUTHORIZATION_FAILED: operation, resource, principal
    Unauthenticated   refused credentials, token or certificate: principal, how, the reason
    Unsupported       UNSUPPORTED_VERSION or librdkafka's _UNSUPPORTED_FEATURE: which request
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Failure:
    """Why Kafka refused one item of a request."""

    code: str  # Kafka's error name (TOPIC_ALREADY_EXISTS, ...); TIMED_OUT for client timeouts
    detail: str  # Kafka's own message

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}" if self.detail else self.code


@dataclass(frozen=True, slots=True)
class Unsupported:
    """The brokers do not know `request` (or share no version of it with the client: then
    `versions`, the client's and the brokers' ranges)."""

    request: str  # e.g. ListPartitionReassignments
    versions: tuple[str, str] | None = None


# ---------------------------------------------------------------------------- authorization


@dataclass(frozen=True, slots=True)
class Resource:
    """What an ACL is granted on: the cluster, a topic or a group; a topic without a name when
    Kafka did not say which."""

    type: Literal["cluster", "topic", "group"]
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> Resource:
        """From the phrase `lacks` takes: "the cluster", "topic NAME", "group NAME", "the
        topics"."""
        if text.startswith("topic "):
            return cls("topic", text.removeprefix("topic "))
        if text.startswith("group "):
            return cls("group", text.removeprefix("group "))
        return cls("topic") if text == "the topics" else cls("cluster")

    def __str__(self) -> str:
        if self.type == "cluster":
            return "the cluster"
        return f"{self.type} {self.name}" if self.name is not None else "the topics"

    @property
    def option(self) -> str:
        """kafka-acls's option for this resource."""
        if self.type == "cluster":
            return "--cluster"
        return f"--{self.type} '{self.name}'" if self.name is not None else "--topic NAME"


@dataclass(frozen=True, slots=True)
class Denied:
    """Kafka refused `principal` an `operation` on `resource`, needed to do `why`."""

    cluster: str
    bootstrap: str
    principal: str
    operation: str  # as kafka-acls names it: Describe, DescribeConfigs, Create, ...
    resource: Resource
    why: str
    unchanged: bool = True  # refused before any change (reads, pre-flight, the lock)

    def sentence(self) -> str:
        """Who lacks what, on which resource, needed for what, and the fix."""
        grant = f"--allow-principal {self.principal} " if self.principal.startswith("User:") else ""
        where = (
            f"cluster '{self.cluster}'"
            if self.resource.type == "cluster"
            else f"{self.resource} of cluster '{self.cluster}'"
        )
        return (
            f"principal {self.principal} lacks {self.operation} on {where} (needed to "
            f"{self.why}){': nothing was changed' if self.unchanged else ''}; grant it with "
            f"`kafka-acls --bootstrap-server {self.bootstrap} --add {grant}--operation "
            f"{self.operation} {self.resource.option}`."
        )


# ---------------------------------------------------------------------------- authentication


@dataclass(frozen=True, slots=True)
class Unauthenticated:
    """The cluster refused this connection's login: OAuth tokens, SASL credentials or the TLS
    handshake (`how`), with the client's reason."""

    cluster: str
    bootstrap: str
    principal: str
    how: Literal["oauth", "sasl", "tls", "msk_iam"]
    reason: str
    token_issuer: str = ""  # oauth: who issued the tokens
    advice: str = ""  # msk_iam: what is wrong and what to do (msk_iam.refusal)
    ca_location: str = "the system CAs"  # tls: the CAs the broker's certificate was checked with
    # (the setting naming them and its value, e.g. "ssl.ca.location (/etc/ca.pem)")

    def sentence(self) -> str:
        where = f"cluster '{self.cluster}' at {self.bootstrap}"
        said = _tail(self.reason)
        if self.how == "oauth":
            return (
                f"{where} refused the OAuth token the {self.token_issuer} issued ({said}): "
                "check that the identity provider's issuer and audience are the ones the "
                "brokers expect (sasl.oauthbearer.expected.issuer and "
                "sasl.oauthbearer.expected.audience), and sasl.oauthbearer.scope."
            )
        if self.how == "msk_iam":
            return f"{where} refused the AWS MSK IAM login of {self.principal}: {self.advice}"
        if self.how == "sasl":
            return (
                f"{where} refused the credentials of {self.principal} ({said}): check "
                "sasl.username, sasl.password and sasl.mechanism in its `client:` settings."
            )
        if _NAME_MISMATCH.search(self.reason):  # OpenSSL's reason (client_security.why_unverified)
            return (
                f"the TLS handshake with {where} failed ({said}): the broker's certificate does "
                "not name the address it was reached at: connect by a name or IP address its "
                "certificate lists (subject alternative names), or set "
                "ssl.endpoint.identification.algorithm: none to skip only the name check."
            )
        return (
            f"the TLS handshake with {where} failed ({said}): the broker's certificate is not "
            f"signed by a CA in {self.ca_location}, or its name does not "
            "match the bootstrap address."
        )


# OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH / X509_V_ERR_IP_ADDRESS_MISMATCH, as Python's ssl
# quotes it (librdkafka says only "broker certificate could not be verified", whatever the cause).
_NAME_MISMATCH = re.compile(r"certificate verify failed.*(hostname|ip address) mismatch", re.I)


def _tail(text: str) -> str:
    """librdkafka's reason without the broker prefix and the timing suffix (its error
    callback gives only this sentence)."""
    text = re.sub(r"^\S+://\S+: ", "", text)
    return re.sub(r" \(after \d+ms in state \w+\)$", "", text).rstrip(".")
