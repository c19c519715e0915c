# The request class tests/compat hands kafka-python's version check.
from typing import ClassVar

class AlterPartitionReassignmentsRequest:
    API_KEY: ClassVar[int]
