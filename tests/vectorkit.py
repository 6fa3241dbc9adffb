"""What every vector generator shares (``tests/<area>/gen_vectors.py``).

The consensus-specs pattern: one definition per case both checks loom_ref and writes the
case file other implementations consume. An area's generator owns its ``CASES`` (dicts with
``group``, ``name``, ``anchor``, ``tier``, ``description``, ``function``, ``input`` and a
hand-written ``intent``), the ``GROUPS`` it writes, and ``check_intent(case, expect)``, which
holds loom_ref's answer against the intent before anything is written. Everything else is
here: the answer is computed through the conformance adapter's one function registry, the
file is canonical JSON, and writing a group removes its stale files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from loom_ref.conformance.case import canonical_json as canonical
from loom_ref.conformance.functions import load_functions
from loom_ref.conformance.match import is_pattern, match
from loom_ref.errors import LoomError
from tests.casefiles import stamp

Case = dict[str, Any]
CheckIntent = Callable[[Case, dict[str, Any]], None]

ROOT = Path(__file__).resolve().parents[1] / "conformance" / "cases"
VECTOR_FUNCTIONS, _ = load_functions()  # the adapter's one registry


def compute(c: Case) -> dict[str, Any]:
    """loom_ref's answer to a case, in the ``expect`` shape: an error by its code, plus the
    details the case names in ``errorDetails`` (those its spec rule makes stable)."""
    try:
        return {"result": VECTOR_FUNCTIONS[c["function"]](c["input"])}
    except LoomError as err:
        return {"error": {"code": err.code,
                          **{key: err.details[key] for key in c.get("errorDetails", ())}}}


def with_patterns(answer: Any, intent: Any) -> Any:
    """``answer`` with each match pattern of ``intent`` (``{"$type": "string"}`` ...,
    ``conformance/INTERPRETING.md`` section 7) put in place of the value at the same path,
    after :func:`match` found the value matches it: how a case pins a member the spec calls
    informative (a message loom_ref writes) without pinning loom_ref's words."""
    if is_pattern(intent):
        assert match(intent, answer) == [], (intent, answer)
        return intent
    if isinstance(intent, dict) and isinstance(answer, dict):
        return {k: with_patterns(v, intent[k]) if k in intent else v for k, v in answer.items()}
    if isinstance(intent, list) and isinstance(answer, list) and len(intent) == len(answer):
        return [with_patterns(a, i) for a, i in zip(answer, intent, strict=True)]
    return answer


def case_file(c: Case, check_intent: CheckIntent) -> tuple[Path, dict[str, Any]]:
    """The case's path and document, after its answer passed ``check_intent``; a pattern in
    the intent's result, or in its error ``details``, replaces the value it matched
    (:func:`with_patterns`)."""
    expect = compute(c)
    intent = c.get("intent")
    if "result" in expect and isinstance(intent, dict):
        expect = {"result": with_patterns(expect["result"], intent)}
    elif "result" in expect and isinstance(intent, list) and "steps" in expect["result"]:
        # a scripted route's intent is one dict per step (effects.route)
        expect = {"result": {**expect["result"],
                             "steps": with_patterns(expect["result"]["steps"], intent)}}
    elif "error" in expect and isinstance(intent, dict) and isinstance(intent.get("details"), dict):
        expect = {"error": with_patterns(expect["error"], intent["details"])}
    check_intent(c, expect)
    doc = {"id": f"{c['group']}/{c['name']}", "anchor": c["anchor"], "tier": c["tier"],
           "description": c["description"], "family": "vector", "function": c["function"],
           "input": c["input"], "expect": expect}
    if c.get("requires"):  # capabilities beyond the function (INTERPRETING.md section 2)
        doc["requires"] = list(c["requires"])
    if c.get("provenance"):  # weaker than its rule (loom_ref.conformance.provenance)
        doc["provenance"] = c["provenance"]
    return ROOT / c["group"] / f"{c['name']}.json", stamp(doc)


def write_all(cases: Iterable[Case], groups: Sequence[str], check_intent: CheckIntent) -> int:
    """Rewrite every case file of ``groups`` (stale files of those groups are removed)."""
    wanted = {}
    for c in cases:
        path, doc = case_file(c, check_intent)
        wanted[path] = canonical(doc)
    for group in groups:
        for old in (ROOT / group).glob("*.json") if (ROOT / group).is_dir() else []:
            if old not in wanted:
                old.unlink()
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return len(wanted)


def main(argv: list[str], cases: Sequence[Case], groups: Sequence[str],
         check_intent: CheckIntent) -> int:
    """Check every case (default), or rewrite the files with ``--write`` / ``LOOM_REGEN=1``."""
    if "--write" in argv or os.environ.get("LOOM_REGEN") == "1":
        print(f"wrote {write_all(cases, groups, check_intent)} cases under {ROOT}")
        return 0
    for c in cases:
        case_file(c, check_intent)
    print(f"{len(cases)} cases agree with loom_ref and their intents")
    return 0


def assert_files_current(cases: Sequence[Case], groups: Sequence[str],
                         check_intent: CheckIntent) -> None:
    """The files of ``groups`` are exactly what the generator writes now: one canonical file
    per case, loom_ref's current answer as ``expect``, and no file without a case.
    (Each file agreeing with loom_ref through the protocol is the whole-suite test's job.)"""
    wanted = {}
    for c in cases:
        path, doc = case_file(c, check_intent)
        wanted[path] = canonical(doc)
    on_disk = {p for g in groups for p in (ROOT / g).glob("*.json")}
    assert on_disk == set(wanted), sorted(str(p) for p in on_disk ^ set(wanted))
    stale = [str(p) for p, text in wanted.items() if p.read_text(encoding="utf-8") != text]
    assert stale == [], f"regenerate with python -m <area>.gen_vectors --write: {stale}"
