"""Numeric options, held to the range the code behind them accepts, checked as they are parsed.

click's FloatRange lets `nan` through (no comparison with nan is true) and Python's float takes
`inf`; either, or a value past what the Kafka clients take (librdkafka refuses an admin request
timeout over 3,600 s), used to end in an internal error deep in a client. `Seconds` refuses
them with one sentence naming the option and its range, exit 1, before anything is done.
"""

from __future__ import annotations

import math

import click


class Seconds(click.ParamType[float]):
    """A finite number of seconds in [low, high]; `why` says where the bounds come from."""

    name = "seconds"

    def __init__(self, low: float, high: float, why: str) -> None:
        self.low = low
        self.high = high
        self.why = why

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float | int) and not isinstance(value, bool):
            number = float(value)
        else:
            try:
                number = float(str(value))
            except ValueError:
                number = math.nan
        if not (math.isfinite(number) and self.low <= number <= self.high):
            self.fail(
                f"{str(value)!r} is not a number of seconds from {self.low:g} to {self.high:g} "
                f"({self.why})",
                param,
                ctx,
            )
        return number
