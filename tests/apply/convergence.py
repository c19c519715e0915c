"""Apply's convergence claim, one body for two clusters: whatever sequence of spec edits a
repository goes through (creates, partitions grown, configs set and removed, replication
factors changed, tombstones), each plan, with exactly the hazards it shows approved, applies,
and the plan after it is empty, with the cluster showing every spec. The many sequences run on
the in-memory fake (test_convergence_fake.py); fixed ones on the real three-broker cluster
(test_apply_scale.py), which hold the Kafka side."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from reconciler.workflow.apply import apply as apply_saved
from reconciler.workflow.context import Context
from reconciler.workflow.plan import plan as plan_of
from tests.spec_repo import SpecRepo

TOPICS = ("p", "q")
Edit = tuple[str, str, int]  # (kind, topic, number)
# topic name -> partitions, replicas per partition, overrides (as tests.apply.helpers reads)
Seen = dict[str, dict[str, Any]]

edits = st.lists(
    st.tuples(
        st.sampled_from(["create", "grow", "config", "rf", "tombstone"]),
        st.sampled_from(TOPICS),
        st.integers(min_value=1, max_value=3),
    ),
    min_size=1,
    max_size=4,
)

# A retention cut, then the override's removal and a delete: each a hazard the reviewer approves
HAZARDS: list[Edit] = [("create", "p", 1), ("config", "p", 1), ("config", "p", 3),
                       ("tombstone", "p", 1)]  # fmt: skip
# The replication factor raised and lowered: reassignments, each confirmed by the next plan
RESHAPES: list[Edit] = [("rf", "q", 1), ("rf", "q", 3), ("rf", "q", 2)]


def _apply_edit(specs: dict[str, dict[str, Any]], edit: Edit) -> None:
    kind, topic, n = edit
    spec = specs.get(topic)
    if spec is None or spec.get("state") == "absent":
        # Any edit of a topic that does not exist creates it.
        specs[topic] = {"partitions": n, "replication_factor": n, "config": {}}
    elif kind == "create":
        return  # it exists: declaring it again with other counts would be a different edit
    elif kind == "grow":
        spec["partitions"] += n
    elif kind == "config":
        spec["config"] = {} if n == 3 else {"retention.ms": str(3_600_000 * n)}
    elif kind == "rf":
        spec["replication_factor"] = n
    else:
        specs[topic] = {"state": "absent"}


def converges(
    root: Path, bootstrap: str, prefix: str, sequence: list[Edit], seen: Callable[[], Seen]
) -> None:
    """Each edit of `sequence` planned, approved, applied and checked (`seen`: the topics
    under `prefix` as the cluster shows them, read around reconciler)."""
    repo = SpecRepo(root, bootstrap, prefix, policy={"allow_delete": True})
    specs: dict[str, dict[str, Any]] = {}
    for edit in sequence:
        _apply_edit(specs, edit)

        def write(approvals: dict[str, list[Any]]) -> None:
            repo.topics(
                *(
                    {"name": f"{prefix}.{t}", "acknowledge": approvals.get(f"{prefix}.{t}", []),
                     **s}
                    for t, s in sorted(specs.items())
                )
            )  # fmt: skip

        write({})
        plan = plan_of(Context(root), "test")
        # The reviewer's step: approve exactly the hazards the plan shows (approve_with)
        approvals = {
            c.topic: [h.approve_with for h in c.hazards if h.blocks_apply and h.approve_with]
            for c in plan.changes
        }
        if any(approvals.values()):
            write(approvals)
            plan = plan_of(Context(root), "test")
        assert plan.applyable, plan.diagnostics
        result = apply_saved(Context(root), "test", plan)
        assert result.ok, [(r.operation.summary, r.message) for r in result.results]
        assert plan_of(Context(root), "test").changes == ()
        shown = seen()
        for topic, spec in specs.items():
            name = f"{prefix}.{topic}"
            if spec.get("state") == "absent":
                assert name not in shown
                continue
            assert shown[name]["partitions"] == spec["partitions"]
            assert {len(r) for r in shown[name]["replicas"]} == {spec["replication_factor"]}
            assert shown[name]["overrides"] == spec["config"]
