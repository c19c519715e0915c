# The request class tests/compat hands kafka-python's version check.
from typing import Any, ClassVar

class AlterPartitionReassignmentsRequest:
    API_KEY: ClassVar[int]

# KIP-546's requests, which no admin method sends (cluster/adapter/quotas.py builds them)
class DescribeClientQuotasRequest:
    def __init__(self, *, components: list[Any], strict: bool) -> None: ...

class AlterClientQuotasRequest:
    class EntryData:
        class EntityData:
            def __init__(self, *, entity_type: str, entity_name: str | None) -> None: ...

        class OpData:
            def __init__(self, *, key: str, value: float, remove: bool) -> None: ...

        def __init__(self, *, entity: list[Any], ops: list[Any]) -> None: ...

    def __init__(self, *, entries: list[Any], validate_only: bool) -> None: ...
