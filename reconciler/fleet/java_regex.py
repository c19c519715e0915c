"""policy.ignore patterns, translated to Java's regex dialect where that provably changes nothing.

The planner reads policy.ignore as Python regular expressions (`re.search`). Spark's `rlike`
is Java's `Matcher.find`: the same search, in a dialect that differs in places (named groups
are `(?<n>...)` there and `(?P<n>...)` here, `[` and `&&` inside a class mean a nested class
and an intersection there and literals here, `{,n}` is a literal there, flags fold case
differently). Evaluating the patterns in the JVM saves the job a Python UDF call per snapshot
row, so the common patterns are translated; a pattern outside the subset below is not
(`translate` returns None) and the job evaluates that cluster's patterns with the planner's own
function instead (fleet/names.py).

The subset, and why each part means the same in both dialects on the names it is applied to
(Kafka's legal topic names, ASCII letters, digits, '.', '_' and '-'; the job counts any other
name as a bad line):

    literals, escaped punctuation, \\t \\n \\r \\f \\v \\a \\xHH \\uXXXX   emitted as \\x{H}
    .  ^  $  \\A  \\Z (Java's \\z)  \\b  \\B                     no line terminators in a name
    \\d \\D \\w \\W \\s \\S, also inside [...]                      ASCII input: same classes
    [...] and [^...] of literals, ranges and the classes above   every literal escaped
    ( ) (?: ) (?P<name> )  -> (?: )                             no back-references allowed
    |   * + ? {m} {m,} {m,n} {,n}, each optionally lazy (?)    counts up to 1,000

Refused (left to the UDF): inline flags, back-references, look-arounds, conditionals,
comments, possessive quantifiers and atomic groups, octal escapes and anything unknown.
"""

from __future__ import annotations

import re
import warnings

from reconciler.patterns import problem

LEGAL_NAME = "^[a-zA-Z0-9._-]+$"  # Kafka's legal topic characters (Topic.validate)

_SIMPLE_ESCAPES = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7}
_CLASSES = set("dDwWsS")
_MAX_COUNT = 1000


class _Untranslatable(Exception):
    """The pattern uses something outside the subset."""


def translate(pattern: str) -> str | None:
    """`pattern` in Java's dialect with the same `find` results on legal topic names, or None
    when it is outside the subset (or not a valid Python pattern)."""
    if not compiles(pattern):
        return None
    parser = _Parser(pattern)
    try:
        out = parser.alternation()
        if parser.pos != len(pattern):  # an unbalanced ')'
            return None
    except _Untranslatable:
        return None
    return out


def compiles(pattern: str) -> bool:
    """Whether the planner compiles `pattern` (reconciler/patterns.py, quietly: a `[[` is a
    literal with a FutureWarning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return problem(pattern) is None


def _literal(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:X}}}"


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.pos = 0

    def peek(self, ahead: int = 0) -> str | None:
        at = self.pos + ahead
        return self.p[at] if at < len(self.p) else None

    def take(self) -> str:
        if self.pos >= len(self.p):
            raise _Untranslatable
        char = self.p[self.pos]
        self.pos += 1
        return char

    def alternation(self) -> str:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return "|".join(branches)

    def sequence(self) -> str:
        parts: list[str] = []
        while self.peek() not in (None, "|", ")"):
            atom, repeatable = self.atom()
            quantifier = self.quantifier()
            if quantifier and not repeatable:
                raise _Untranslatable  # e.g. `^*`: Python refuses it anyway
            parts.append(atom + quantifier)
        return "".join(parts)

    def atom(self) -> tuple[str, bool]:
        """(Java text, whether a quantifier may follow)."""
        char = self.take()
        if char == "(":
            return self.group(), True
        if char == "[":
            return self.char_class(), True
        if char == ".":
            return ".", True
        if char in "^$":
            return char, False
        if char == "\\":
            return self.escape(in_class=False)
        if char in "*+?":
            raise _Untranslatable  # nothing to repeat
        if char == "{" and self.count_ahead() is not None:
            raise _Untranslatable
        return _literal(ord(char)), True

    def group(self) -> str:
        if self.peek() == "?":
            self.pos += 1
            kind = self.take()
            if kind == ":":
                pass
            elif kind == "P" and self.peek() == "<":
                end = self.p.find(">", self.pos)
                if end < 0:
                    raise _Untranslatable
                self.pos = end + 1
            else:  # flags, look-arounds, atomic groups, comments, conditionals, (?P=n)
                raise _Untranslatable
        inner = self.alternation()
        if self.take() != ")":
            raise _Untranslatable
        return f"(?:{inner})"

    def count_ahead(self) -> tuple[int, int | None, int] | None:
        """A `{m,n}` count starting at pos (just after the '{'), as Python reads one:
        (min, max or None for no limit, its length after the '{'); None when the '{' is a
        literal there."""
        match = re.match(r"([0-9]*)(?:(,)([0-9]*))?\}", self.p[self.pos :])  # ASCII digits, as sre
        if match is None or match.group(0) == "}":
            return None
        low = int(match.group(1)) if match.group(1) else 0
        high = (int(match.group(3)) if match.group(3) else None) if match.group(2) else low
        return low, high, len(match.group(0))

    def quantifier(self) -> str:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            text = char
        elif char == "{":
            self.pos += 1
            count = self.count_ahead()
            if count is None:
                self.pos -= 1
                return ""
            low, high, length = count
            if low > _MAX_COUNT or (high is not None and high > _MAX_COUNT):
                raise _Untranslatable
            self.pos += length
            text = f"{{{low},}}" if high is None else f"{{{low},{high}}}"
        else:
            return ""
        if self.peek() == "?":
            self.pos += 1
            text += "?"
        if self.peek() in ("*", "+", "?", "{"):
            # possessive (`a*+`) or a repeated repeat: leave both dialects' readings alone
            raise _Untranslatable
        return text

    def escape(self, *, in_class: bool) -> tuple[str, bool]:
        """An escape outside a class: (Java text, whether a quantifier may follow)."""
        found = self.escaped(in_class=in_class)
        if isinstance(found, int):
            return _literal(found), True
        return found, found[1] in _CLASSES

    def escaped(self, *, in_class: bool) -> str | int:
        """The escape after a backslash: a class or anchor as Java text, or a literal's code
        point."""
        char = self.take()
        if char in _CLASSES:
            return "\\" + char
        if not in_class and char in "AbB":
            return "\\" + char
        if not in_class and char == "Z":
            return "\\z"
        if char in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[char]
        if char in "xu":
            width = 2 if char == "x" else 4
            digits = self.p[self.pos : self.pos + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise _Untranslatable
            self.pos += width
            return int(digits, 16)
        if char.isascii() and not char.isalnum():
            return ord(char)  # escaped punctuation: the character itself
        raise _Untranslatable  # back-references, octal, \N{...}, \U, and the unknown

    def char_class(self) -> str:
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        items: list[str] = []
        first = True
        while True:
            char = self.take()
            if char == "]" and not first:
                break
            first = False
            if char == "[" and self.peek() in (":", "=", "."):
                raise _Untranslatable  # POSIX-looking classes: Python warns, Java differs
            low = self.escaped(in_class=True) if char == "\\" else ord(char)
            if isinstance(low, str):  # \d and the like
                items.append(low)
                continue
            if self.peek() == "-" and self.peek(1) not in (None, "]"):
                self.pos += 1
                high_char = self.take()
                high = self.escaped(in_class=True) if high_char == "\\" else ord(high_char)
                if isinstance(high, str):
                    raise _Untranslatable  # a range ending in a class
                items.append(f"{_literal(low)}-{_literal(high)}")
            else:
                items.append(_literal(low))
        return "[" + ("^" if negate else "") + "".join(items) + "]"
