# The Metadata request bench/bench_scale.py sends to each broker by id (every broker caught up)
from typing import Any

class MetadataRequest:
    def __init__(self, *, topics: list[Any] | None) -> None: ...
