"""How a spec writes a config value Kafka reports: `7d` for 604800000, `512MiB`, `true`.

Shared by `import` (new spec files) and `import --refresh` (a drifted value written over the old
one, in the old one's style where that is exact).
"""

from __future__ import annotations

import contextlib
from typing import Any

from reconciler.errors import InvalidConfigValue
from reconciler.spec import catalog
from reconciler.spec.catalog import ConfigType
from reconciler.spec.units import format_duration_ms, format_size_bytes


def spec_value(key: str, value: str) -> Any:
    """How a spec writes canonical `value` of `key`: a human unit where exact (`7d`,
    `512MiB`), a YAML number or boolean where the type is one, else Kafka's string. Each form is
    checked to normalise back to `value`, so the spec means exactly what the cluster has."""
    defn = catalog.lookup(key)
    candidates: list[Any] = []
    if defn is not None:
        number = _int(value)
        special = dict(defn.special_values)
        if defn.unit is not None and number is not None and number > 0 and number not in special:
            human = format_duration_ms(number) if defn.unit == "ms" else format_size_bytes(number)
            if human != value:  # a size no unit divides stays a number
                candidates.append(human)
        if defn.type in (ConfigType.INT, ConfigType.LONG) and number is not None:
            candidates.append(number)
        elif defn.type is ConfigType.BOOLEAN and value in ("true", "false"):
            candidates.append(value == "true")
        elif defn.type is ConfigType.DOUBLE:
            with contextlib.suppress(ValueError):
                candidates.append(float(value))
    for candidate in candidates:
        try:
            if catalog.normalise(key, candidate) == value:
                return candidate
        except InvalidConfigValue:
            continue
    return value


def _int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None
