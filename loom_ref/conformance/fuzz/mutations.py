"""The inputs a fuzz run draws: the suite's own inputs of each vector function, mutated.

Rules (``conformance/INTERPRETING.md`` section 14):

- The corpus of a function is every input its cases give. A drawn input is one of them with
  up to four mutations, each at a node chosen either among all nodes or by member name first
  (so a member beside a long list is met as often as the list): members dropped, added, or
  swapped for a value the same member has elsewhere in the corpus; values replaced by null,
  empty strings, lists and objects, an integer moved to an edge (0, 1, -1, one off) or to a
  boundary (2**31, 2**53), non-integral floats, long strings and unicode
  (astral, combining, NUL, BOM); lists emptied, shortened, duplicated, reordered or spliced;
  and the lines of JSON-lines texts (journals, server-sent events) dropped, duplicated,
  swapped, torn or rewritten, with a journal line's CRC recomputed so that a reader gets past
  it, or its CRC respelt (upper case, a sign, a space, a separator, a digit short: the
  spellings ``journal.checksum`` refuses).
- Integral floats (``2.0`` for ``2``) and integers beyond +-2**53 are never drawn: section 7
  lets an implementation over IEEE-754 doubles read them as it can, and no case pins them.
- A ``journal.store-on-disk`` input with a ``tornAppend`` whose payload holds a number that is
  not a plain integer (a fraction, an exponent, ``-0``; :func:`spelling_open`) is not drawn:
  the line length that bounds its ``bytes`` depends on how the writer spells that number,
  which ``journal.store-on-disk-vector`` leaves implementation-defined.
- Every input is sent in canonical member order (:func:`canonical`), as a case file holds it;
  an input holding a loop count above :data:`SLOW_COUNT` (:func:`too_slow`) is not drawn.

These are hypothesis strategies: the fuzz engine (:mod:`.engine`) shrinks what they draw.
"""

from __future__ import annotations

import copy
import json
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
from hypothesis import strategies as st

from loom_ref.conformance.case import Case, Family

__all__ = ["Corpus", "canonical", "inputs", "spelling_open", "too_slow"]

LONG = "ab\u00e9" * 3000
STRINGS = ["", " ", "x", "\U0001F600", "e\u0301", "\u0000", "\ufeff", "\u2028", "\\",
           "\U0001D518\u200d\U0001F600", "\u00e9" * 7, "a\nb", "\"", LONG, "$tainted", "null",
           "0", "-1", "\t", "\u0130", "\u00df", "\U0001F1FA\U0001F1F8",
           # pattern syntax, for deny and schema patterns (portable-1: both sides refuse what is
           # outside the dialect)
           "(", "a|", "\\d+", "(?i)a", "\\b\\w+\\b", ".*", "^$", "a{2,}", "\\Z", "(?P<n>x)",
           "[^\\s]", "\\u00e9", "(?=x)", "[\\W_]", "\\p{L}"]
INTS = [0, -1, 1, 2, 7, 2**31, 2**31 - 1, -(2**31), 2**32, 2**53, -(2**53)]
FLOATS = [0.5, -1.5, 1e-7, 4503599627370495.5, -2.5e-300, 3.14]  # never integral (section 7)
SPECIALS: list[Any] = [None, True, False, [], {}, [None], {"": None}, *STRINGS, *INTS, *FLOATS]
_CRC_TAIL = re.compile(r',"crc":"[0-9a-f]{8}"}$')

#: Members whose size is a loop count: an input holding a count above SLOW_COUNT there runs
#: (correctly, and as long on both sides) for minutes, so it is not drawn.
SLOW_MEMBERS = frozenset({"calls", "retry", "maxAttempts"})
SLOW_COUNT = 10_000

Path = tuple[str | int, ...]


def members(value: Any) -> Iterator[tuple[str, Any]]:
    """Every ``(name, value)`` member of every object inside ``value``, at any depth."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield key, sub
            yield from members(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from members(sub)


def _astral(value: Any) -> bool:
    return isinstance(value, str) and any(ord(c) > 0xFFFF for c in value)


@attrs.frozen(kw_only=True)
class Corpus:
    """Per vector function: the inputs its cases give (``seeds``, with the case each came
    from), and, per member name, the distinct values that member has there (``pools``);
    ``strings`` and ``specials``, the replacements drawn."""

    seeds: Mapping[str, tuple[tuple[str, Any], ...]]
    pools: Mapping[str, Mapping[str, tuple[Any, ...]]]
    strings: tuple[str, ...] = tuple(STRINGS)
    specials: tuple[Any, ...] = tuple(SPECIALS)

    @classmethod
    def of(cls, cases: Iterable[Case], *, capabilities: Iterable[str] | None = None) -> Corpus:
        """The corpus of ``cases``. With ``capabilities`` (what both sides declare), only
        the cases those capabilities cover seed it (an input a side cannot be asked, such as
        a ``python-re`` pattern, is never drawn), and astral strings are drawn only when both
        count code points (``text.code-points``, section 15)."""
        declared = None if capabilities is None else set(capabilities)
        seeds: dict[str, list[tuple[str, Any]]] = {}
        for case in cases:
            if declared is not None and not set(case.requires) <= declared:
                continue
            if case.family is Family.VECTOR:
                seeds.setdefault(str(case.data["function"]), []).append(
                    (case.id, case.data.get("input")))
        pools: dict[str, dict[str, tuple[Any, ...]]] = {}
        for fn, items in seeds.items():
            seen: dict[str, dict[str, Any]] = {}
            for _, inp in items:
                for key, sub in members(inp):
                    seen.setdefault(key, {})[json.dumps(sub, sort_keys=True)] = sub
            pools[fn] = {k: tuple(v[t] for t in sorted(v)) for k, v in sorted(seen.items())}
        astral = declared is None or "text.code-points" in declared
        strings = tuple(x for x in STRINGS if astral or not _astral(x))
        specials = tuple(x for x in SPECIALS if astral or not _astral(x))
        return cls(seeds={k: tuple(v) for k, v in sorted(seeds.items())}, pools=pools,
                   strings=strings, specials=specials)

    @property
    def functions(self) -> list[str]:
        return list(self.seeds)


def _paths(value: Any, path: Path = ()) -> Iterator[Path]:
    yield path
    if isinstance(value, dict):
        for key in value:
            yield from _paths(value[key], (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _paths(sub, (*path, i))


def _at(value: Any, path: Path) -> Any:
    for step in path:
        value = value[step]
    return value


def _put(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    _at(value, path[:-1])[path[-1]] = new
    return value


def _compact(obj: Any) -> str:
    """``obj`` as compact JSON text, non-ASCII written raw unless it holds a lone surrogate
    (which UTF-8 cannot carry: then escaped)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, separators=(",", ":"))
    return text


def _crc_line(obj: Any) -> str:
    """A journal line for ``obj`` (a JSON object) whose CRC is right (journal.md 1.1)."""
    body = _compact(obj)[:-1]
    crc = zlib.crc32(body.encode("utf-8")) & 0xFFFFFFFF
    return f'{body},"crc":"{crc:08x}"}}'


class _Mutator:
    def __init__(self, draw: st.DrawFn, corpus: Corpus, fn: str) -> None:
        self.draw, self.pool = draw, corpus.pools.get(fn, {})
        self.strings, self.specials = corpus.strings, corpus.specials

    def line(self, line: str) -> str:
        """Rewrite one line of a JSON-lines text: a journal line (its members, the CRC kept
        right; or the CRC's spelling, its value kept), an SSE ``data:`` line, or the raw
        characters."""
        tail = _CRC_TAIL.search(line)
        if tail and self.draw(st.booleans()):  # journal.checksum names these spellings
            digits = line[tail.start() + 8:tail.end() - 2]
            spelt = self.draw(st.sampled_from([digits.upper(), f"+{digits}", f" {digits}",
                                               f"{digits[:4]}_{digits[4:]}", digits[1:]]))
            return f'{line[:tail.start()]},"crc":"{spelt}"}}'
        if tail:
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):  # a line nested past Python's stack
                obj = None  # (journal.format/nesting-far-over-limit) is mutated as text
            if isinstance(obj, dict):
                obj.pop("crc", None)
                obj = self.mutate(obj)
                if isinstance(obj, dict):
                    return _crc_line(obj)
        if line.startswith("data: ") and line[6:7] in "{[":
            try:
                obj = json.loads(line[6:])
            except (ValueError, RecursionError):
                obj = None
            if obj is not None:
                return "data: " + _compact(self.mutate(obj))
        return self.string(line)

    def string(self, text: str) -> str:
        draw = self.draw
        op = draw(st.sampled_from(["special", "insert", "cut", "repeat", "case", "drop-char"]))
        if op == "special":
            return str(draw(st.sampled_from(self.strings)))
        at = draw(st.integers(0, len(text)))
        if op == "insert":
            return text[:at] + draw(st.sampled_from(self.strings[1:13])) + text[at:]
        if op == "cut":
            return text[:at]
        if op == "repeat":
            return text * draw(st.sampled_from([2, 3, 50]))
        if op == "case":
            return text.upper() if text != text.upper() else text.lower()
        return text[:at] + text[at + 1:]

    def text_lines(self, text: str) -> str:
        draw = self.draw
        lines = text.split("\n")
        op = draw(st.sampled_from(["drop", "duplicate", "swap", "rewrite", "rewrite", "tear"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "rewrite":
            lines[i] = self.line(lines[i])
        else:  # a torn tail: cut inside the text
            joined = "\n".join(lines)
            return joined[:draw(st.integers(0, len(joined)))]
        return "\n".join(lines)

    def node(self, node: Any, key: str | int | None) -> Any:
        """A replacement for ``node`` (found under member ``key``)."""
        draw, pool = self.draw, self.pool
        ops = ["special", "pool"]
        if isinstance(node, str):
            ops += ["string", "string"] + (["lines", "lines", "lines"] if "\n" in node else [])
        elif isinstance(node, bool):
            ops += ["flip"]
        elif isinstance(node, int):
            ops += ["int", "edge", "edge"]
        elif isinstance(node, dict):
            ops += ["drop", "drop", "add", "add"] if node else ["add"]
        elif isinstance(node, list):
            ops += (["drop-item", "duplicate-item", "reorder", "reorder", "empty", "splice"]
                    if node else ["splice"])
        op = draw(st.sampled_from(ops))
        if op == "special":
            return copy.deepcopy(draw(st.sampled_from(self.specials)))
        if op == "pool":
            if isinstance(key, str) and pool.get(key):
                return copy.deepcopy(draw(st.sampled_from(pool[key])))
            name = draw(st.sampled_from(sorted(pool))) if pool else None
            return copy.deepcopy(draw(st.sampled_from(pool[name]))) if name else None
        if op == "string":
            return self.string(node)
        if op == "lines":
            return self.text_lines(node)
        if op == "flip":
            return not node
        if op == "edge":  # where counts and bounds change meaning
            near = [v for v in (0, 1, -1, node - 1, node + 1) if abs(v) <= 2**53]  # section 7
            return draw(st.sampled_from(near))
        if op == "int":
            near = [v for v in (node + 1, node - 1, -node) if abs(v) <= 2**53]
            return draw(st.sampled_from([*near, *INTS]))
        if op == "drop":
            gone = draw(st.sampled_from(sorted(node)))
            return {k: v for k, v in node.items() if k != gone}
        if op == "add":
            name = draw(st.sampled_from(["bogus", "", "$tainted", *sorted(pool)]))
            values = pool.get(name) or self.specials
            return {**node, name: copy.deepcopy(draw(st.sampled_from(values)))}
        if op == "drop-item":
            i = draw(st.integers(0, len(node) - 1))
            return node[:i] + node[i + 1:]
        if op == "duplicate-item":
            i = draw(st.integers(0, len(node) - 1))
            return [*node[:i + 1], copy.deepcopy(node[i]), *node[i + 1:]]
        if op == "reorder":
            return list(draw(st.permutations(node)))
        if op == "empty":
            return []
        # splice: an item of a list found under the same member elsewhere in the corpus
        donors = [v for v in pool.get(key, ()) if isinstance(v, list) and v] if isinstance(
            key, str) else []
        if not donors:
            return [*node, copy.deepcopy(node[-1])] if node else [None]
        item = copy.deepcopy(draw(st.sampled_from(draw(st.sampled_from(donors)))))
        at = draw(st.integers(0, len(node)))
        return [*node[:at], item, *node[at:]]

    def mutate(self, value: Any) -> Any:
        """``value`` with one node (any depth, the root included) replaced. Half the time the
        node is any node; half the time a member name is chosen first (every name alike,
        however many items a list beside it has), then a node under that name."""
        value = copy.deepcopy(value)
        paths = list(_paths(value))
        names: list[str] = sorted({p[-1] for p in paths if p and isinstance(p[-1], str)})
        by_name: bool = bool(names) and self.draw(st.booleans())
        if by_name:
            name: str = self.draw(st.sampled_from(names))
            paths = [p for p in paths if p and p[-1] == name]
        path = self.draw(st.sampled_from(paths))
        key = path[-1] if path else None
        return _put(value, path, self.node(_at(value, path), key))


def canonical(value: Any) -> Any:
    """``value`` with every object's members in code-point order, as in a case file (case
    files are canonical JSON, INTERPRETING.md section 2). Where a spec reads "the mapping's
    order" it is this order (``spec/governance.md``, *Member order*), which a JavaScript
    object does not keep, so an unsorted input is no case either side must agree on."""
    return json.loads(json.dumps(value, sort_keys=True))


def too_slow(value: Any) -> bool:
    """Whether ``value`` holds a loop count above :data:`SLOW_COUNT`."""
    return any(k in SLOW_MEMBERS and isinstance(v, int) and not isinstance(v, bool)
               and v > SLOW_COUNT for k, v in members(value))


_PLAIN_INT = re.compile(r"-?(0|[1-9][0-9]*)")


def _open_number(value: Any) -> bool:
    """Whether ``value`` holds a number whose spelling in a journal line is the writer's own
    (``journal.store-on-disk-vector``): anything but an integer of at most 2**53."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, int):
        return abs(value) > 2**53
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_open_number(v) for v in value.values())
    if isinstance(value, list):
        return any(_open_number(v) for v in value)
    return False


def _open_text(text: str) -> bool:
    """Whether a ``payloadText`` holds a number not written as a plain integer of at most
    2**53 (``1.0``, ``1E5``, ``-0``); a text that is not JSON holds none."""
    found: list[bool] = []

    def number(token: str) -> int:
        found.append(not _PLAIN_INT.fullmatch(token) or token == "-0"
                     or abs(int(token)) > 2**53)
        return 0

    try:
        json.loads(text, parse_int=number, parse_float=number,
                   parse_constant=lambda token: found.append(True))
    except (ValueError, RecursionError):
        return False
    return any(found)


def spelling_open(fn: str, value: Any) -> bool:
    """Whether ``value``, an input of ``fn``, has a ``tornAppend`` whose ``bytes`` bound
    depends on a number's spelling, which ``journal.store-on-disk-vector`` leaves to each
    writer: such an input is not drawn."""
    if fn != "journal.store-on-disk" or not isinstance(value, dict):
        return False
    steps = value.get("steps")
    if not isinstance(steps, list):
        return False
    for step in steps:
        if not isinstance(step, dict) or step.get("do") != "tornAppend":
            continue
        text = step.get("payloadText")
        if _open_number(step.get("payload")) or (isinstance(text, str) and _open_text(text)):
            return True
    return False


@st.composite
def drawn(draw: st.DrawFn, corpus: Corpus, fn: str) -> tuple[str, Any]:
    """``(the case it came from, an input of fn)``: a real input with up to four mutations,
    in canonical member order."""
    origin, value = draw(st.sampled_from(corpus.seeds[fn]))
    value = copy.deepcopy(value)
    mutator = _Mutator(draw, corpus, fn)
    for _ in range(draw(st.integers(0, 4))):
        value = mutator.mutate(value)
    return origin, canonical(value)


def inputs(corpus: Corpus, fn: str) -> st.SearchStrategy[tuple[str, Any]]:
    """The strategy of drawn inputs of ``fn`` (never :func:`too_slow` or
    :func:`spelling_open` ones)."""
    return drawn(corpus, fn).filter(
        lambda pair: not too_slow(pair[1]) and not spelling_open(fn, pair[1]))
