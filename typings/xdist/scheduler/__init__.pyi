# pytest-xdist ships no types: the part tests/worker_groups.py uses.
from collections import OrderedDict
from typing import Any

import pytest

class LoadFileScheduling:
    workqueue: OrderedDict[str, dict[str, bool]]
    def __init__(self, config: pytest.Config, log: Any | None = None) -> None: ...
    def _assign_work_unit(self, node: Any) -> None: ...
    def _split_scope(self, nodeid: str) -> str: ...
