"""A saved plan (`plan -o PLAN.json`) read back: untrusted input, checked before any request."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reconciler.errors import ConfigError
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import Plan


def load_plan(path: Path) -> Plan:
    """A saved plan (`plan -o PLAN.json`); ConfigError when the file is not one.

    The file is untrusted input (it travels through CI artifacts): its shape and every value
    are checked here, before any request (planning.plan_input); whether it is the plan the
    specs give is checked at apply (apply.verify)."""
    from reconciler import readable
    from reconciler.planning.plan_input import check_document  # jsonschema: apply's alone

    text = readable.read_text(
        path,
        readable.PLAN_CAP,
        "a saved plan",
        "plan fewer topics per saved plan (`plan --topic REGEX -o PLAN.json`)",
    )

    def unreadable(why: str) -> ConfigError:
        return ConfigError(
            f"{path} is not a saved plan this reconciler can read ({why}); save one with "
            "`reconciler plan --cluster NAME -o PLAN.json`"
        )

    try:
        document = json.loads(text)
    except RecursionError as exc:
        raise unreadable("it is nested too deeply") from exc
    except ValueError as exc:  # not JSON, or an integer beyond Python's digit limit
        digits = f"a number has more than {sys.get_int_max_str_digits()} digits"
        why = f"not JSON: {exc}" if isinstance(exc, json.JSONDecodeError) else digits
        raise unreadable(why) from exc
    try:
        check_document(document)
        assert isinstance(document, dict)  # check_document holds it to the schema
        return from_json(document)
    except RecursionError as exc:  # the checks walk the document
        raise unreadable("it is nested too deeply") from exc
    except ValueError as exc:
        raise ConfigError(
            f"{path}: {exc}. The plan file was edited or damaged: plan again "
            "(`reconciler plan --cluster NAME -o PLAN.json`), review it and apply that. "
            "Nothing was changed."
        ) from exc
