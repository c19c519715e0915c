"""User-supplied regular expressions, compiled and matched under a bound on their work.

policy.name_pattern, policy.ignore and import's --include/--exclude are written by people and
matched against topic names a pull request or a cluster supplies. Python's `re` backtracks
without limit: `^([a-z0-9]+[.-]?)+$` against 26 `a`s and a `_` took 15 s here, doubling with
each further character (days for a 41-character name), and a plan would stall every CI runner
that makes it. Every such pattern goes through `UserPattern` here and nowhere
else.

The engine is the `regex` package: Python's syntax (look-arounds, which `ignore` patterns use,
included; its version 0, the `re`-compatible one), guards of its own against many catastrophic
forms (`^([a-z0-9]+[.-]?)+$` finishes at once), and a per-call `timeout` that counts the
process's CPU time. A search it stops is judged again by its own thread's CPU time, so neither
a busy machine nor the process's other threads turn a fast pattern into a refused one.

The bound, per pattern and per command: one search may use `MATCH_SECONDS` of CPU, and all
searches of the pattern together `BUDGET_SECONDS` (so ten thousand names that each take just
under the per-search bound cannot add up to hours). The budget is measured with the wall clock
around each search: reading a CPU clock costs several times more than a typical search (about
10 us against 1 us here), and a plan matches every topic name of the cluster.

Exceeding the bound raises `PatternTooSlow`, a ConfigError naming the pattern, where it was
written and the name it was matching; validate turns it into a diagnostic (R508).
"""

from __future__ import annotations

import time

import regex

from reconciler.errors import ConfigError

MATCH_SECONDS = 1.0  # CPU time one search may take; real names take microseconds
BUDGET_SECONDS = 10.0  # time all searches of one pattern may take in one command
_RETRIES = 50  # searches stopped by the process's CPU before the thread's own counts as spent


class PatternTooSlow(ConfigError):
    """A user pattern exceeded its bound while matching a name (exit 1, nothing changed)."""

    def __init__(self, message: str, pattern: str, source: str, text: str) -> None:
        super().__init__(message)
        self.pattern = pattern
        self.source = source
        self.text = text


def problem(pattern: str) -> str | None:
    """Why `pattern` is not a regular expression this module compiles; None when it is one."""
    try:
        regex.compile(pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        return str(exc) or type(exc).__name__
    return None


class UserPattern:
    """One user-written pattern, compiled once, with where it was written (for messages).

    `source` names the place a person can fix: "policy.ignore of cluster prod
    (reconciler.yaml:12:9)", "--include". The CPU it has spent is kept on the object, so one
    object per pattern and command is what `BUDGET_SECONDS` bounds.
    """

    __slots__ = ("_compiled", "_spent", "source", "text")

    def __init__(self, text: str, source: str) -> None:
        """Raises ConfigError when `text` does not compile (validation says so earlier)."""
        why = problem(text)
        if why is not None:
            raise ConfigError(
                f"{source}: {text!r} is not a regular expression ({why}); fix it (Python syntax)"
            )
        self.text = text
        self.source = source
        self._compiled = regex.compile(text)
        self._spent = 0.0

    def __repr__(self) -> str:
        return f"UserPattern({self.text!r}, {self.source!r})"

    def search(self, name: str) -> bool:
        """Whether the pattern matches anywhere in `name` (re.search), within the bound."""
        allowed = min(MATCH_SECONDS, BUDGET_SECONDS - self._spent)
        if allowed <= 0:
            raise self._too_slow(name, whole_budget=True)
        started = time.perf_counter()
        try:
            return self._compiled.search(name, timeout=allowed) is not None
        except TimeoutError:
            return self._judged(name, allowed)
        finally:
            self._spent += time.perf_counter() - started

    def _judged(self, name: str, allowed: float) -> bool:
        """The search again, after `regex` stopped it, timed by this thread's own CPU.

        `regex`'s timeout counts the process's CPU time, every thread's: a search of
        microseconds whose thread waited (for the GIL, or for a core on a busy machine) while
        the process's other threads worked (a Kafka client's, a test runner's) was stopped as
        if the pattern had spent it (measured: CI's boundary-fault walk, a `^(?!...)` ignore
        pattern refused after "0.2 s of CPU"). Only the pattern's own work counts here; the
        clock is read on this path alone (it costs ten searches). A pattern that does backtrack
        without end is so stopped after twice its bound of CPU."""
        began = time.thread_time()
        for _ in range(_RETRIES):
            left = allowed - (time.thread_time() - began)
            if left <= 0:
                break
            try:
                return self._compiled.search(name, timeout=left) is not None
            except TimeoutError:
                continue
        raise self._too_slow(name, whole_budget=allowed < MATCH_SECONDS)

    def _too_slow(self, name: str, *, whole_budget: bool) -> PatternTooSlow:
        bound = (
            f"more than {BUDGET_SECONDS:g} s in all by the time it matched {name!r}"
            if whole_budget
            else f"more than {MATCH_SECONDS:g} s of CPU matching {name!r}"
        )
        return PatternTooSlow(
            f"{self.source}: the regular expression {self.text!r} took {bound}; it backtracks "
            "without end on some names (nested or overlapping repetition such as (a|aa)+ or "
            "(\\w|\\w\\w)+): rewrite it so each character can match only one way, e.g. "
            "'^[a-z0-9]+([.-][a-z0-9]+)*$'",
            self.text,
            self.source,
            name,
        )
