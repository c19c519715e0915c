"""The plan as JSON (format_version 1, schemas/plan.schema.json): what `plan -o` saves."""

from __future__ import annotations

import json

from reconciler.planning.json_plan import to_json
from reconciler.planning.plan import Plan


def render_json(plan: Plan) -> str:
    # Sorted keys and fixed indentation: the same plan is byte-identical, so it diffs cleanly.
    return json.dumps(to_json(plan), indent=2, sort_keys=True)
