"""A saved plan (`plan -o PLAN.json`) read back: untrusted input, checked before any request.

A plan is bound to the reconciler version that made it (its `made_by`): another version may
plan, order or check differently, so apply refuses it and asks for a plan made with this one.
Other client library versions (confluent-kafka, librdkafka, kafka-python) are accepted and
mentioned: they carry the requests, they do not decide them (`reconciler help apply`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reconciler import __version__
from reconciler.errors import ConfigError
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import MadeBy, Plan
from reconciler.printable import printable

_PLAN_AGAIN = (
    "plan again with this version (`reconciler plan --cluster NAME -o PLAN.json`), review "
    "that plan and apply it; nothing was changed"
)


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
    _refuse_another_version(path, document)
    try:
        check_document(document)
        assert isinstance(document, dict)  # check_document holds it to the schema
        plan = from_json(document)
    except RecursionError as exc:  # the checks walk the document
        raise unreadable("it is nested too deeply") from exc
    except ValueError as exc:
        raise ConfigError(
            f"{path}: {exc}. The plan file was edited or damaged: plan again "
            "(`reconciler plan --cluster NAME -o PLAN.json`), review it and apply that. "
            "Nothing was changed."
        ) from exc
    if plan.made_by is None:  # a plan of a reconciler that recorded no version (before 0.2.1)
        raise ConfigError(
            f"{path} does not record the reconciler version that made it (an older reconciler "
            f"made it), and this is reconciler {__version__}: {_PLAN_AGAIN}."
        )
    return plan


def _refuse_another_version(path: Path, document: object) -> None:
    """A plan another reconciler version made is refused before its shape is judged: a later
    version may have written fields this one does not know."""
    if not isinstance(document, dict) or not isinstance(document.get("made_by"), dict):
        return  # none recorded: judged after the shape (load_plan)
    theirs = document["made_by"].get("reconciler")
    if not isinstance(theirs, str) or not 0 < len(theirs) <= 100 or theirs == __version__:
        return  # the schema names a malformed one
    raise ConfigError(
        f"{path} was made by reconciler {printable(theirs)}, and this is reconciler "
        f"{__version__}: {_PLAN_AGAIN}."
    )


def other_libraries(saved: MadeBy | None, current: MadeBy) -> str | None:
    """The sentence mentioning client libraries of other versions than the saved plan's, or
    None: apply goes on (the plan is checked against the cluster again all the same)."""
    if saved is None:
        return None
    then = dict(saved.libraries)
    differ = [
        f"{name} {printable(then[name])} (now {version})"
        for name, version in current.libraries
        if name in then and then[name] != version
    ]
    if not differ:
        return None
    return (
        f"the saved plan was made with {', '.join(differ)}: applied as planned, since the same "
        "reconciler version decides the same requests whichever library carries them"
    )
