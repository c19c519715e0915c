"""Fuzzing loading and validating: no input ends in an internal error (Findings 1, 6, 8, 10).

Random YAML documents (topic-shaped and not), random bytes, random text and random templates
within the limits are loaded as a spec repository; every outcome must be diagnostics, never
an exception, and every diagnostic must print. Derandomized, so CI runs the same examples.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.diagnostics import to_json
from reconciler.spec.loader import load_repo

# slow: `make check` leaves it out (fuzzing: hundreds of generated repositories per test)
pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CONFIG = "clusters:\n  a: {bootstrap: 'h:1', vars: {n: 3, s: x}}\n  b: {bootstrap: 'h:2'}\n"

# Values that have broken readers before: huge and negative numbers, odd floats, near-numbers.
_INTEGERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 2**31 - 1, 2**31, 2**63, -(2**63) - 1, 10**400, -(10**99)]),
    # beyond Python's int/str limit: written into the YAML text by `dump`, unquoted
    st.sampled_from(["@@HUGE@@", "@@NEGHUGE@@", "@@HEXHUGE@@"]),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    _INTEGERS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["9" * 5000, "1e99999", "7d", "1GiB", "0x" + "f" * 500, "1_000", "010", "*"]),
)
_KEYS = st.sampled_from(
    [
        "name", "partitions", "replication_factor", "config", "assignments", "clusters",
        "depends_on", "state", "protect", "keyed", "owner", "description", "acknowledge",
        "retention.ms", "segment.bytes", "cleanup.policy", "min.insync.replicas",
        "leader.replication.throttled.replicas", "max.message.bytes", "bootstrap", "policy",
        "vars", "limits", "client", "allow_delete", "max_deletes", "ignore", "topics",
        "defaults",
    ]
)  # fmt: skip
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(_KEYS, st.text(max_size=8)), inner, max_size=5),
    ),
    max_leaves=25,
)
_TOPIC = st.fixed_dictionaries(
    {"name": st.one_of(st.from_regex(r"[a-z]{1,5}\.[a-z]{1,5}", fullmatch=True), _SCALARS)},
    optional=dict.fromkeys(["partitions", "replication_factor", "config", "clusters",
                            "assignments", "depends_on", "state", "protect"], _VALUES),
)  # fmt: skip
_TOPIC_FILES = st.one_of(
    st.fixed_dictionaries({"topics": st.lists(_TOPIC, max_size=4)}, optional={"defaults": _VALUES}),
    _VALUES,
)
_CLUSTER = st.fixed_dictionaries(
    {"bootstrap": st.one_of(st.text(max_size=30), _SCALARS)},
    optional={"policy": _VALUES, "limits": _VALUES, "vars": _VALUES, "client": _VALUES},
)
_REPO_CONFIGS = st.fixed_dictionaries(
    {"clusters": st.dictionaries(st.text(min_size=1, max_size=8), _CLUSTER, max_size=3)},
    optional={"topics": _SCALARS},
)


@contextmanager
def spec_repo(files: dict[str, bytes]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="reconciler-fuzz-") as scratch:
        root = Path(scratch)
        (root / "topics").mkdir()
        files = {"reconciler.yaml": CONFIG.encode(), **files}
        for rel, data in files.items():
            (root / rel).write_bytes(data)
        yield root


def loads_without_internal_error(files: dict[str, bytes]) -> None:
    with spec_repo(files) as root:
        result = load_repo(root, env={})  # must not raise
        for diagnostic in result.diagnostics:
            str(diagnostic)
            to_json(diagnostic)


_HUGE = {
    "'@@HUGE@@'": "9" * 5000,
    "'@@NEGHUGE@@'": "-" + "8" * 4400,
    "'@@HEXHUGE@@'": "0x" + "f" * 5000,
}


def dump(data: Any) -> bytes:
    text = yaml.safe_dump(data, allow_unicode=True, width=10**6)
    for marker, number in _HUGE.items():
        text = text.replace(marker, number)
    return text.encode()


@FUZZ
@given(_TOPIC_FILES)
def test_random_topic_documents(data: Any) -> None:
    """Random YAML documents, mostly topic-shaped, as a topic file."""
    loads_without_internal_error({"topics/t.yaml": dump(data)})


@FUZZ
@given(_REPO_CONFIGS)
def test_random_repo_configs(data: Any) -> None:
    """Random reconciler.yaml files, with a plain topic file and a template to go with them."""
    loads_without_internal_error(
        {
            "reconciler.yaml": dump(data),
            "topics/t.yaml": b"topics:\n  - name: a.b\n",
            "topics/u.yaml.j2": b"topics:\n  - name: u.{{ cluster }}\n",
        }
    )


@FUZZ
@given(st.binary(max_size=300), st.binary(max_size=300))
def test_random_bytes(topic_file: bytes, repo_config: bytes) -> None:
    """Random bytes as a topic file, and as reconciler.yaml."""
    loads_without_internal_error({"topics/t.yaml": topic_file})
    loads_without_internal_error({"reconciler.yaml": repo_config})


_YAML_TEXT = st.text(
    alphabet=st.sampled_from([*"ab9-:{}[],&*!|>'\"#%@`?~ \n\t.0x", "\u00e9", "\ufeff"]),
    max_size=120,
)


@FUZZ
@given(_YAML_TEXT)
def test_random_yaml_text(text: str) -> None:
    """Random text made of YAML's special characters, as a topic file."""
    loads_without_internal_error({"topics/t.yaml": ("topics:\n" + text).encode()})


_EXPRESSIONS = st.sampled_from(
    [
        "vars.n", "vars.s", "cluster", "vars.n * 1000", "2 ** 64", "vars.s * 3",
        "'%05d'|format(vars.n)", "range(5)|join(',')", "vars.missing", "1 / 0", "vars.n ** 0.5",
        "'x'|center(40)", "[1, 2] * 3", "vars|list", "(vars.n ** 10) * (vars.n ** 10)",
        "''.__class__", "vars.n - 2 ** 4000", "'a\\x00b'", "9 ** 9 ** 2", "cluster|upper",
    ]
)  # fmt: skip
_LINES = st.one_of(
    _EXPRESSIONS.map(lambda e: f"    partitions: {{{{ {e} }}}}\n"),
    _EXPRESSIONS.map(lambda e: f"  - name: t.{{{{ {e} }}}}\n"),
    st.integers(0, 50).map(
        lambda n: f"{{% for i in range({n}) %}}\n  - name: t.i{{{{ i }}}}\n{{% endfor %}}\n"
    ),
    _EXPRESSIONS.map(lambda e: f"{{% if {e} %}}\n  - name: t.if\n{{% endif %}}\n"),
    st.sampled_from(["{% for %}\n", "{{ }}\n", "{% endfor %}\n", "{# c #}\n", "{% raw %}\n",
                     "{% set x = vars.n %}\n", "{% macro m(a) %}{{ a }}{% endmacro %}\n"]),
    st.text(alphabet=st.sampled_from(list("{}%#:- ab\n")), max_size=20),
)  # fmt: skip


@FUZZ
@given(st.lists(_LINES, max_size=8))
def test_random_templates(lines: list[str]) -> None:
    """Random templates within the limits, rendered for two clusters."""
    loads_without_internal_error({"topics/t.yaml.j2": ("topics:\n" + "".join(lines)).encode()})
