"""Differential test: loom_ref and the Node.js adapter agree on every vector function.

Rules:

- Both implementations are run as subprocesses speaking the protocol of
  ``conformance/INTERPRETING.md`` section 4 (one process each for the whole module); every
  input is sent to both as a vector case without ``expect`` (section 3), exactly as the runner
  sends a ``run`` request, and their observations must be equal.
- Equal means section 7: values compare as JSON (numbers by value, booleans are not
  numbers, objects order-free). An error observation is compared by its ``code`` only. A
  member the spec calls informative is equal when both sides write a string there: the
  failure messages ``...failure.message`` (``spec/stream.md``: "Failure messages
  (`finish.reason.failure.message`) that the wrapper, the scripted adapter or the mapping
  write are informative").
- An ``errored`` reply (the implementation could not run the case: a bug), a reply that
  breaks the protocol schema, a crash or a timeout is never equal to anything.
- Inputs are every real input of the function in ``conformance/cases`` and, drawn by
  hypothesis, mutations of them: members dropped, added or swapped for a value the same
  member has elsewhere; values replaced by null, empty strings, lists and objects, boundary
  integers (0, -1, 2**31, 2**53), non-integral floats, long strings and unicode (astral,
  combining, NUL, BOM); lists emptied, shortened, duplicated and reordered; and the lines of
  JSON-lines texts (journals, server-sent events) dropped, duplicated, swapped, torn or
  rewritten, with a journal line's CRC recomputed so that the reader gets past it. Integral
  floats (``2.0`` for ``2``) are never drawn: section 7 lets an implementation over
  IEEE-754 doubles accept them, and no case pins either answer. Every input is sent in
  canonical member order, as a case file would hold it (:func:`canonical`), and an input
  with a huge loop count (:func:`too_slow`) is not drawn.
- A disagreement already reported is listed in :data:`KNOWN_DIFFERENCES` (function, a
  predicate on the input, the reason) and is not a failure; each entry carries an example
  that must still disagree, so a fixed one fails :func:`test_known_differences_still_differ`
  until its entry is deleted.

CI runs a modest, derandomized number of examples per function. To hunt for disagreements::

    LOOM_DIFF_EXAMPLES=5000 python -m pytest tests/conformance/test_differential.py

(``LOOM_DIFF_EXAMPLES`` also turns derandomization off, so every hunt draws afresh; set
``LOOM_DIFF_DERANDOMIZE=1`` to keep it on.) Skipped when ``node`` is not installed.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.conformance.case import Case
from loom_ref.conformance.impl import SubprocessImplementation, TransportError
from loom_ref.conformance.match import json_equal

from .helpers import SCHEMAS, cases

NODE = shutil.which("node")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE_ADAPTER = os.path.join(REPO, "conformance", "adapters", "node", "loom-adapter.mjs")

_HUNT = os.environ.get("LOOM_DIFF_EXAMPLES")
MAX_EXAMPLES = int(_HUNT) if _HUNT else 60
DERANDOMIZE = not _HUNT or os.environ.get("LOOM_DIFF_DERANDOMIZE") == "1"

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


# -- the corpus: every real input of every vector function --------------------------------------
def _vector_cases() -> list[Case]:
    return [c for c in cases() if c.family.value == "vector"]


VECTOR_CASES = _vector_cases()
SEEDS: dict[str, list[Any]] = {}
for _case in VECTOR_CASES:
    SEEDS.setdefault(str(_case.data["function"]), []).append(_case.data.get("input"))
FUNCTIONS = sorted(SEEDS)


def _members(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            yield key, sub
            yield from _members(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from _members(sub)


def _pools() -> dict[str, dict[str, list[Any]]]:
    """For each function, member name -> the distinct values that member has in its cases."""
    pools: dict[str, dict[str, list[Any]]] = {}
    for fn, inputs in SEEDS.items():
        seen: dict[str, dict[str, Any]] = {}
        for inp in inputs:
            for key, sub in _members(inp):
                seen.setdefault(key, {})[json.dumps(sub, sort_keys=True)] = sub
        pools[fn] = {k: [v[t] for t in sorted(v)] for k, v in sorted(seen.items())}
    return pools


POOLS = _pools()


# -- known disagreements --------------------------------------------------------------------------
@attrs.frozen(kw_only=True)
class Known:
    """A reported disagreement: inputs of one of ``functions`` for which ``applies`` holds are
    not compared. ``example`` (an input of ``functions[0]``) must still disagree: delete the
    entry once it does not."""

    functions: tuple[str, ...]
    applies: Callable[[Any], bool]
    reason: str
    example: Any


def _get(value: Any, *path: str | int) -> Any:
    """``value[p0][p1]...``, or None when any step is missing or of the wrong type."""
    for step in path:
        in_list = isinstance(step, int) and isinstance(value, list) and -len(value) <= step < len(
            value)
        in_obj = isinstance(step, str) and isinstance(value, dict) and step in value
        if not (in_list or in_obj):
            return None
        value = value[step]
    return value


def _any(value: Any, key: str, pred: Callable[[Any], bool]) -> bool:
    """Whether some member named ``key``, at any depth of ``value``, satisfies ``pred``."""
    return any(k == key and pred(v) for k, v in _members(value))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _items(value: Any, key: str) -> list[Any]:
    """The items of the list member ``key`` of ``value`` (an object), else []."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


_USAGE_KEYS = {"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens",
               "reasoningTokens"}


def _bad_wire_usage(u: Any) -> bool:
    return (not isinstance(u, dict) or not set(u) <= _USAGE_KEYS
            or not {"inputTokens", "outputTokens"} <= set(u)
            or not all(_is_int(v) and v >= 0 for v in u.values()))


def _bad_counters(u: Any) -> bool:
    return any(not isinstance(m, dict) or not all(_is_int(v) and v >= 0 for v in m.values())
               for m in (u if isinstance(u, list) else [u]))


def _nonint_number(value: Any) -> bool:
    """An integral float (``1.0``, ``1e300``) or an integer beyond +-2**53 anywhere."""
    if isinstance(value, float):
        return value.is_integer()
    if _is_int(value):
        return bool(abs(value) > 2**53)
    if isinstance(value, dict):
        return any(_nonint_number(v) for v in value.values())
    if isinstance(value, list):
        return any(_nonint_number(v) for v in value)
    return False


_DENY_FUNCTIONS = ("validators.check", "validators.check_output", "guards.run", "guards.steps",
                   "deltas.run", "deltas.llm")


def _deny(first: str) -> tuple[str, ...]:
    """The functions taking deny validators, ``first`` (the example's) first."""
    return (first, *(f for f in _DENY_FUNCTIONS if f != first))


#: What JavaScript's trim strips and stream.openai.sse does not (only ASCII whitespace is).
_T = {"script": [{}], "toolId": "t"}  # an effects.route effect that returns null

#: Disagreements found and reported to the lead, one entry each: who is right per the spec is
#: in the reason ("Python wrong", "Node wrong", or "spec silent"). Delete an entry once the two
#: sides agree (test_known_differences_still_differ tells you when).
KNOWN_DIFFERENCES: list[Known] = [
    # ---- the Node adapter ----------------------------------------------------------------------
    Known(functions=("effects.route",),
          applies=lambda i: _any(i, "usage", lambda u: any(
              _is_int(v) and v > 2**53 - 1 for m in (u if isinstance(u, list) else [u])
              if isinstance(m, dict) for v in m.values()))
          or any(_is_int(_get(i, "meter", k)) and i["meter"][k] > 2**53 - 1
                 for k in ("budget", "estimate")),
          reason="Node wrong: a usage counter, budget or estimate of 2**53 (an integer within "
                 "section 7's +-2**53) is refused by Node (not a safe integer); Python meters "
                 "it (sums beyond 2**53 need exact integers: BigInt)",
          example={"effects": [{"script": [{"usage": {"a": 2**53}}], "toolId": "t"}],
                   "meter": {"budget": 100}, "steps": [{"call": {"tool": "t"}}]}),
    Known(functions=_deny("validators.check_output"),
          applies=lambda i: _any(i, "dialect", lambda d: d == "python-re"),
          reason="by design (spec: patterns.python-re): the python-re pattern extension is "
                 "loom-ref's, declared as the capability patterns.python-re, which Node does "
                 "not declare; Node refuses the member (argument.invalid), Python takes "
                 "Python's re syntax",
          example={"text": "x123", "validator": {"dialect": "python-re", "kind": "deny",
                                                   "patterns": ["(?<![0-9])123"]}}),
    Known(functions=("agent.message_bytes", "agent.content_ref", "agent.claim_check_envelope",
                     "agent.tool_result_content", "agent.render_transcript"),
          applies=_nonint_number,
          reason="Node wrong per agent.canonical-json ('1.0 is three bytes', a float written "
                 "as repr: 1e+300), but untestable by section 7 (JSON.parse cannot tell 1.0 "
                 "from 1): Node writes integral floats as integers, in full decimal, and "
                 "integers beyond 2**53 rounded; never drawn here, listed for the record",
          example={"message": [1.0, 1e300]}),
]


def _known(function: str, inp: Any) -> Known | None:
    for known in KNOWN_DIFFERENCES:
        if function in known.functions:
            try:
                if known.applies(inp):
                    return known
            except Exception:  # a predicate is best-effort over arbitrary JSON
                continue
    return None


# -- mutations ------------------------------------------------------------------------------------
LONG = "ab\u00e9" * 3000
STRINGS = ["", " ", "x", "\U0001F600", "e\u0301", "\u0000", "\ufeff", "\u2028", "\\",
           "\U0001D518\u200d\U0001F600", "\u00e9" * 7, "a\nb", "\"", LONG, "$tainted", "null",
           "0", "-1", "\t", "\u0130", "\u00df", "\U0001F1FA\U0001F1F8",
           # regex syntax, for deny patterns (portable-1: both sides refuse what is outside)
           "(", "a|", "\\d+", "(?i)a", "\\b\\w+\\b", ".*", "^$", "a{2,}", "\\Z", "(?P<n>x)",
           "[^\\s]", "\\u00e9", "(?=x)", "[\\W_]", "\\p{L}"]
INTS = [0, -1, 1, 2, 7, 2**31, 2**31 - 1, -(2**31), 2**32, 2**53, -(2**53)]
FLOATS = [0.5, -1.5, 1e-7, 4503599627370495.5, -2.5e-300, 3.14]  # never integral (section 7)
SPECIALS: list[Any] = [None, True, False, [], {}, [None], {"": None}, *STRINGS, *INTS, *FLOATS]
_CRC_TAIL = re.compile(r',"crc":"[0-9a-f]{8}"}$')

Path = tuple[str | int, ...]


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


def _mutate_line(draw: st.DrawFn, fn: str, line: str) -> str:
    """Rewrite one line of a JSON-lines text: a journal line (CRC kept right), an SSE
    ``data:`` line, or the raw characters."""
    if _CRC_TAIL.search(line):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            obj.pop("crc", None)
            obj = _mutate(draw, fn, obj)
            if isinstance(obj, dict):
                return _crc_line(obj)
    if line.startswith("data: ") and line[6:7] in "{[":
        try:
            obj = json.loads(line[6:])
        except ValueError:
            obj = None
        if obj is not None:
            return "data: " + _compact(_mutate(draw, fn, obj))
    return _mutate_string(draw, line)


def _mutate_string(draw: st.DrawFn, text: str) -> str:
    op = draw(st.sampled_from(["special", "insert", "cut", "repeat", "case", "drop-char"]))
    if op == "special":
        return str(draw(st.sampled_from(STRINGS)))
    at = draw(st.integers(0, len(text)))
    if op == "insert":
        return text[:at] + draw(st.sampled_from(STRINGS[1:13])) + text[at:]
    if op == "cut":
        return text[:at]
    if op == "repeat":
        return text * draw(st.sampled_from([2, 3, 50]))
    if op == "case":
        return text.upper() if text != text.upper() else text.lower()
    return text[:at] + text[at + 1:]


def _mutate_text_lines(draw: st.DrawFn, fn: str, text: str) -> str:
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
        lines[i] = _mutate_line(draw, fn, lines[i])
    else:  # a torn tail: cut inside the text
        joined = "\n".join(lines)
        return joined[:draw(st.integers(0, len(joined)))]
    return "\n".join(lines)


def _mutate_node(draw: st.DrawFn, fn: str, node: Any, key: str | int | None) -> Any:
    """A replacement for ``node`` (found under member ``key``)."""
    ops = ["special", "pool"]
    if isinstance(node, str):
        ops += ["string", "string"] + (["lines", "lines", "lines"] if "\n" in node else [])
    elif isinstance(node, bool):
        ops += ["flip"]
    elif isinstance(node, int):
        ops += ["int", "int"]
    elif isinstance(node, dict):
        ops += ["drop", "drop", "add", "add"] if node else ["add"]
    elif isinstance(node, list):
        ops += (["drop-item", "duplicate-item", "reorder", "reorder", "empty", "splice"]
                if node else ["splice"])
    op = draw(st.sampled_from(ops))
    pool = POOLS[fn]
    if op == "special":
        return copy.deepcopy(draw(st.sampled_from(SPECIALS)))
    if op == "pool":
        if isinstance(key, str) and pool.get(key):
            return copy.deepcopy(draw(st.sampled_from(pool[key])))
        name = draw(st.sampled_from(sorted(pool))) if pool else None
        return copy.deepcopy(draw(st.sampled_from(pool[name]))) if name else None
    if op == "string":
        return _mutate_string(draw, node)
    if op == "lines":
        return _mutate_text_lines(draw, fn, node)
    if op == "flip":
        return not node
    if op == "int":
        near = [v for v in (node + 1, node - 1, -node) if abs(v) <= 2**53]  # section 7
        return draw(st.sampled_from([*near, *INTS]))
    if op == "drop":
        gone = draw(st.sampled_from(sorted(node)))
        return {k: v for k, v in node.items() if k != gone}
    if op == "add":
        name = draw(st.sampled_from(["bogus", "", "$tainted", *sorted(pool)]))
        values = pool.get(name) or SPECIALS
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
    donors = [v for v in pool.get(key, []) if isinstance(v, list) and v] if isinstance(
        key, str) else []
    if not donors:
        return [*node, copy.deepcopy(node[-1])] if node else [None]
    item = copy.deepcopy(draw(st.sampled_from(draw(st.sampled_from(donors)))))
    at = draw(st.integers(0, len(node)))
    return [*node[:at], item, *node[at:]]


def _mutate(draw: st.DrawFn, fn: str, value: Any) -> Any:
    """``value`` with one node (any depth, the root included) replaced."""
    value = copy.deepcopy(value)
    path = draw(st.sampled_from(list(_paths(value))))
    key = path[-1] if path else None
    return _put(value, path, _mutate_node(draw, fn, _at(value, path), key))


def canonical(value: Any) -> Any:
    """``value`` with every object's members in code-point order, as in a case file (case
    files are canonical JSON, INTERPRETING.md section 2). Where a spec reads "the mapping's
    order" it is this order (``spec/governance.md`` 4.5, *Member order*), which a JavaScript
    object does not keep, so an unsorted input is no case either side must agree on."""
    return json.loads(json.dumps(value, sort_keys=True))


#: Members whose size is a loop count: an input holding a count above SLOW_COUNT there runs
#: (correctly, and as long on both sides) for minutes, so it is not drawn.
SLOW_MEMBERS = frozenset({"calls", "retry", "maxAttempts"})
SLOW_COUNT = 10_000


def too_slow(value: Any) -> bool:
    return any(k in SLOW_MEMBERS and isinstance(v, int) and not isinstance(v, bool)
               and v > SLOW_COUNT for k, v in _members(value))


@st.composite
def inputs(draw: st.DrawFn, fn: str) -> Any:
    """A real input of ``fn`` with up to four mutations, in canonical member order."""
    value = copy.deepcopy(draw(st.sampled_from(SEEDS[fn])))
    for _ in range(draw(st.integers(0, 4))):
        value = _mutate(draw, fn, value)
    return canonical(value)


# -- the two implementations ----------------------------------------------------------------------
class Pair:
    """One loom_ref and one Node adapter process, each sent every input as a vector case."""

    def __init__(self) -> None:
        assert NODE is not None
        self.impls = {
            "python": SubprocessImplementation([sys.executable, "-m",
                                                "loom_ref.conformance.adapter"], cwd=REPO),
            "node": SubprocessImplementation([NODE, NODE_ADAPTER], cwd=REPO),
        }
        self.seq = 0
        self.capabilities: dict[str, set[str]] = {}
        for name, impl in self.impls.items():
            reply = impl.request({"cmd": "start", "protocol": 1})
            self.capabilities[name] = set(reply["implementation"]["capabilities"])

    def run(self, fn: str, inp: Any) -> dict[str, Any]:
        """Each side's reply (or ``{"crashed": what}``) to ``inp`` as a case of ``fn``."""
        self.seq += 1
        case = {"id": f"differential.{fn}/n{self.seq}", "anchor": "conformance.differential",
                "tier": "must", "description": "differential", "family": "vector",
                "function": fn, "input": inp}
        message = {"cmd": "run", "seq": self.seq, "case": case}
        replies: dict[str, Any] = {}
        for name, impl in self.impls.items():
            try:
                replies[name] = impl.request(message)
            except TransportError as exc:
                replies[name] = {"crashed": exc.message}
        return replies

    def close(self) -> None:
        for impl in self.impls.values():
            try:
                impl.request({"cmd": "stop"})
            except TransportError:
                pass
            impl.close()


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    both = Pair()
    yield both
    both.close()


# -- comparing ------------------------------------------------------------------------------------
_INFORMATIVE = "<informative string>"


def _informative(value: Any, parent: str | None = None) -> Any:
    """``value`` with every informative member (a failure's ``message``) that is a string
    replaced by one marker, so two strings there compare equal."""
    if isinstance(value, Mapping):
        return {k: (_INFORMATIVE if k == "message" and parent == "failure" and isinstance(v, str)
                    else _informative(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_informative(v, parent) for v in value]
    return value


def comparable(reply: Any) -> Any:
    """What of a reply is compared (module rules); None for a reply never equal to any."""
    if not isinstance(reply, Mapping) or "crashed" in reply or "errored" in reply:
        return None
    if SCHEMAS.problems("run-reply", reply):
        return None
    if "skipped" in reply:
        return {"skipped": True}
    obs = reply["observations"]
    if "error" in obs:
        return {"error": {"code": obs["error"].get("code")}}
    return {"result": _informative(obs.get("result"))}


def agree(replies: Mapping[str, Any]) -> bool:
    a, b = comparable(replies["python"]), comparable(replies["node"])
    return a is not None and b is not None and json_equal(a, b)


def _show(value: Any, limit: int = 1500) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def check(pair: Pair, fn: str, inp: Any) -> None:
    replies = pair.run(fn, inp)
    if agree(replies) or _known(fn, inp) is not None:
        return
    pytest.fail(f"{fn} disagrees on input {_show(inp)}\n  python: {_show(replies['python'])}"
                f"\n  node:   {_show(replies['node'])}", pytrace=False)


# -- the tests ------------------------------------------------------------------------------------
def test_both_implement_every_vector_function(pair: Pair) -> None:
    for name, caps in pair.capabilities.items():
        assert set(FUNCTIONS) <= caps, (name, sorted(set(FUNCTIONS) - caps))


@pytest.mark.parametrize("case", VECTOR_CASES, ids=lambda c: c.id)
def test_case_inputs_agree(pair: Pair, case: Case) -> None:
    check(pair, str(case.data["function"]), case.data.get("input"))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_mutated_inputs_agree(pair: Pair, fn: str) -> None:
    @settings(max_examples=MAX_EXAMPLES, derandomize=DERANDOMIZE, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.large_base_example])
    @given(inputs(fn).filter(lambda inp: not too_slow(inp)))
    def differential(inp: Any) -> None:
        check(pair, fn, inp)

    differential()


@pytest.mark.parametrize("known", KNOWN_DIFFERENCES,
                         ids=[f"{i}-{k.functions[0]}" for i, k in enumerate(KNOWN_DIFFERENCES)])
def test_known_differences_still_differ(pair: Pair, known: Known) -> None:
    # Each entry documents a live disagreement: its example is covered by its own predicate
    # and still disagrees. Once the lead fixes it this fails: delete the entry.
    fn, example = known.functions[0], canonical(known.example)
    assert known.applies(example), "the entry's predicate does not cover its example"
    assert not agree(pair.run(fn, example)), (
        f"{fn} now agrees on {_show(example)}: delete this KNOWN_DIFFERENCES entry "
        f"({known.reason})")
