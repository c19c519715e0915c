from typing import Any

import pytest

class LoadFileScheduling:
    def __init__(self, config: pytest.Config, log: Any | None = None) -> None: ...
    def _split_scope(self, nodeid: str) -> str: ...
