from typing import Any

class AWSRequest:
    url: str
    context: dict[str, Any]
    def __init__(
        self, method: str | None = ..., url: str | None = ..., params: dict[str, str] | None = ...
    ) -> None: ...
