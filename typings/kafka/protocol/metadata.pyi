# The Metadata request bench/bench_scale.py sends to each broker by id (every broker caught up)
from typing import Any

class MetadataRequest:
    class MetadataRequestTopic:
        def __init__(self, *, name: str) -> None: ...

    def __init__(
        self, *, topics: list[Any] | None, allow_auto_topic_creation: bool = ...
    ) -> None: ...
