"""compile (the desired state as the fleet job's JSONL) and the fleet drift job itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.diagnostics import Diagnostic
from reconciler.spec.repo_config import select_cluster
from reconciler.workflow.context import Context

# Only `fleet drift` loads the summary module (the job itself, which imports pyspark, is
# imported lazily too).
if TYPE_CHECKING:
    from reconciler.fleet.summary import FleetResult


@dataclass(frozen=True, slots=True)
class Compiled:
    cluster: str
    path: Path  # OUT/NAME.jsonl
    topics: int  # topic lines written (tombstones included)


def compile_desired(
    context: Context, cluster: str | None, out: Path
) -> tuple[tuple[Compiled, ...], tuple[Diagnostic, ...]]:
    """Write the desired state of `cluster` (None: of every cluster reconciler.yaml defines) as
    OUT/NAME.jsonl for the fleet pipeline; (what was written, the specs' warnings). The specs
    must be valid: InvalidSpecs otherwise, and nothing is written."""
    from reconciler import compile as compiler

    loaded = context.valid(cluster)
    assert loaded.config is not None  # valid
    names = [cluster] if cluster is not None else sorted(loaded.config.clusters)
    chosen = [select_cluster(loaded.config, name) for name in names]  # an unknown name fails
    written = tuple(
        Compiled(c.name, compiler.write(out, c, loaded.desired[c.name]),
                 len(loaded.desired[c.name].topics))
        for c in chosen
    )  # fmt: skip
    return written, loaded.diagnostics


def fleet_drift(
    desired: str,
    snapshots: str,
    out: str,
    *,
    master: str | None = None,
    since: str | None = None,
    conf: tuple[tuple[str, str], ...] = (),
    log: Path | None = None,
) -> FleetResult:
    """Run the fleet drift job (reconciler.fleet.job) on a SparkSession of its own: `master`
    defaults to local[*]; `log` receives the JVM's output. PySpark is an optional extra: an
    EnvironmentProblem says how to install it when it is missing."""
    from reconciler.fleet.guard import require_pyspark

    require_pyspark()
    from reconciler.fleet import job

    return job.execute(desired, snapshots, out, master=master, since=since, conf=conf, log=log)
