from collections.abc import Callable
from typing import Any, NamedTuple

class ReadOnlyCredentials(NamedTuple):
    access_key: str
    secret_key: str
    token: str | None

class Credentials:
    def get_frozen_credentials(self) -> ReadOnlyCredentials: ...

class DeferredRefreshableCredentials(Credentials):
    def __init__(self, refresh_using: Callable[[], dict[str, Any]], method: str) -> None: ...

class AssumeRoleCredentialFetcher:
    def __init__(
        self,
        client_creator: Callable[..., Any],
        source_credentials: Credentials,
        role_arn: str,
        extra_args: dict[str, str] | None = ...,
    ) -> None: ...
    def fetch_credentials(self) -> dict[str, Any]: ...
