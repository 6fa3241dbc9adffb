"""``loom-ref conformance lint``: the checks that keep the suite honest.

Rules (``conformance/INTERPRETING.md`` section 10). Every rule anchor of ``spec/*.md`` names
its provenance (``{#area.rule .seed}``, :mod:`.provenance`). For every file under ``cases/``:

- it lives at ``<group>/<name>.json`` and its id is ``"<group>/<name>"`` (so every file is
  consumed by a run: the runner loads exactly these, and audits that each one ran);
- it is canonical JSON and valid against ``schemas/case.json``; ids are unique;
- the anchor it pins exists in ``spec/*.md`` (written ``{#anchor.id}``);
- a scenario's body uses known operators only, every decider it names is scripted, and it
  expects one observation per action; patterns in expectations are well-formed;
- no integer in it is beyond +-2**53, which a reader over IEEE-754 doubles cannot hold
  (section 7, numbers);
- the request that carries it nests arrays and objects at most 100 levels deep (section 4,
  *Depth*), so a JSON reader with a default depth limit (serde_json's is 128) reads it;
- it says where its rule comes from (``provenance``), and is not stronger than its anchor's
  rule: a case of a ``loom-ref`` or ``extension`` rule is never ``seed``, ``upstream`` or
  ``convention`` (``loom_ref.conformance.provenance``);
- it is no draft (a case ``conformance fuzz`` wrote keeps a ``draft`` member until a
  maintainer has decided who is right and promoted it);
- every capability it needs (its function, ``scenario``, what it ``requires``) is named in
  ``capabilities.json``, and every capability named there is needed by some case (a mode's
  capability, such as ``torn-write``, counts as needed when a case could generate the mode).
- every regex it carries is in the portable pattern dialect, or is labelled as the
  ``python-re`` extension, or is the point of a refusal (section 15, Portability:
  :func:`~loom_ref.conformance.portability.dialect_problems`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from loom_ref.conformance.case import Case, canonical_json, expected_id, find_case_files
from loom_ref.conformance.interpreter import check_body
from loom_ref.conformance.match import check_patterns
from loom_ref.conformance.portability import dialect_problems
from loom_ref.conformance.provenance import (
    ANCHOR_RE,
    CORE,
    Provenance,
    spec_problems,
    spec_provenance,
)
from loom_ref.conformance.schemas import SchemaSet, describe
from loom_ref.journal.ids import ID_RULE, is_execution_id

__all__ = ["ANCHOR_RE", "lint", "spec_anchors"]



def spec_anchors(spec_dir: str) -> set[str]:
    """Every anchor defined in ``spec_dir/*.md``."""
    anchors: set[str] = set()
    if not os.path.isdir(spec_dir):
        return anchors
    for name in sorted(os.listdir(spec_dir)):
        if name.endswith(".md"):
            with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
                anchors.update(m.group(1) for m in ANCHOR_RE.finditer(f.read()))
    return anchors


def _deciders_named(body: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(body, list):
        for ins in body:
            if not isinstance(ins, Mapping):
                continue
            if ins.get("op") == "decide":
                names.add(str(ins.get("decider", ins.get("id"))))
            for key in ("then", "else", "body"):
                names |= _deciders_named(ins.get(key))
            catch = ins.get("catch")
            if isinstance(catch, Mapping):
                names |= _deciders_named(catch.get("body"))
    return names


_EXACT = 2**53  # integers up to this magnitude are exact in an IEEE-754 double


def _inexact_integers(value: Any, path: str) -> list[str]:
    """Where ``value`` holds an integer a double cannot hold exactly."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [f"{path}: integer {value} is beyond +-2**53"] if abs(value) > _EXACT else []
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _inexact_integers(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _inexact_integers(v, f"{path}[{i}]")]
    return []


#: how deep a request may nest (INTERPRETING.md section 4, *Depth*)
MAX_REQUEST_DEPTH = 100


def _depth(value: Any) -> int:
    """How many arrays and objects nest in ``value`` (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = (item.values() if isinstance(item, Mapping)
                    else item if isinstance(item, list) else None)
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _request_depth_problems(data: Mapping[str, Any]) -> list[str]:
    """The run request is ``{"cmd", "seq", "case": <the case without its runner-only
    members>}``: one level above the case."""
    depth = 1 + _depth(Case(data=data).to_run())
    if depth > MAX_REQUEST_DEPTH:
        return [f"its run request nests {depth} levels, over {MAX_REQUEST_DEPTH} "
                "(INTERPRETING.md section 4, Depth): carry a deep value as JSON text"]
    return []


def _semantic(data: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    expect = data["expect"]
    if data["family"] == "vector":
        return check_patterns(expect, "expect")
    body = data["workflow"]["body"]
    problems += check_body(body, "workflow.body")
    if "executionId" in data and not is_execution_id(data["executionId"]):
        # the schema's pattern checks the characters; the device names need more than a
        # portable-1 pattern (spec: journal.execution-ids)
        problems.append(f"executionId {data['executionId']!r} is no execution id: {ID_RULE}")
    scripted = set(data.get("deciders", {}))
    problems += [f"decider {n!r} is used but not scripted"
                 for n in sorted(_deciders_named(body) - scripted)]
    if len(expect["actions"]) != len(data["actions"]):
        problems.append(f"{len(data['actions'])} actions but {len(expect['actions'])} "
                        "expected observations")
    problems += check_patterns(expect, "expect")
    return problems


def _provenance_problems(data: Mapping[str, Any],
                         provenance: Mapping[str, Provenance]) -> list[str]:
    """A case's provenance against its rule's: present, and never stronger."""
    rule = provenance.get(data["anchor"])
    if rule is None:
        return [f"anchor {data['anchor']!r} says not where it comes from: give it a class in "
                "spec/ ({#" + data["anchor"] + " .seed}, .upstream, .convention, .loom-ref "
                "or .extension)"]
    case = Provenance(data["provenance"])
    if case in CORE and rule not in CORE:
        return [f"provenance {case.value!r} is stronger than its rule's ({rule.value}): a "
                "case of a loom-ref choice or an extension is never core"]
    return []


#: Capabilities that generated modes need (INTERPRETING.md section 8), not named by cases.
MODE_CAPABILITIES = frozenset({"crash", "torn-write", "always-replay"})


def _needs(data: Mapping[str, Any]) -> list[str]:
    implied = data.get("function") if data.get("family") == "vector" else "scenario"
    return [str(implied), *map(str, data.get("requires", ()))]


def lint(cases_dir: str, spec_dir: str, schemas: SchemaSet, *,
         capabilities: Mapping[str, Any] | None = None, whole_suite: bool = True) -> list[str]:
    """Every problem found, one line each, ``<file>: <problem>``; [] means clean. With
    ``capabilities`` (the suite's ``capabilities.json`` table), what the cases need must be
    named there; and, when ``cases_dir`` is the ``whole_suite``, everything named there must
    be needed by some case."""
    anchors = spec_anchors(spec_dir)
    provenance = spec_provenance(spec_dir)
    problems: list[str] = list(spec_problems(spec_dir))
    needed: set[str] = set(MODE_CAPABILITIES)
    seen: dict[str, str] = {}
    files = find_case_files(cases_dir)
    if not files:
        problems.append(f"{cases_dir}: no case files")
    for path in files:
        rel = os.path.relpath(path, os.path.dirname(cases_dir))
        want_id = expected_id(cases_dir, path)
        if want_id is None:
            problems.append(f"{rel}: not at cases/<group>/<name>.json, so no run consumes it")
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            data = json.loads(text)
        except (OSError, ValueError) as exc:
            problems.append(f"{rel}: not JSON: {exc}")
            continue
        if text != canonical_json(data):
            problems.append(f"{rel}: not canonical JSON (indent 2, sorted keys, final newline)")
        if isinstance(data, Mapping) and "provenance" not in data:
            problems.append(f"{rel}: says not where it comes from: give it a provenance member "
                            "(seed, upstream, convention, loom-ref or extension; its anchor's, "
                            "or loom-ref where the case rests on a loom-ref choice)")
        shape = schemas.problems("case", data)
        if shape:
            problems.append(f"{rel}: schema: {describe(shape)}")
            continue
        if data["id"] != want_id:
            problems.append(f"{rel}: id {data['id']!r} should be {want_id!r}")
        if data["id"] in seen:
            problems.append(f"{rel}: id {data['id']!r} also used by {seen[data['id']]}")
        seen[data["id"]] = rel
        if "draft" in data:
            problems.append(f"{rel}: a draft case (written by conformance fuzz): decide who "
                            "is right by the spec, then drop its draft member and promote it")
        if data["anchor"] not in anchors:
            problems.append(f"{rel}: anchor {data['anchor']!r} is not defined in "
                            f"{os.path.relpath(spec_dir)}/*.md")
        else:
            problems += [f"{rel}: {p}" for p in _provenance_problems(data, provenance)]
        problems += [f"{rel}: {p}" for p in _semantic(data)]
        problems += [f"{rel}: {p}" for p in _inexact_integers(dict(data), "$")]
        problems += [f"{rel}: {p}" for p in _request_depth_problems(data)]
        problems += [f"{rel}: {p}" for p in dialect_problems(data)]
        for name in _needs(data):
            needed.add(name)
            if capabilities is not None and name not in capabilities:
                problems.append(f"{rel}: needs capability {name!r}, which capabilities.json "
                                "does not name")
    if capabilities is not None and files and whole_suite:
        problems += [f"capabilities.json: {name!r} is needed by no case"
                     for name in sorted(set(capabilities) - needed)]
    return problems
