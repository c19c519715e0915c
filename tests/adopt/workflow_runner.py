"""A stand-in for the GitHub Actions runner that runs the workflows' shell steps for real.

`Runner.run(caller, event)` does what GitHub does with a caller workflow of a spec repository,
as far as these workflows need it, and refuses everything else loudly (`Unsupported`), so a
workflow cannot come to depend on something these tests do not exercise:

- the trigger: the caller's `on:` must name the event, with its `branches:` and `paths:`
  filters applied to the event's branch and changed files (an untriggered run has no jobs);
- caller jobs calling a local reusable workflow (`uses: ./.github/workflows/X.yml`): the matrix
  (plain lists) is expanded, `with:` is checked against and bound to `on.workflow_call.inputs`
  (types, defaults, required), `secrets:` to `on.workflow_call.secrets`; the called job's
  `permissions:` must not exceed the caller job's (GitHub refuses such a call);
- environment secrets as GitHub resolves them for reusable workflows: a job with
  `environment: E` sees E's secret in place of a secret the caller passed by the same name (and
  an empty string for one it did not pass);
- each job's steps in order. `run:` steps go to `bash --noprofile --norc -eo pipefail FILE`
  (GitHub's default shell) in the job's working directory, with GITHUB_OUTPUT / GITHUB_ENV /
  GITHUB_PATH / GITHUB_STEP_SUMMARY files, GITHUB_EVENT_PATH (the event's JSON),
  GITHUB_REPOSITORY, GITHUB_SHA, GITHUB_REF, GITHUB_BASE_REF, GITHUB_WORKSPACE, RUNNER_TEMP, ...;
  a `run:` script containing `${{` is refused (untrusted input must reach scripts through
  `env:`). `uses:` steps are the three actions the workflows use, pinned by commit SHA:
  checkout (the test prepared the workspace: HEAD must be github.sha, or the commit SHA given
  as `ref:`), setup-python (the test
  put a Python first on PATH), upload-artifact (records the file, which must exist unless
  `if-no-files-found` says otherwise);
- `${{ }}` expressions: literals, contexts (github, inputs, secrets, matrix, env, steps,
  runner), `.` and `[]`, `! == != < <= > >= && ||`, and the functions always, success, failure,
  cancelled, contains, startsWith, endsWith, format, join, toJSON, fromJSON. A context, function
  or property that is not there is an error (GitHub would give null), except a step's outputs;
- `if:` (a status function or else `success() &&`), `continue-on-error`, job results;
- steps named in `once` (with the files their script reads) run for real the first time; a later
  run of the same script with the same environment, directory, PATH and files replays that
  run's success (its log, marked "(replayed"), as for an install into a virtualenv that holds
  the package already. A failed run, or one that wrote outputs, env or PATH, is not replayed.

`FakeGitHub` is what the workflows' `gh` commands talk to: a `gh` script first on PATH that logs
each call (argv, stdin and the files it reads) as JSON lines and keeps the pull-request comments,
issues and labels it was given or made in a state file, answering as GitHub's CLI does,
including `--jq` filters (run by jq's own library). Given to a `Runner`, it also keeps each
finished run (workflow file, event, head commit, conclusion) and copies of the artifacts its jobs
uploaded, which `gh api .../actions/workflows/FILE/runs` and `gh run download` return; the test
says which pull request was merged as which commit (`merge_pull_request`), for `gh api
.../commits/SHA/pulls`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]  # GitHub's `shell: bash`
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


class Unsupported(Exception):
    """The workflow uses something this runner does not support (or GitHub would refuse)."""


# ------------------------------------------------------------------------------ expressions


class Lenient(dict[str, Any]):
    """A context object whose missing properties are null (a step's outputs), not an error."""


Value = Any  # None, bool, int, float, str, dict, list: the values of GitHub's expressions
Node = tuple[Any, ...]

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')"
    r"|(?P<num>0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_-]*))"
)
_FUNCTIONS = {
    "always",
    "success",
    "failure",
    "cancelled",
    "contains",
    "startswith",
    "endswith",
    "format",
    "join",
    "tojson",
    "fromjson",
}
_STATUS = {"always", "success", "failure", "cancelled"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise Unsupported(f"cannot read the expression {text!r} at {text[pos:]!r}")
        kind = match.lastgroup
        assert kind is not None
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise Unsupported(f"expected {value or 'more'} in the expression {self.text!r}")
        self.pos += 1
        return token

    def parse(self) -> Node:
        node = self.or_()
        if self.peek() is not None:
            raise Unsupported(f"unexpected {self.peek()} in the expression {self.text!r}")
        return node

    def or_(self) -> Node:
        node = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            node = ("or", node, self.and_())
        return node

    def and_(self) -> Node:
        node = self.compare()
        while self.peek() == ("op", "&&"):
            self.take()
            node = ("and", node, self.compare())
        return node

    def compare(self) -> Node:
        node = self.unary()
        while (token := self.peek()) is not None and token[1] in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            node = ("cmp", token[1], node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() == ("op", "!"):
            self.take()
            return ("not", self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while (token := self.peek()) is not None and token[1] in (".", "["):
            self.take()
            if token[1] == ".":
                kind, name = self.take()
                if kind != "id":
                    raise Unsupported(f"`.{name}` (object filters) in {self.text!r}")
                node = ("prop", node, name)
            else:
                index = self.or_()
                self.take("]")
                node = ("index", node, index)
        return node

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "str":
            return ("lit", text[1:-1].replace("''", "'"))
        if kind == "num":
            return ("lit", int(text, 16) if text.startswith("0x") else _number(text))
        if text == "(":
            node = self.or_()
            self.take(")")
            return node
        if kind != "id":
            raise Unsupported(f"unexpected {text!r} in the expression {self.text!r}")
        lowered = text.lower()
        if lowered in ("true", "false"):
            return ("lit", lowered == "true")
        if lowered == "null":
            return ("lit", None)
        if self.peek() == ("op", "("):
            self.take()
            args: list[Node] = []
            while self.peek() != ("op", ")"):
                args.append(self.or_())
                if self.peek() == ("op", ","):
                    self.take()
            self.take(")")
            if lowered not in _FUNCTIONS:
                raise Unsupported(f"the function {text}() in {self.text!r}")
            return ("call", lowered, args)
        return ("ctx", text)


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text else value


def _uses_status(node: Node) -> bool:
    if node[0] == "call" and node[1] in _STATUS:
        return True
    return any(isinstance(part, tuple) and _uses_status(part) for part in node[1:]) or any(
        isinstance(part, list) and any(_uses_status(p) for p in part) for part in node[1:]
    )


def _kind(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def _to_number(value: Value) -> float:
    kind = _kind(value)
    if kind == "null":
        return 0.0
    if kind in ("bool", "number"):
        return float(value)
    if kind == "string":
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            return math.nan
    return math.nan


def _equal(a: Value, b: Value) -> bool:
    if _kind(a) == _kind(b):
        if isinstance(a, str):
            return a.lower() == str(b).lower()
        if _kind(a) == "object":
            return a is b
        return bool(a == b)
    return _to_number(a) == _to_number(b)


def _order(op: str, a: Value, b: Value) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        x: Any = a.lower()
        y: Any = b.lower()
    else:
        x, y = _to_number(a), _to_number(b)
        if math.isnan(x) or math.isnan(y):
            return False
    return bool({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])


def truthy(value: Value) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def to_text(value: Value) -> str:
    """A value where a string is needed (interpolation, format(), env)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    raise Unsupported(f"an object or array ({value!r}) where a string is needed: use toJSON()")


def _lookup(obj: Value, key: str, path: str) -> Value:
    if obj is None:
        return None
    if isinstance(obj, list):
        if key.isdigit() and int(key) < len(obj):
            return obj[int(key)]
        raise Unsupported(f"{path}: no item {key} in a list of {len(obj)}")
    if not isinstance(obj, dict):
        raise Unsupported(f"{path}: {obj!r} has no properties")
    for name, value in obj.items():
        if name.lower() == key.lower():
            return value
    if isinstance(obj, Lenient):
        return None
    known = ", ".join(sorted(obj)) or "none"
    raise Unsupported(f"{path} is not available here (known: {known})")


@dataclass
class Scope:
    """The contexts an expression may read, and the job's status for status functions."""

    contexts: dict[str, Value]
    status: str | None = None  # "success" | "failure": only where status functions are allowed
    where: str = ""

    def with_(self, **contexts: Value) -> Scope:
        return dataclasses.replace(self, contexts={**self.contexts, **contexts})


def _evaluate(node: Node, scope: Scope, text: str) -> Value:
    op = node[0]
    if op == "lit":
        return node[1]
    if op == "ctx":
        name = node[1].lower()
        if name not in scope.contexts:
            raise Unsupported(
                f"{scope.where}: the context `{node[1]}` in {text!r} is not supported here"
            )
        return scope.contexts[name]
    if op == "prop":
        obj = _evaluate(node[1], scope, text)
        return _lookup(obj, node[2], f"{scope.where}: `{text}`")
    if op == "index":
        obj = _evaluate(node[1], scope, text)
        key = _evaluate(node[2], scope, text)
        return _lookup(obj, to_text(key), f"{scope.where}: `{text}`")
    if op == "not":
        return not truthy(_evaluate(node[1], scope, text))
    if op == "and":
        left = _evaluate(node[1], scope, text)
        return _evaluate(node[2], scope, text) if truthy(left) else left
    if op == "or":
        left = _evaluate(node[1], scope, text)
        return left if truthy(left) else _evaluate(node[2], scope, text)
    if op == "cmp":
        a, b = _evaluate(node[2], scope, text), _evaluate(node[3], scope, text)
        if node[1] == "==":
            return _equal(a, b)
        if node[1] == "!=":
            return not _equal(a, b)
        return _order(node[1], a, b)
    if op == "call":
        return _call(node[1], [_evaluate(arg, scope, text) for arg in node[2]], scope, text)
    raise AssertionError(node)


def _call(name: str, args: list[Value], scope: Scope, text: str) -> Value:
    if name in _STATUS:
        if scope.status is None or args:
            raise Unsupported(f"{scope.where}: {name}() is only for `if:` ({text!r})")
        return {
            "always": True,
            "success": scope.status == "success",
            "failure": scope.status == "failure",
            "cancelled": False,
        }[name]
    if name == "contains":
        haystack, needle = args
        if isinstance(haystack, list):
            return any(_equal(item, needle) for item in haystack)
        return to_text(needle).lower() in to_text(haystack).lower()
    if name == "startswith":
        return to_text(args[0]).lower().startswith(to_text(args[1]).lower())
    if name == "endswith":
        return to_text(args[0]).lower().endswith(to_text(args[1]).lower())
    if name == "format":
        template, *rest = args
        return re.sub(
            r"\{(\d+)\}|\{\{|\}\}",
            lambda m: to_text(rest[int(m.group(1))]) if m.group(1) else m.group(0)[0],
            to_text(template),
        )
    if name == "join":
        items = args[0] if isinstance(args[0], list) else [args[0]]
        separator = to_text(args[1]) if len(args) > 1 else ","
        return separator.join(to_text(item) for item in items)
    if name == "tojson":
        return json.dumps(args[0], indent=2)
    if name == "fromjson":
        return json.loads(to_text(args[0]))
    raise AssertionError(name)


def evaluate(expression: str, scope: Scope) -> Value:
    """The value of one expression (the text between `${{` and `}}`)."""
    return _evaluate(_Parser(expression).parse(), scope, expression.strip())


def _split(text: str) -> Iterator[tuple[bool, str]]:
    """(False, literal text) and (True, expression) parts of a string with `${{ }}`."""
    pos = 0
    while (start := text.find("${{", pos)) >= 0:
        if start > pos:
            yield False, text[pos:start]
        end, quoted = start + 3, False
        while end < len(text) and (quoted or not text.startswith("}}", end)):
            if text[end] == "'":
                quoted = not quoted
            end += 1
        if end >= len(text):
            raise Unsupported(f"unterminated ${{{{ in {text!r}")
        yield True, text[start + 3 : end]
        pos = end + 2
    if pos < len(text):
        yield False, text[pos:]


def interpolate(value: Value, scope: Scope) -> Value:
    """A workflow value with its `${{ }}` evaluated: a string that is one expression keeps the
    expression's type; otherwise the parts are joined as text. Lists and maps recursively."""
    if isinstance(value, dict):
        return {k: interpolate(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, scope) for v in value]
    if not isinstance(value, str) or "${{" not in value:
        return value
    parts = list(_split(value))
    if len(parts) == 1 and parts[0][0]:
        return evaluate(parts[0][1], scope)
    return "".join(to_text(evaluate(p, scope)) if is_expr else p for is_expr, p in parts)


def condition(value: Value, scope: Scope) -> bool:
    """An `if:`: without a status function it means `success() && (...)`."""
    if value is None:
        value = "success()"
    if isinstance(value, bool):
        return value and scope.status == "success"
    text = str(value).strip()
    if text.startswith("${{") and text.endswith("}}") and text.count("${{") == 1:
        text = text[3:-2]
    elif "${{" in text:
        raise Unsupported(f"{scope.where}: `if: {value}` mixes text and ${{{{ }}}}")
    node = _Parser(text).parse()
    if not _uses_status(node):
        node = ("and", ("call", "success", []), node)
    return truthy(_evaluate(node, scope, text))


# ---------------------------------------------------------------------------------- the runner


@dataclass
class Event:
    """What triggered the workflow: `pull_request`, `merge_group`, `push`, `schedule` or
    `workflow_dispatch`."""

    name: str
    payload: dict[str, Any]
    sha: str
    ref: str
    base_ref: str = ""
    head_ref: str = ""
    changed_files: tuple[str, ...] | None = None  # for `paths:` filters

    @classmethod
    def pull_request(
        cls, number: int, base: str, head: str, changed: tuple[str, ...], branch: str = "topic"
    ) -> Event:
        payload = {
            "action": "synchronize",
            "number": number,
            "pull_request": {
                "number": number,
                "base": {"ref": "main", "sha": base},
                "head": {"ref": branch, "sha": head},
            },
        }
        return cls(
            "pull_request", payload, head, f"refs/pull/{number}/merge", "main", branch, changed
        )

    @classmethod
    def merge_group(cls, base: str, head: str, number: int = 1) -> Event:
        """A merge queue's check of its commit `head` (pull request `number` on `base`). The
        payload is lenient, as GitHub's: `github.event.pull_request` is null here."""
        queue = f"refs/heads/gh-readonly-queue/main/pr-{number}-{base}"
        payload = Lenient(
            {
                "action": "checks_requested",
                "merge_group": {"head_sha": head, "head_ref": queue, "base_sha": base,
                                "base_ref": "refs/heads/main"},
            }
        )  # fmt: skip
        return cls("merge_group", payload, head, queue)

    @classmethod
    def push(cls, before: str, after: str, changed: tuple[str, ...], branch: str = "main") -> Event:
        payload = {"ref": f"refs/heads/{branch}", "before": before, "after": after}
        return cls("push", payload, after, f"refs/heads/{branch}", changed_files=changed)

    @classmethod
    def schedule(cls, sha: str, cron: str) -> Event:
        return cls("schedule", {"schedule": cron}, sha, "refs/heads/main")

    @classmethod
    def workflow_dispatch(cls, sha: str, branch: str = "main") -> Event:
        """Run by hand (Actions > workflow > Run workflow) on `branch`, at `sha`."""
        payload = {"ref": f"refs/heads/{branch}", "inputs": {}}
        return cls("workflow_dispatch", payload, sha, f"refs/heads/{branch}")

    @property
    def head_sha(self) -> str:
        """The commit GitHub files the run under (`head_sha` of the runs API)."""
        if self.name == "pull_request":
            head: str = self.payload["pull_request"]["head"]["sha"]
            return head
        return self.sha


@dataclass
class StepResult:
    name: str
    id: str | None
    outcome: str  # success | failure | skipped
    conclusion: str  # after continue-on-error
    exit_code: int | None = None
    log: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class Upload:
    name: str
    path: Path
    exists: bool


@dataclass
class JobResult:
    caller_job: str
    matrix: dict[str, Any]
    name: str
    result: str  # success | failure | skipped
    environment: str | None
    inputs: dict[str, Any]
    steps: list[StepResult] = field(default_factory=list)
    uploads: list[Upload] = field(default_factory=list)
    summary: str = ""

    def step(self, name: str) -> StepResult:
        for step in self.steps:
            if name in (step.name, step.id):
                return step
        raise KeyError(f"no step {name!r}: {[s.name for s in self.steps]}")

    def log(self) -> str:
        return "\n".join(
            f"--- {s.name}: {s.outcome} (exit {s.exit_code})\n{s.log}" for s in self.steps
        )

    def annotations(self) -> list[str]:
        return [line for s in self.steps for line in s.log.splitlines() if line.startswith("::")]


@dataclass
class WorkflowResult:
    workflow: str
    triggered: bool
    jobs: list[JobResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(job.result != "failure" for job in self.jobs)

    def job(self) -> JobResult:
        (only,) = self.jobs
        return only


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise Unsupported(f"{path}: not a workflow")
    if True in data:  # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def _glob(pattern: str) -> re.Pattern[str]:
    """GitHub's filter patterns: `**` any characters, `*` any but '/', `?` one character."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] in "[]!+":
            raise Unsupported(f"the filter pattern {pattern!r}")
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def _matches(patterns: list[str], value: str) -> bool:
    return any(_glob(p).match(value) for p in patterns)


_STEP_KEYS = {
    "name", "id", "if", "env", "run", "uses", "with", "shell", "working-directory",
    "continue-on-error", "timeout-minutes",
}  # fmt: skip
_JOB_KEYS = {
    "name", "runs-on", "environment", "timeout-minutes", "permissions", "concurrency",
    "defaults", "env", "steps", "if", "needs",
}  # fmt: skip
_CALLER_KEYS = {"uses", "with", "secrets", "strategy", "permissions", "if", "needs", "name"}
_LEVELS = {"none": 0, "read": 1, "write": 2}


@dataclass
class Runner:
    """Runs the workflows of the git repository `workspace` (a checkout at the event's sha)."""

    workspace: Path
    temp: Path  # for RUNNER_TEMP and the runner's own files
    path: tuple[Path, ...]  # first on PATH: the fake gh's directory, a venv's bin (Python)
    environment_secrets: dict[str, dict[str, str]] = field(default_factory=dict)
    repository_secrets: dict[str, str] = field(default_factory=dict)
    input_overrides: dict[str, Any] = field(default_factory=dict)  # replace what callers pass
    repository: str = "acme/topics"
    token: str = "ghs_fake-token-of-this-run"
    timeout: float = 600.0
    runs: int = 0
    # Steps run once (step name -> the workspace files its script reads): a later run of the
    # same script with the same environment, directory and files replays the first successful
    # run's result (the install step: a no-op once its virtualenv holds the package)
    once: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _ran_once: dict[str, StepResult] = field(default_factory=dict, repr=False)
    # Where each run and its artifacts are recorded, for the workflows' `gh` to find
    github: FakeGitHub | None = None

    def triggered(self, caller: str, event: Event) -> bool:
        """Whether `event` starts `.github/workflows/<caller>`."""
        workflow = _load(self.workspace / ".github" / "workflows" / caller)
        return self._triggered(workflow.get("on"), event)

    def run(self, caller: str, event: Event) -> WorkflowResult:
        """Run `.github/workflows/<caller>` for `event`."""
        path = self.workspace / ".github" / "workflows" / caller
        workflow = _load(path)
        if not self._triggered(workflow.get("on"), event):
            return WorkflowResult(caller, triggered=False)
        self.runs += 1
        result = WorkflowResult(caller, triggered=True)
        _check_keys(workflow, {"name", "on", "permissions", "jobs", "env", "concurrency"}, caller)
        if "permissions" not in workflow:
            raise Unsupported(f"{caller}: no top-level `permissions:` (it would be the default)")
        for job_id, job in _needs_order(workflow["jobs"], caller):
            if "uses" not in job:
                raise Unsupported(f"{caller}: job {job_id} is not a call of a reusable workflow")
            _check_keys(job, _CALLER_KEYS, f"{caller}: job {job_id}")
            for matrix in _matrix(job.get("strategy"), f"{caller}: job {job_id}"):
                result.jobs.extend(self._call(caller, workflow, job_id, job, matrix, event))
        if self.github is not None:
            self.github.record_run(4200 + self.runs, caller, event, result)
        return result

    # -------------------------------------------------------------------------- triggers

    def _triggered(self, on: Any, event: Event) -> bool:
        triggers: dict[str, Any]
        if isinstance(on, str):
            triggers = {on: None}
        elif isinstance(on, list):
            triggers = dict.fromkeys(on)
        elif isinstance(on, dict):
            triggers = on
        else:
            raise Unsupported(f"`on: {on!r}`")
        if event.name not in triggers:
            return False
        spec = triggers[event.name] or {}
        if event.name == "schedule":
            crons = [entry["cron"] for entry in triggers["schedule"]]
            if event.payload["schedule"] not in crons:
                raise Unsupported(f"schedule {event.payload['schedule']!r} is not one of {crons}")
            return True
        if event.name == "workflow_dispatch":
            return True
        _check_keys(spec, {"branches", "paths", "types"}, f"on.{event.name}")
        branch = (
            event.base_ref
            if event.name == "pull_request"
            else event.ref.removeprefix("refs/heads/")
        )
        if "branches" in spec and not _matches(spec["branches"], branch):
            return False
        if "paths" in spec:
            if event.changed_files is None:
                raise Unsupported(f"on.{event.name}.paths: the event names no changed files")
            return any(_matches(spec["paths"], f) for f in event.changed_files)
        return True

    # -------------------------------------------------------------------- reusable workflows

    def _github(self, event: Event, workflow: str, job: str) -> dict[str, Any]:
        owner = self.repository.split("/")[0]
        return {
            "event_name": event.name,
            "event": event.payload,
            "repository": self.repository,
            "repository_owner": owner,
            "sha": event.sha,
            "ref": event.ref,
            "ref_name": event.ref.removeprefix("refs/heads/"),
            "base_ref": event.base_ref,
            "head_ref": event.head_ref,
            "workspace": str(self.workspace),
            "run_id": str(4200 + self.runs),
            "run_number": str(self.runs),
            "run_attempt": "1",
            "server_url": "https://github.com",
            "api_url": "https://api.github.com",
            "token": self.token,
            "workflow": workflow,
            "actor": "octocat",
            "job": job,
        }

    def _call(
        self,
        caller: str,
        workflow: dict[str, Any],
        job_id: str,
        job: dict[str, Any],
        matrix: dict[str, Any],
        event: Event,
    ) -> list[JobResult]:
        where = f"{caller}: job {job_id}"
        scope = Scope(
            {
                "github": self._github(event, workflow.get("name", caller), job_id),
                "matrix": matrix,
                "secrets": Lenient(self.repository_secrets),  # an unset secret is ''
                "inputs": {},
            },
            where=where,
        )
        if "if" in job and not condition(job["if"], dataclasses.replace(scope, status="success")):
            return []
        uses = job["uses"]
        if not isinstance(uses, str) or not uses.startswith("./.github/workflows/"):
            raise Unsupported(f"{where}: only local reusable workflows, not {uses!r}")
        called = _load(self.workspace / uses)
        if not isinstance(called.get("on"), dict) or "workflow_call" not in called["on"]:
            raise Unsupported(f"{uses}: no `on: workflow_call`")
        call = called["on"]["workflow_call"] or {}
        inputs = self._inputs(call.get("inputs") or {}, job.get("with") or {}, scope, where)
        passed: dict[str, str] | None
        secrets_spec = job.get("secrets")
        if secrets_spec == "inherit":
            passed = None
        else:
            passed = {}
            declared = call.get("secrets") or {}
            for name, value in (secrets_spec or {}).items():
                if name not in declared:
                    raise Unsupported(f"{where}: secret {name} is not declared by {uses}")
                passed[name] = to_text(interpolate(value, scope))
            for name, spec in declared.items():
                if (spec or {}).get("required") and name not in passed:
                    raise Unsupported(f"{where}: required secret {name} is not passed")
        caller_permissions = job.get("permissions")
        if caller_permissions is None:
            raise Unsupported(f"{where}: no `permissions:`")
        results = []
        for called_id, called_job in _needs_order(called["jobs"], uses):
            _check_keys(called_job, _JOB_KEYS, f"{uses}: job {called_id}")
            _check_permissions(caller_permissions, called_job.get("permissions"), where, uses)
            results.append(
                self._job(
                    caller=job_id,
                    matrix=matrix,
                    workflow_name=called.get("name", uses),
                    workflow_env=called.get("env") or {},
                    job_id=called_id,
                    job=called_job,
                    inputs=inputs,
                    declared_secrets=set(call.get("secrets") or {}),
                    passed=passed,
                    event=event,
                    where=f"{uses}: job {called_id} (called by {where}, matrix {matrix})",
                )
            )
        return results

    def _inputs(
        self, declared: dict[str, Any], given: dict[str, Any], scope: Scope, where: str
    ) -> dict[str, Any]:
        for name in given:
            if name not in declared:
                raise Unsupported(f"{where}: input {name!r} is not declared")
        for name in self.input_overrides:
            if name not in given:
                raise Unsupported(f"{where}: the test overrides input {name!r}, not passed here")
        values: dict[str, Any] = {}
        for name, declaration in declared.items():
            spec = declaration or {}
            kind = spec.get("type")
            if name in self.input_overrides:
                value = self.input_overrides[name]
            elif name in given:
                value = interpolate(given[name], scope)
            elif "default" in spec:
                value = interpolate(spec["default"], scope)
            elif spec.get("required"):
                raise Unsupported(f"{where}: required input {name!r} is not passed")
            else:
                value = {"string": "", "number": 0, "boolean": False}.get(str(kind))
            if kind == "string":
                if not isinstance(value, str):
                    raise Unsupported(f"{where}: input {name!r} is a string, given {value!r}")
            elif kind == "number":
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise Unsupported(f"{where}: input {name!r} is a number, given {value!r}")
            elif kind == "boolean":
                if not isinstance(value, bool):
                    raise Unsupported(f"{where}: input {name!r} is a boolean, given {value!r}")
            else:
                raise Unsupported(f"{where}: input {name!r} has type {kind!r}")
            values[name] = value
        return values

    # ------------------------------------------------------------------------------ a job

    def _job(
        self,
        caller: str,
        matrix: dict[str, Any],
        workflow_name: str,
        workflow_env: dict[str, Any],
        job_id: str,
        job: dict[str, Any],
        inputs: dict[str, Any],
        declared_secrets: set[str],
        passed: dict[str, str] | None,
        event: Event,
        where: str,
    ) -> JobResult:
        if "strategy" in job or "needs" in job:
            raise Unsupported(f"{where}: strategy/needs inside a reusable workflow")
        github = self._github(event, workflow_name, job_id)
        scope = Scope({"github": github, "inputs": inputs, "matrix": {}}, where=where)
        environment_value = interpolate(job.get("environment"), scope)
        if isinstance(environment_value, dict):
            environment_value = environment_value.get("name")
        environment = to_text(environment_value) or None
        env_secrets = self.environment_secrets.get(environment or "", {})
        if environment is not None and environment not in self.environment_secrets:
            raise Unsupported(f"{where}: the test defines no environment {environment!r}")
        secrets: dict[str, str]
        if passed is None:  # secrets: inherit
            secrets = Lenient({**self.repository_secrets, **env_secrets})
        else:
            # Declared secrets: what the caller passed, the environment's value for a name it
            # passed, '' for one it did not pass (GitHub's rules for reusable workflows).
            secrets = {
                name: (env_secrets.get(name, passed[name]) if name in passed else "")
                for name in declared_secrets
            }
        scope = scope.with_(secrets=secrets)
        result = JobResult(
            caller_job=caller,
            matrix=matrix,
            name=to_text(interpolate(job.get("name", job_id), scope)),
            result="success",
            environment=environment,
            inputs=inputs,
        )
        if "if" in job and not condition(job["if"], dataclasses.replace(scope, status="success")):
            result.result = "skipped"
            return result
        if "permissions" not in job:
            raise Unsupported(f"{where}: no job-level `permissions:`")
        for step in job.get("steps") or []:
            if "${{" in str(step.get("run", "")):
                raise Unsupported(
                    f"{where}: `${{{{ }}}}` inside a run: script (pass values through env:): "
                    f"{step.get('name') or step['run']!r}"
                )
        for key in ("runs-on", "timeout-minutes", "concurrency"):
            interpolate(job.get(key), scope)  # evaluated, so they may only use what is there
        defaults = (job.get("defaults") or {}).get("run") or {}
        _check_keys(defaults, {"shell", "working-directory"}, f"{where}: defaults.run")
        shell = interpolate(defaults.get("shell", "bash"), scope)
        workdir = to_text(interpolate(defaults.get("working-directory", "."), scope))
        runner_temp = self.temp / f"run{self.runs}-{caller}-{job_id}-{len(matrix)}"
        for n in itertools.count():
            candidate = runner_temp.with_name(f"{runner_temp.name}-{n}")
            if not candidate.exists():
                runner_temp = candidate
                break
        runner_temp.mkdir(parents=True)
        event_path = runner_temp / "_event.json"
        event_path.write_text(json.dumps(event.payload), encoding="utf-8")
        summary = runner_temp / "_step_summary.md"
        summary.touch()
        runner = {"temp": str(runner_temp), "os": "Linux", "arch": "X64", "name": "fake"}
        scope = scope.with_(runner=runner, steps={})
        env: dict[str, str] = {}
        for name, value in {**workflow_env, **(job.get("env") or {})}.items():
            env[name] = to_text(interpolate(value, scope.with_(env=dict(env))))
        base = self._base_env(event, github, runner_temp, event_path, summary, job_id)
        steps: dict[str, Any] = {}
        added_env: dict[str, str] = {}
        added_path: list[str] = []
        for index, step in enumerate(job.get("steps") or []):
            _check_keys(step, _STEP_KEYS, f"{where}: step {index}")
            step_where = f"{where}: step {step.get('name') or step.get('uses') or index}"
            status = "failure" if result.result == "failure" else "success"
            step_scope = dataclasses.replace(
                scope.with_(steps=steps, env={**env, **added_env}), status=status, where=step_where
            )
            name = to_text(interpolate(step.get("name") or step.get("uses") or step["run"],
                                       step_scope))  # fmt: skip
            record = StepResult(name=name, id=step.get("id"), outcome="skipped",
                                conclusion="skipped")  # fmt: skip
            result.steps.append(record)
            if not condition(step.get("if"), step_scope):
                if record.id:
                    steps[record.id] = {"outputs": Lenient(), "outcome": "skipped",
                                        "conclusion": "skipped"}  # fmt: skip
                continue
            step_env = dict(added_env)
            for key, value in (step.get("env") or {}).items():
                step_env[key] = to_text(interpolate(value, step_scope.with_(
                    env={**env, **step_env})))  # fmt: skip
            if "uses" in step:
                ok = self._action(step, step_scope, event, result, record)
            else:
                ok = self._script(
                    step, step_scope, shell, workdir, base, {**env, **step_env}, added_path,
                    runner_temp, index, record,
                )  # fmt: skip
                outputs_file = runner_temp / f"_output_{index}"
                record.outputs = _read_commands(outputs_file)
                added_env.update(_read_commands(runner_temp / f"_env_{index}"))
                path_file = runner_temp / f"_path_{index}"
                if path_file.exists():
                    added_path[:0] = [p for p in path_file.read_text().splitlines() if p]
            record.outcome = "success" if ok else "failure"
            keep_going = bool(interpolate(step.get("continue-on-error", False), step_scope))
            record.conclusion = "success" if ok or keep_going else "failure"
            if record.conclusion == "failure":
                result.result = "failure"
            if record.id:
                steps[record.id] = {"outputs": Lenient(record.outputs), "outcome": record.outcome,
                                    "conclusion": record.conclusion}  # fmt: skip
        result.summary = summary.read_text(encoding="utf-8")
        return result

    def _base_env(
        self,
        event: Event,
        github: dict[str, Any],
        runner_temp: Path,
        event_path: Path,
        summary: Path,
        job_id: str,
    ) -> dict[str, str]:
        keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_CACHE_DIR", "TERM")
        system = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        return {
            **{k: os.environ[k] for k in keep if k in os.environ},
            "PATH": os.pathsep.join([*map(str, self.path), *system]),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event.name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": github["repository_owner"],
            "GITHUB_SHA": event.sha,
            "GITHUB_REF": event.ref,
            "GITHUB_BASE_REF": event.base_ref,
            "GITHUB_HEAD_REF": event.head_ref,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_SERVER_URL": github["server_url"],
            "GITHUB_API_URL": github["api_url"],
            "GITHUB_RUN_ID": github["run_id"],
            "GITHUB_RUN_NUMBER": github["run_number"],
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_ACTOR": "octocat",
            "GITHUB_WORKFLOW": github["workflow"],
            "GITHUB_JOB": job_id,
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(runner_temp),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
        }

    def _script(
        self,
        step: dict[str, Any],
        scope: Scope,
        shell: Any,
        workdir: str,
        base: dict[str, str],
        env: dict[str, str],
        added_path: list[str],
        runner_temp: Path,
        index: int,
        record: StepResult,
    ) -> bool:
        script = step["run"]
        if "${{" in script:
            raise Unsupported(
                f"{scope.where}: `${{{{ }}}}` inside a run: script (pass values through env:)"
            )
        shell = interpolate(step.get("shell", shell), scope)
        if shell != "bash":
            raise Unsupported(f"{scope.where}: shell {shell!r} (only bash)")
        cwd = self.workspace / to_text(interpolate(step.get("working-directory", workdir), scope))
        script_file = runner_temp / f"_step_{index}.sh"
        script_file.write_text(script, encoding="utf-8")
        files = {
            "GITHUB_OUTPUT": runner_temp / f"_output_{index}",
            "GITHUB_ENV": runner_temp / f"_env_{index}",
            "GITHUB_PATH": runner_temp / f"_path_{index}",
        }
        for path in files.values():
            path.touch()
        full = {**base, **env, **{k: str(v) for k, v in files.items()}}
        full["PATH"] = os.pathsep.join([*added_path, base["PATH"]])
        key = self._once_key(record.name, script, cwd, env, full["PATH"])
        if key is not None and key in self._ran_once:
            first = self._ran_once[key]
            record.exit_code = first.exit_code
            record.log = f"(replayed: this script ran with the same inputs before)\n{first.log}"
            return True
        try:
            done = subprocess.run(
                [*SHELL, str(script_file)],
                cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=self.timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            record.log = f"timed out after {self.timeout} s: {exc.output}"
            return False
        record.exit_code = done.returncode
        record.log = done.stdout
        wrote = any(runner_temp.joinpath(f"_{kind}_{index}").stat().st_size
                    for kind in ("output", "env", "path"))  # fmt: skip
        if key is not None and done.returncode == 0 and not wrote:
            self._ran_once[key] = record
        return done.returncode == 0

    def _once_key(
        self, name: str, script: str, cwd: Path, env: dict[str, str], path: str
    ) -> str | None:
        """What a step of `once` depends on: its script, the environment the workflow gives it
        (not the runner's per-run variables, which it does not read), its directory, PATH, and
        the bytes of the files it reads. None for the other steps."""
        if name not in self.once:
            return None
        read = {f: hashlib.sha256((cwd / f).read_bytes()).hexdigest() if (cwd / f).is_file()
                else None for f in self.once[name]}  # fmt: skip
        return json.dumps([name, script, str(cwd), sorted(env.items()), path, read])

    def _action(
        self, step: dict[str, Any], scope: Scope, event: Event, job: JobResult, record: StepResult
    ) -> bool:
        uses = step["uses"]
        if not PINNED.match(uses):
            raise Unsupported(f"{scope.where}: {uses!r} is not pinned by a full commit SHA")
        action = uses.split("@")[0]
        given = interpolate(step.get("with") or {}, scope)
        allowed = {
            "actions/checkout": {"fetch-depth", "persist-credentials", "ref"},
            "actions/setup-python": {"python-version"},
            "actions/upload-artifact": {"name", "path", "if-no-files-found", "overwrite"},
        }
        if action not in allowed:
            raise Unsupported(f"{scope.where}: the action {action}")
        _check_keys(given, allowed[action], f"{scope.where}: with")
        if action == "actions/checkout":
            head = subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=self.workspace, capture_output=True, text=True,
                check=True,
            ).stdout.strip()  # fmt: skip
            wanted = to_text(given.get("ref")) or event.sha
            if not re.fullmatch(r"[0-9a-f]{40}", wanted):
                raise Unsupported(f"{scope.where}: checkout ref {wanted!r} is not a commit SHA")
            if head != wanted:
                raise Unsupported(f"{scope.where}: the workspace is at {head}, not {wanted}")
            record.log = f"(checked out {head} in {self.workspace})"
            return True
        if action == "actions/setup-python":
            if not to_text(given.get("python-version")):
                raise Unsupported(f"{scope.where}: no python-version")
            record.log = f"(Python {given['python-version']}: the runner's PATH has one)"
            return True
        path = Path(to_text(given["path"]))
        if not path.is_absolute():
            path = self.workspace / path
        exists = path.is_file()
        job.uploads.append(Upload(to_text(given["name"]), path, exists))
        record.log = f"(upload {given['name']}: {path} {'exists' if exists else 'is missing'})"
        return exists or given.get("if-no-files-found", "warn") != "error"


def _check_keys(mapping: Any, allowed: set[str], where: str) -> None:
    if not isinstance(mapping, dict):
        raise Unsupported(f"{where}: expected a mapping, found {mapping!r}")
    unknown = set(mapping) - allowed
    if unknown:
        raise Unsupported(f"{where}: {sorted(unknown)} not supported")


def _needs_order(jobs: dict[str, Any], where: str) -> list[tuple[str, dict[str, Any]]]:
    done: list[str] = []
    pending = dict(jobs)
    while pending:
        ready = [
            j for j, spec in pending.items()
            if all(n in done for n in _as_list(spec.get("needs")))
        ]  # fmt: skip
        if not ready:
            raise Unsupported(f"{where}: a `needs:` cycle or unknown job in {sorted(pending)}")
        for job_id in ready:
            done.append(job_id)
            del pending[job_id]
    return [(j, jobs[j]) for j in done]


def _as_list(value: Any) -> list[Any]:
    return [] if value is None else value if isinstance(value, list) else [value]


def _matrix(strategy: Any, where: str) -> list[dict[str, Any]]:
    if strategy is None:
        return [{}]
    _check_keys(strategy, {"matrix", "fail-fast", "max-parallel"}, f"{where}: strategy")
    matrix = strategy.get("matrix") or {}
    if not isinstance(matrix, dict) or {"include", "exclude"} & set(matrix):
        raise Unsupported(f"{where}: matrix include/exclude or expressions")
    for key, values in matrix.items():
        if not isinstance(values, list) or any("${{" in str(v) for v in values):
            raise Unsupported(f"{where}: matrix.{key} must be a plain list")
    keys = list(matrix)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*matrix.values())]


def _check_permissions(caller: Any, called: Any, where: str, uses: str) -> None:
    """A called job may not ask for more than the caller job grants (GitHub refuses the run)."""
    if called is None:
        raise Unsupported(f"{uses}: a job without `permissions:`")
    if not isinstance(caller, dict) or not isinstance(called, dict):
        raise Unsupported(f"{where}: permissions must be maps ({caller!r}, {called!r})")
    for scope_name, level in called.items():
        granted = caller.get(scope_name, "none")
        if _LEVELS[level] > _LEVELS[granted]:
            raise Unsupported(
                f"{uses} asks for {scope_name}: {level}, {where} grants {scope_name}: {granted}"
            )


def _read_commands(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV: `name=value` lines and `name<<DELIMITER` blocks."""
    values: dict[str, str] = {}
    if not path.exists():
        return values
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values


# ------------------------------------------------------------------------------ the fake gh


@dataclass
class FakeGitHub:
    """A stand-in for the GitHub API behind `gh`, with a `gh` script in `directory / "bin"`."""

    directory: Path
    repository: str
    token: str

    def __post_init__(self) -> None:
        (self.directory / "bin").mkdir(parents=True, exist_ok=True)
        if not self.state_file.exists():
            state = {
                "repository": self.repository,
                "token": self.token,
                "next_id": 9000,
                "next_number": 1,
                "comments": [],
                "issues": [],
                "labels": {},
                "pulls": [],
                "runs": [],
            }
            self.save(state)
        gh = self.directory / "bin" / "gh"
        code = (
            "import sys; sys.path.insert(0, sys.argv.pop(1)); "
            "from tests.adopt.workflow_runner import gh_main; "
            "sys.exit(gh_main(sys.argv.pop(1), sys.argv[1:]))"
        )
        gh.write_text(
            "#!/bin/sh\n"
            f"exec {shlex.quote(sys.executable)} -c {shlex.quote(code)} "
            f'{shlex.quote(str(ROOT))} {shlex.quote(str(self.directory))} "$@"\n'
        )
        gh.chmod(0o755)

    @property
    def bin(self) -> Path:
        return self.directory / "bin"

    @property
    def state_file(self) -> Path:
        return self.directory / "state.json"

    @property
    def log_file(self) -> Path:
        return self.directory / "calls.jsonl"

    def state(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.state_file.read_text(encoding="utf-8"))
        return loaded

    def save(self, state: dict[str, Any]) -> None:
        self.state_file.write_text(json.dumps(state, indent=1), encoding="utf-8")

    def calls(self) -> list[dict[str, Any]]:
        if not self.log_file.exists():
            return []
        return [json.loads(line) for line in self.log_file.read_text().splitlines()]

    def comments(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.state()["comments"] if c["issue"] == number]

    def issues(self) -> list[dict[str, Any]]:
        issues: list[dict[str, Any]] = self.state()["issues"]
        return issues

    def merge_pull_request(
        self, number: int, head: str, merge_commit: str, base: str = "main"
    ) -> None:
        """Pull request `number` from `head` was merged into `base` as `merge_commit`."""
        state = self.state()
        state["pulls"].append({
            "number": number, "state": "closed", "head": {"sha": head},
            "base": {"ref": base}, "merge_commit_sha": merge_commit,
            "merged_at": "2026-11-26T22:00:00Z",
        })  # fmt: skip
        self.save(state)

    def record_run(self, run_id: int, caller: str, event: Event, result: WorkflowResult) -> None:
        """A finished run of `.github/workflows/<caller>` and the artifacts its jobs uploaded
        (copied, as GitHub keeps them, so a later run's files cannot change them)."""
        state = self.state()
        artifacts: dict[str, str] = {}
        for job in result.jobs:
            for upload in job.uploads:
                if upload.exists:
                    stored = self.directory / "artifacts" / str(run_id) / upload.name
                    stored.mkdir(parents=True, exist_ok=True)
                    shutil.copy(upload.path, stored / upload.path.name)
                    artifacts[upload.name] = str(stored)
        state["runs"].insert(0, {  # newest first, as the API lists them
            "id": run_id, "path": f".github/workflows/{caller}", "event": event.name,
            "head_sha": event.head_sha, "status": "completed",
            "conclusion": "success" if result.ok else "failure", "artifacts": artifacts,
        })  # fmt: skip
        self.save(state)

    def add_comment(self, number: int, body: str, login: str) -> dict[str, Any]:
        """A comment someone else wrote (the workflows must leave it alone)."""
        state = self.state()
        comment = _new_comment(state, number, body, login)
        self.save(state)
        return comment


def _new_comment(state: dict[str, Any], number: int, body: str, login: str) -> dict[str, Any]:
    state["next_id"] += 1
    comment_id = state["next_id"]
    comment = {
        "id": comment_id,
        "issue": number,
        "body": body,
        "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
        "html_url": f"https://github.com/{state['repository']}/issues/{number}"
        f"#issuecomment-{comment_id}",
    }
    state["comments"].append(comment)
    return comment


class _GhError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _options(
    args: list[str], spec: Mapping[str, str], multi: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], list[str]]:
    """Parse `args` by `spec` ({flag or alias: canonical name or 'flag:NAME' for booleans})."""
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg != "-":
            flag, eq, inline = arg.partition("=")
            if flag not in spec:
                raise _GhError(f"unsupported flag {flag} in: gh {shlex.join(args)}")
            name = spec[flag]
            if name.startswith("flag:"):
                values[name[5:]] = True
                i += 1
                continue
            if eq:
                value = inline
            else:
                if i + 1 >= len(args):
                    raise _GhError(f"flag needs an argument: {flag}")
                value = args[i + 1]
                i += 1
            if name in multi:
                values.setdefault(name, []).append(value)
            else:
                values[name] = value
        else:
            positional.append(arg)
        i += 1
    return values, positional


def _jq(expression: str | None, data: Any) -> str:
    if expression is None:
        return json.dumps(data)
    import jq  # type: ignore[import-not-found]

    out = []
    for item in jq.compile(expression).input_value(data).all():
        out.append(item if isinstance(item, str) else json.dumps(item, separators=(",", ":")))
    return "".join(line + "\n" for line in out)


def _read_value(value: str, stdin: Callable[[], str], files: dict[str, str]) -> str:
    if value == "-":
        return stdin()
    path = Path(value)
    text = path.read_text(encoding="utf-8")
    files[str(path)] = text
    return text


def gh_main(directory: str, args: list[str]) -> int:
    """The fake `gh`: log the call, answer it from the state, save the state."""
    fake = Path(directory)
    stdin_text: list[str] = []

    def stdin() -> str:
        if not stdin_text:
            stdin_text.append(sys.stdin.read())
        return stdin_text[0]

    files: dict[str, str] = {}
    entry: dict[str, Any] = {"argv": args, "files": files}
    state_file = fake / "state.json"
    state: dict[str, Any] = json.loads(state_file.read_text(encoding="utf-8"))
    code = 0
    try:
        if os.environ.get("GH_TOKEN") != state["token"]:
            raise _GhError(
                "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN "
                "environment variable. (fake: GH_TOKEN is not github.token)",
                4,
            )
        output = _gh(state, args, stdin, files)
        state_file.write_text(json.dumps(state, indent=1), encoding="utf-8")
        sys.stdout.write(output)
    except _GhError as exc:
        sys.stderr.write(f"{exc}\n")
        code = exc.code
    entry["exit"] = code
    if stdin_text:
        entry["stdin"] = stdin_text[0]
    with (fake / "calls.jsonl").open("a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
    return code


def _gh(state: dict[str, Any], args: list[str], stdin: Callable[[], str],
        files: dict[str, str]) -> str:  # fmt: skip
    if not args:
        raise _GhError("gh: no command")
    command, rest = args[0], args[1:]
    if command == "api":
        return _gh_api(state, rest, stdin, files)
    if command == "run" and rest[:1] == ["download"]:
        return _gh_run_download(state, rest[1:])
    if command == "issue" and rest:
        return _gh_issue(state, rest[0], rest[1:], stdin, files)
    if command == "label" and rest[:1] == ["create"]:
        opts, names = _options(
            rest[1:],
            {"--repo": "repo", "-R": "repo", "--color": "color", "-c": "color",
             "--description": "description", "-d": "description", "--force": "flag:force",
             "-f": "flag:force"},
        )  # fmt: skip
        _repo(state, opts)
        (name,) = names
        if name in state["labels"] and not opts.get("force"):
            raise _GhError(f'label with name "{name}" already exists; use `--force`')
        state["labels"][name] = {"color": opts.get("color"), "description": opts.get("description")}
        return ""
    raise _GhError(f"fake gh does not support: gh {shlex.join(args)}")


def _repo(state: dict[str, Any], opts: dict[str, Any]) -> None:
    if "repo" not in opts:
        raise _GhError("no git remotes found (fake gh: pass --repo)")
    if opts["repo"] != state["repository"]:
        raise _GhError(f"fake gh knows {state['repository']}, not {opts['repo']}")


def _gh_api(state: dict[str, Any], args: list[str], stdin: Callable[[], str],
            files: dict[str, str]) -> str:  # fmt: skip
    opts, positional = _options(
        args,
        {"--method": "method", "-X": "method", "--paginate": "flag:paginate", "--jq": "jq",
         "-q": "jq", "-F": "field", "--field": "field", "-f": "raw", "--raw-field": "raw",
         "-H": "header", "--header": "header"},
        multi=frozenset({"field", "raw", "header"}),
    )  # fmt: skip
    (endpoint,) = positional
    fields: dict[str, Any] = {}
    for item in opts.get("raw", []):
        key, _, value = item.partition("=")
        fields[key] = value
    for item in opts.get("field", []):
        key, _, value = item.partition("=")
        if value.startswith("@"):
            fields[key] = _read_value(value[1:], stdin, files)
        elif value in ("true", "false", "null") or value.lstrip("-").isdigit():
            fields[key] = json.loads(value)
        else:
            fields[key] = value
    method = opts.get("method", "POST" if fields else "GET").upper()
    path, _, query = endpoint.lstrip("/").partition("?")
    repo = f"repos/{state['repository']}/"
    if method == "GET" and path.startswith(repo) and not path.startswith(repo + "issues/"):
        return _jq(opts.get("jq"), _gh_api_read(state, path[len(repo) :], query))
    prefix = f"repos/{state['repository']}/issues/"
    if not path.startswith(prefix):
        raise _GhError(f"fake gh: no endpoint {method} {endpoint}", 1)
    route = path[len(prefix) :].split("/")
    if len(route) == 2 and route[1] == "comments" and route[0].isdigit():
        number = int(route[0])
        if method == "GET":
            listed = [_public(c) for c in state["comments"] if c["issue"] == number]
            return _jq(opts.get("jq"), listed)
        if method == "POST":
            _only(fields, {"body"})
            return _jq(opts.get("jq"), _public(_new_comment(
                state, number, fields["body"], "github-actions[bot]")))  # fmt: skip
    if len(route) == 2 and route[0] == "comments" and route[1].isdigit() and method == "PATCH":
        _only(fields, {"body"})
        for comment in state["comments"]:
            if comment["id"] == int(route[1]):
                comment["body"] = fields["body"]
                return _jq(opts.get("jq"), _public(comment))
        raise _GhError("gh: Not Found (HTTP 404)")
    raise _GhError(f"fake gh: no endpoint {method} {endpoint}")


def _gh_api_read(state: dict[str, Any], route: str, query: str) -> Any:
    """GET commits/SHA/pulls and actions/workflows/FILE/runs?head_sha=&event=&status=."""
    params = dict(urllib.parse.parse_qsl(query, strict_parsing=bool(query)))
    parts = route.split("/")
    if len(parts) == 3 and parts[0] == "commits" and parts[2] == "pulls" and not params:
        # GitHub lists the pull requests whose merge commit or branch holds the commit
        return [p for p in state["pulls"] if parts[1] in (p["merge_commit_sha"], p["head"]["sha"])]
    if len(parts) == 4 and parts[:2] == ["actions", "workflows"] and parts[3] == "runs":
        unknown = set(params) - {"head_sha", "event", "status", "per_page"}
        if unknown:
            raise _GhError(f"fake gh: runs filter {sorted(unknown)} not supported")
        runs = [
            {k: v for k, v in run.items() if k != "artifacts"} for run in state["runs"]
            if run["path"] == f".github/workflows/{parts[2]}"
            and all(run.get(key) == params[key] for key in ("head_sha", "event") if key in params)
            and params.get("status") in (None, run["status"], run["conclusion"])
        ][: int(params.get("per_page", 30))]  # fmt: skip
        return {"total_count": len(runs), "workflow_runs": runs}
    raise _GhError(f"fake gh: no endpoint GET {route}")


def _gh_run_download(state: dict[str, Any], args: list[str]) -> str:
    opts, positional = _options(
        args, {"--repo": "repo", "-R": "repo", "--name": "name", "-n": "name", "--dir": "dir",
               "-D": "dir"},
    )  # fmt: skip
    _repo(state, opts)
    (run_id,) = positional
    if "name" not in opts:
        raise _GhError("fake gh: run download needs --name (one artifact)")
    for run in state["runs"]:
        if str(run["id"]) == run_id:
            stored = run["artifacts"].get(opts["name"])
            if stored is None:
                raise _GhError("no artifact matches any of the names or patterns provided")
            target = Path(opts.get("dir", "."))
            target.mkdir(parents=True, exist_ok=True)
            for item in Path(stored).iterdir():
                shutil.copy(item, target / item.name)
            return ""
    raise _GhError(f"HTTP 404: Not Found (run {run_id})")


def _only(fields: dict[str, Any], allowed: set[str]) -> None:
    if set(fields) != allowed:
        raise _GhError(f"fake gh: fields {sorted(fields)}, expected {sorted(allowed)}")


def _public(comment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in comment.items() if k != "issue"}


def _issue_json(state: dict[str, Any], issue: dict[str, Any]) -> dict[str, Any]:
    return {
        "number": issue["number"],
        "title": issue["title"],
        "body": issue["body"],
        "state": issue["state"].upper(),
        "labels": [{"name": name} for name in issue["labels"]],
        "url": f"https://github.com/{state['repository']}/issues/{issue['number']}",
    }


def _find_issue(state: dict[str, Any], number: str) -> dict[str, Any]:
    for issue in state["issues"]:
        if str(issue["number"]) == number.lstrip("#"):
            found: dict[str, Any] = issue
            return found
    raise _GhError(f"GraphQL: Could not resolve to an issue with the number of {number}.")


def _gh_issue(state: dict[str, Any], sub: str, args: list[str], stdin: Callable[[], str],
              files: dict[str, str]) -> str:  # fmt: skip
    repo = {"--repo": "repo", "-R": "repo"}
    body = {"--body": "body", "-b": "body", "--body-file": "body_file", "-F": "body_file"}
    if sub == "list":
        opts, positional = _options(
            args,
            {**repo, "--label": "label", "-l": "label", "--state": "state", "-s": "state",
             "--limit": "limit", "-L": "limit", "--json": "json", "--jq": "jq", "-q": "jq"},
            multi=frozenset({"label"}),
        )  # fmt: skip
        _repo(state, opts)
        if positional or "json" not in opts:
            raise _GhError("fake gh: issue list needs --json (and no arguments)")
        wanted = opts.get("state", "open")
        listed = [
            issue for issue in reversed(state["issues"])
            if (wanted == "all" or issue["state"] == wanted)
            and all(label in issue["labels"] for label in opts.get("label", []))
        ][: int(opts.get("limit", 30))]  # fmt: skip
        fields = opts["json"].split(",")
        rows = [{f: _issue_json(state, i)[f] for f in fields} for i in listed]
        return _jq(opts.get("jq"), rows)
    if sub == "create":
        opts, positional = _options(
            args, {**repo, **body, "--title": "title", "-t": "title", "--label": "label",
                   "-l": "label"}, multi=frozenset({"label"}),
        )  # fmt: skip
        _repo(state, opts)
        text = _body(opts, stdin, files)
        if positional or "title" not in opts or text is None:
            raise _GhError("fake gh: issue create needs --title and a body, and no arguments")
        for label in opts.get("label", []):
            if label not in state["labels"]:
                raise _GhError(f"could not add label: '{label}' not found")
        number = state["next_number"]
        state["next_number"] += 1
        state["issues"].append({
            "number": number, "title": opts["title"], "body": text, "state": "open",
            "labels": opts.get("label", []), "comments": [],
        })  # fmt: skip
        return f"https://github.com/{state['repository']}/issues/{number}\n"
    if sub == "edit":
        opts, positional = _options(args, {**repo, **body, "--title": "title", "-t": "title"})
        _repo(state, opts)
        (number,) = positional
        issue = _find_issue(state, number)
        text = _body(opts, stdin, files)
        if text is not None:
            issue["body"] = text
        if "title" in opts:
            issue["title"] = opts["title"]
        return f"https://github.com/{state['repository']}/issues/{issue['number']}\n"
    if sub == "view":
        opts, positional = _options(args, {**repo, "--json": "json", "--jq": "jq", "-q": "jq"})
        _repo(state, opts)
        (number,) = positional
        if "json" not in opts:
            raise _GhError("fake gh: issue view needs --json")
        issue = _issue_json(state, _find_issue(state, number))
        return _jq(opts.get("jq"), {f: issue[f] for f in opts["json"].split(",")})
    if sub == "comment":
        opts, positional = _options(args, {**repo, **body})
        _repo(state, opts)
        (number,) = positional
        issue = _find_issue(state, number)
        text = _body(opts, stdin, files)
        if text is None:
            raise _GhError("fake gh: issue comment needs a body")
        issue["comments"].append(text)
        return f"https://github.com/{state['repository']}/issues/{issue['number']}#issuecomment\n"
    if sub == "close":
        opts, positional = _options(
            args, {**repo, "--comment": "comment", "-c": "comment", "--reason": "reason",
                   "-r": "reason"},
        )  # fmt: skip
        _repo(state, opts)
        (number,) = positional
        issue = _find_issue(state, number)
        if issue["state"] == "closed":
            return f"! Issue #{issue['number']} is already closed\n"
        issue["state"] = "closed"
        if "comment" in opts:
            issue["comments"].append(opts["comment"])
        return f"✓ Closed issue #{issue['number']} ({issue['title']})\n"
    raise _GhError(f"fake gh does not support: gh issue {sub}")


def _body(opts: dict[str, Any], stdin: Callable[[], str], files: dict[str, str]) -> str | None:
    if "body_file" in opts:
        return _read_value(opts["body_file"], stdin, files)
    body: str | None = opts.get("body")
    return body
