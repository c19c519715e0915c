"""reconciler: a declarative GitOps reconciler for Apache Kafka topics.

The flow: spec (load, render, validate) -> cluster (read state) -> planning (diff,
policies, order) -> render (text, JSON, Markdown) -> apply. `local` runs a real KRaft cluster for
the demo and the tests.
"""

from __future__ import annotations

__version__ = "0.2.0"

__all__ = ["__version__"]
