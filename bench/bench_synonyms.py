"""What keeping overrides' synonyms costs the read's conversion, without brokers.

The topics' DescribeConfigs answers are converted by read.py's `_Configs` (shared entries,
C loops). Since synonyms are kept, each distinct override also has its synonym chain converted,
once. This feeds `_Configs` 10,000 topics of 33 librdkafka ConfigEntry objects each, shaped like
Kafka 4.1's answer (every inherited key with one synonym, one override per topic with its own
synonym and a broker one), in two cases: every topic the same override (the common case: a
team's retention, say) and every topic a distinct one (the worst case: 10,000 chains
converted). Printed: best and median of the conversion's CPU time, with and without the
synonyms (`--baseline PATH`: another read.py, e.g. `git show REV:reconciler/cluster/adapter/
read.py > /tmp/read_orig.py`).

    .venv/bin/python -m bench.bench_synonyms [--topics 10000] [--runs 7] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from types import ModuleType
from typing import Any

from confluent_kafka.admin import ConfigEntry, ConfigSource

from reconciler.cluster.adapter import read

KEYS = 33
DEFAULT = ConfigSource.DEFAULT_CONFIG
OVERRIDE = ConfigSource.DYNAMIC_TOPIC_CONFIG


def _entry(name: str, value: str, source: ConfigSource, synonyms: dict[str, Any]) -> ConfigEntry:
    entry = ConfigEntry(name, value, source=source)
    entry.synonyms = synonyms
    return entry


def answers(topics: int, distinct: bool) -> list[dict[str, ConfigEntry]]:
    """One librdkafka-shaped answer per topic: KEYS - 1 inherited keys and retention.ms."""
    inherited = {
        f"key.{i:02d}": _entry(
            f"key.{i:02d}",
            str(i),
            DEFAULT,
            {f"log.key.{i:02d}": _entry(f"log.key.{i:02d}", str(i), DEFAULT, {})},
        )
        for i in range(KEYS - 1)
    }
    out = []
    for t in range(topics):
        value = str(3_600_000 + (t if distinct else 0))
        own = _entry("retention.ms", value, OVERRIDE, {})
        broker = _entry("log.retention.hours", "24", ConfigSource.STATIC_BROKER_CONFIG, {})
        synonyms = {"retention.ms": own, "log.retention.hours": broker}
        out.append({**inherited, "retention.ms": _entry("retention.ms", value, OVERRIDE, synonyms)})
    return out


def convert(module: ModuleType, topics: list[dict[str, ConfigEntry]]) -> float:
    """CPU seconds to turn every answer into its Configs, as _topic_configs does."""
    configs_class = module._Configs
    started = time.process_time()
    try:
        configs = configs_class({})
    except TypeError:  # a read.py from before synonyms were kept
        configs = configs_class()
    for entries in topics:
        configs.of(entries)
    return time.process_time() - started


def _load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("read_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline")
    args = parser.parse_args()
    variants = {"current": read}
    if args.baseline:
        variants["baseline"] = _load(args.baseline)
    for distinct in (False, True):
        topics = answers(args.topics, distinct)
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):  # alternating, so both see the same load
            for name, module in variants.items():
                times[name].append(convert(module, topics))
        case = "distinct overrides" if distinct else "one override value"
        for name, seen in times.items():
            print(
                f"{args.topics} topics, {case}, {name}: best {min(seen):.3f} s, "
                f"median {statistics.median(seen):.3f} s CPU"
            )


if __name__ == "__main__":
    main()
