"""AWS MSK IAM login (SASL OAUTHBEARER carrying SigV4-signed tokens): one signer for both clients.

`client:` settings:

    sasl.mechanism: OAUTHBEARER
    sasl.oauthbearer.method: aws_msk_iam
    aws.region: eu-west-1               # required: the cluster's region
    aws.profile: ...                    # optional: a profile of ~/.aws/config and credentials
    aws.role_arn: ...                   # optional: a role to assume first (STS AssumeRole)
    aws.role_session_name: ...          # optional, with aws.role_arn (default: reconciler)
    aws.shared_credentials_file: ...    # optional: a credentials file other than ~/.aws's

A token is what aws-msk-iam-sasl-signer-python makes: the base64url (unpadded) of the URL
`https://kafka.<region>.amazonaws.com/?Action=kafka-cluster%3AConnect` presigned with SigV4
(service `kafka-cluster`, X-Amz-Expires 900) by botocore, with a User-Agent parameter appended
after signing. Credentials come from botocore's chain (environment, profile, SSO, container
and instance roles), the profile's or an assumed role's when asked. botocore is an optional
extra (`kafka-topic-reconciler[msk]`), imported only by clusters that log in this way.

Like oauth.py, reconciler signs the token itself and hands it to librdkafka through `oauth_cb`
(with its expiry, so librdkafka asks again before it) and to kafka-python through a token
provider; every token and credential is remembered for redaction the moment it exists.
"""

from __future__ import annotations

import base64
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from reconciler import redaction
from reconciler.errors import ClusterError

if TYPE_CHECKING:  # kafka-python loads only where reassignments need it; botocore is optional
    from botocore.credentials import Credentials, ReadOnlyCredentials
    from kafka.net.sasl.oauth import AbstractTokenProvider

METHOD = "aws_msk_iam"
MECHANISM_KEYS = ("sasl.mechanism", "sasl.mechanisms")
# The `client:` keys this module takes over: librdkafka knows none of them but the method.
KEYS = frozenset(
    ("sasl.oauthbearer.method", "aws.region", "aws.profile", "aws.role_arn",
     "aws.role_session_name", "aws.shared_credentials_file")
)  # fmt: skip
SERVICE = "kafka-cluster"
ACTION = "kafka-cluster:Connect"
LIFETIME = 900  # seconds, as aws-msk-iam-sasl-signer-python signs them
USER_AGENT = "reconciler-msk-iam"
REFRESH_MARGIN = 0.8  # sign again at 80% of a token's lifetime, as librdkafka refreshes
DEFAULT_SESSION_NAME = "reconciler"
# Test hooks, never for production: a shorter token lifetime (the refresh test) and a signing
# clock off by some seconds (a machine whose clock is wrong: the expired-token test).
LIFETIME_ENV = "RECONCILER_TEST_MSK_IAM_LIFETIME"
CLOCK_OFFSET_ENV = "RECONCILER_TEST_MSK_IAM_CLOCK_OFFSET"
EXTRA = "pip install 'kafka-topic-reconciler[msk]'"


@dataclass(frozen=True, slots=True)
class Aws:
    """The MSK IAM settings of one cluster's `client:`."""

    cluster: str
    region: str
    profile: str | None = None
    role_arn: str | None = None
    session_name: str = DEFAULT_SESSION_NAME
    credentials_file: str | None = None

    def identity(self) -> str:
        """Whose credentials sign, as an error sentence names them."""
        if self.role_arn:
            return f"the role {self.role_arn}"
        if self.profile:
            return f"the AWS profile '{self.profile}'"
        return "the AWS credentials of the default chain"


def settings(cluster: str, client: Mapping[str, str]) -> Aws | None:
    """The MSK IAM settings when `client:` asks for OAUTHBEARER with method aws_msk_iam, else
    None. A missing region is an error naming it (the schema says so first, with its line)."""
    mechanism = next((client[k] for k in MECHANISM_KEYS if k in client), "")
    if mechanism.upper() != "OAUTHBEARER":
        return None
    if client.get("sasl.oauthbearer.method", "").lower() != METHOD:
        return None
    region = client.get("aws.region", "").strip()
    if not region:
        raise ClusterError(
            f"cluster '{cluster}': sasl.oauthbearer.method aws_msk_iam needs aws.region (the "
            "MSK cluster's region, e.g. eu-west-1) in its `client:` settings."
        )
    return Aws(
        cluster=cluster,
        region=region,
        profile=client.get("aws.profile") or None,
        role_arn=client.get("aws.role_arn") or None,
        session_name=client.get("aws.role_session_name") or DEFAULT_SESSION_NAME,
        credentials_file=client.get("aws.shared_credentials_file") or None,
    )


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    expires_at: float  # epoch seconds, on this machine's clock
    principal: str
    signed_at: float

    def fresh(self, now: float) -> bool:
        return now < self.signed_at + REFRESH_MARGIN * (self.expires_at - self.signed_at)


def _seconds_from_env(name: str, default: float) -> float:
    text = os.environ.get(name, "")
    try:
        return float(text) if text else default
    except ValueError:
        return default


class Signer:
    """Tokens for one cluster's settings, signed again when none is fresh (thread-safe)."""

    def __init__(self, aws: Aws) -> None:
        self.aws = aws
        self._lock = threading.Lock()
        self._token: Token | None = None
        self._credentials: Credentials | None = None
        self.signed = 0  # tokens signed so far (the refresh test reads it)

    def token(self) -> Token:
        with self._lock:
            if self._token is None or not self._token.fresh(time.time()):
                self._token = self._sign()
                self.signed += 1
            return self._token

    def _sign(self) -> Token:
        try:
            from botocore.auth import SigV4QueryAuth
            from botocore.awsrequest import AWSRequest
        except ImportError:
            raise ClusterError(
                f"cluster '{self.aws.cluster}' logs in with AWS MSK IAM, which needs botocore: "
                f"install the msk extra ({EXTRA})."
            ) from None
        credentials = self._frozen_credentials()
        lifetime = int(_seconds_from_env(LIFETIME_ENV, LIFETIME))
        now = time.time()
        signed_at = now + _seconds_from_env(CLOCK_OFFSET_ENV, 0.0)
        stamp = datetime.fromtimestamp(signed_at, UTC).strftime("%Y%m%dT%H%M%SZ")

        class AtTime(SigV4QueryAuth):
            """botocore's presigner, signing at `stamp` (botocore takes its clock's now)."""

            def _modify_request_before_signing(self, request: AWSRequest) -> None:
                request.context["timestamp"] = stamp
                super()._modify_request_before_signing(request)

        request = AWSRequest(
            method="GET",
            url=f"https://kafka.{self.aws.region}.amazonaws.com/",
            params={"Action": ACTION},
        )
        AtTime(credentials, SERVICE, self.aws.region, expires=lifetime).add_auth(request)
        url = f"{request.url}&User-Agent={USER_AGENT}"
        value = base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
        redaction.remember([value])
        return Token(value, now + lifetime, self.aws.identity(), now)

    def _frozen_credentials(self) -> ReadOnlyCredentials:
        """The chain's (or the assumed role's) credentials now, remembered for redaction."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            if self._credentials is None:
                self._credentials = self._resolve()
            frozen = self._credentials.get_frozen_credentials()
        except (BotoCoreError, ClientError) as exc:
            raise ClusterError(
                f"cluster '{self.aws.cluster}': could not get {self.aws.identity()} to sign its "
                f"AWS MSK IAM token ({exc}): check aws.profile / aws.role_arn and the AWS "
                "credentials this machine has (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                "~/.aws/credentials, an instance or container role)."
            ) from None
        redaction.remember([v for v in (frozen.secret_key, frozen.token) if v])
        redaction.remember([frozen.access_key])
        return frozen

    def _resolve(self) -> Credentials:
        import botocore.session
        from botocore.credentials import (
            AssumeRoleCredentialFetcher,
            DeferredRefreshableCredentials,
        )

        session = botocore.session.Session(profile=self.aws.profile)
        if self.aws.credentials_file:
            session.set_config_variable("credentials_file", self.aws.credentials_file)
        credentials = session.get_credentials()
        if credentials is None:
            raise ClusterError(
                f"cluster '{self.aws.cluster}': no AWS credentials were found to sign its MSK "
                f"IAM token with {self.aws.identity()}: set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or aws.profile, or run where an instance or container "
                "role is available."
            )
        if not self.aws.role_arn:
            return credentials
        fetcher = AssumeRoleCredentialFetcher(
            client_creator=session.create_client,
            source_credentials=credentials,
            role_arn=self.aws.role_arn,
            extra_args={"RoleSessionName": self.aws.session_name},
        )
        return DeferredRefreshableCredentials(
            refresh_using=fetcher.fetch_credentials, method="assume-role"
        )

    # ------------------------------------------------------------------ the two clients

    def into(self, conf: dict[str, Any]) -> None:
        """Make a librdkafka config (admin, producer or consumer) log in with this signer."""
        for key in KEYS:
            conf.pop(key, None)
        conf["oauth_cb"] = self.librdkafka_callback()

    def librdkafka_callback(self) -> Any:
        """librdkafka's `oauth_cb`: (token, expiry in epoch seconds, principal, extensions)."""

        def callback(_: str) -> tuple[str, float, str, dict[str, str]]:
            token = self.token()
            return token.value, token.expires_at, token.principal, {}

        return callback

    def kafka_python_provider(self) -> AbstractTokenProvider:
        """kafka-python's `sasl_oauth_token_provider`."""
        from kafka.net.sasl.oauth import AbstractTokenProvider

        signer = self

        class Provider(AbstractTokenProvider):
            def token(self) -> str:
                return signer.token().value

        return Provider()


def refusal(reason: str, aws: Aws) -> str:
    """What is wrong and what to do about a refused MSK IAM login, from the client's reason
    (`SASL authentication error: {"status":"..."}`: a broker's OAUTHBEARER refusal)."""
    said = re.search(r'"status"\s*:\s*"(?:invalid_token: )?([^"]*)"', reason)
    what = said.group(1) if said else reason
    lower = what.lower()
    if "expired" in lower or "future" in lower:
        todo = (
            "check this machine's clock (NTP): a token is stamped with its time and valid for "
            f"{LIFETIME // 60} minutes"
        )
    elif "region" in lower:
        todo = f"set aws.region (now {aws.region}) to the region of the MSK cluster"
    elif "access key" in lower and "signature" not in lower:
        todo = (
            f"check the access key id of {aws.identity()} (AWS_ACCESS_KEY_ID, or the "
            "profile's credentials): the cluster does not know it"
        )
    elif "signature" in lower:
        todo = (
            "check the secret access key that goes with the access key id "
            "(AWS_SECRET_ACCESS_KEY, or the profile's credentials)"
        )
    else:
        todo = (
            f"check that the IAM policy of {aws.identity()} allows kafka-cluster:Connect on "
            f"this cluster, that aws.region {aws.region} is its region and that this "
            "machine's clock is right"
        )
    return f"{what.rstrip('.')}; {todo}."


_signers: dict[Aws, Signer] = {}
_signers_lock = threading.Lock()


def signer(aws: Aws) -> Signer:
    """The signer of these settings, shared by every client of the process."""
    with _signers_lock:
        if aws not in _signers:
            _signers[aws] = Signer(aws)
        return _signers[aws]
