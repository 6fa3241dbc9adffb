"""Conformance cases: the record, the loader, and the canonical file form.

Rules (``conformance/INTERPRETING.md`` sections 2 and 3):

- A case is one file ``conformance/cases/<group>/<name>.json`` whose ``id`` is
  ``"<group>/<name>"``; the group is dotted (``kernel.replay``, ``stream.checker``).
- Every case names the spec anchor it pins, a tier (``must`` / ``should`` / ``may``) and a
  description, and is one of two families: a *vector* (a pure function, ``input`` ->
  ``expect.result`` or ``expect.error``) or a *scenario* (a workflow driven through actions).
- Case files are canonical JSON: ``json.dumps(obj, indent=2, sort_keys=True,
  ensure_ascii=False) + "\\n"``, a lone surrogate written as its ``\\uXXXX`` escape, so a
  diff of a case is a diff of its meaning.
- The ``expect`` member is the runner's alone: :meth:`Case.to_run` builds what the
  implementation receives, and it never holds ``expect`` (nor ``excludeModes``, which is
  the runner's bookkeeping, nor the ``draft`` record of a case ``fuzz`` wrote, nor its
  ``provenance``, which decides the profile a verdict counts in, not what is run).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.conformance.provenance import Provenance
from loom_ref.conformance.selection import selects_case
from loom_ref.enums import LoomEnum
from loom_ref.errors import ConformanceError

__all__ = [
    "Case",
    "CaseFileError",
    "Family",
    "Tier",
    "canonical_json",
    "case_group",
    "find_case_files",
    "load_case",
    "load_cases",
]

_RUNNER_ONLY = ("expect", "excludeModes", "draft", "provenance")


class CaseFileError(ConformanceError):
    """A case file cannot be read, is not valid JSON, or is not where its id says."""

    code = "conformance.bad-case-file"


class Tier(LoomEnum):
    """How strongly the spec requires what a case checks (RFC 2119)."""

    MUST = "must"
    SHOULD = "should"
    MAY = "may"


class Family(LoomEnum):
    """The two kinds of case."""

    VECTOR = "vector"
    SCENARIO = "scenario"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_json(text: str) -> str:
    """JSON ``text`` that ``json.dumps(..., ensure_ascii=False)`` wrote, with each lone
    surrogate written as its ``\\uXXXX`` escape (lowercase hex): the same JSON value, as text
    UTF-8 can carry. (``json.dumps`` writes every other character as itself, so a surrogate
    in its output is a lone one, inside a string.) For case files, protocol lines and
    reports, which may hold such strings: JSON can spell them, UTF-8 cannot."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def canonical_json(obj: Any) -> str:
    """The one text form of a case file (and of anything the suite writes as a case)."""
    return utf8_json(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)) + "\n"


def case_group(case_id: str) -> str:
    """The group of a case id: ``"kernel.replay/served"`` -> ``"kernel.replay"``."""
    return case_id.split("/", 1)[0]


@attrs.frozen(kw_only=True)
class Case:
    """One case as loaded. ``data`` is the whole file; ``path`` where it came from (None
    for a case made in memory, such as a derived variant or a seeded random scenario).
    ``mode`` is ``"base"`` for a case as written, or the generated mode of a variant."""

    data: Mapping[str, Any]
    path: str | None = None
    mode: str = "base"
    base_id: str | None = None

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def group(self) -> str:
        return case_group(self.id)

    @property
    def anchor(self) -> str:
        return str(self.data["anchor"])

    @property
    def tier(self) -> Tier:
        return Tier(self.data["tier"])

    @property
    def provenance(self) -> Provenance:
        """Where the rule this case checks comes from (``provenance`` member; a case made
        without one, such as a seeded random scenario, counts as loom-ref's)."""
        return Provenance(self.data.get("provenance", Provenance.LOOM_REF.value))

    @property
    def family(self) -> Family:
        return Family(self.data["family"])

    @property
    def description(self) -> str:
        return str(self.data.get("description", ""))

    @property
    def expect(self) -> Mapping[str, Any]:
        return self.data["expect"]  # type: ignore[no-any-return]

    @property
    def requires(self) -> tuple[str, ...]:
        """The capabilities an implementation must declare to run this case: a vector's
        function name, ``scenario`` for a scenario, and whatever the case lists."""
        implied = self.data["function"] if self.family is Family.VECTOR else "scenario"
        return (implied, *self.data.get("requires", ()))

    def to_run(self) -> dict[str, Any]:
        """The case as sent to an implementation: everything but the runner's members."""
        return {k: v for k, v in self.data.items() if k not in _RUNNER_ONLY}


def find_case_files(root: str) -> list[str]:
    """Every file under ``root`` (sorted), whatever its name: the loader and the lint both
    start from this list, so a stray file is reported rather than ignored."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        found.extend(os.path.join(dirpath, f) for f in sorted(filenames))
    return found


def expected_id(root: str, path: str) -> str | None:
    """The id a file at ``path`` must carry, or None if it is not at ``<group>/<name>.json``."""
    rel = os.path.relpath(path, root).split(os.sep)
    if len(rel) != 2 or not rel[1].endswith(".json"):
        return None
    return f"{rel[0]}/{rel[1][: -len('.json')]}"


def load_case(path: str, *, root: str | None = None) -> Case:
    """Read one case file. With ``root``, the id must match the file's place under it."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise CaseFileError(f"{path}: {exc}", file=path) from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise CaseFileError(f"{path}: a case is a JSON object with a string id", file=path)
    if root is not None and expected_id(root, path) != data["id"]:
        raise CaseFileError(
            f"{path}: id {data['id']!r} does not match its place (expected "
            f"{expected_id(root, path)!r})", file=path,
        )
    return Case(data=data, path=path)


def load_cases(root: str, *, only: Sequence[str] = ()) -> tuple[list[Case], list[str]]:
    """Load every case under ``root`` selected by ``only`` (patterns, :mod:`.selection`).

    Returns the cases and the list of files that could not be loaded as cases (each with
    the reason), so a caller can report them: nothing under ``root`` is silently skipped.
    """
    cases: list[Case] = []
    problems: list[str] = []
    for path in find_case_files(root):
        if expected_id(root, path) is None:
            problems.append(f"{path}: not a case file (cases live at <group>/<name>.json)")
            continue
        try:
            case = load_case(path, root=root)
        except CaseFileError as exc:
            problems.append(exc.message)
            continue
        if selects_case(only, case.id):
            cases.append(case)
    return cases, problems


def groups_of(cases: Iterable[Case]) -> list[str]:
    """The sorted distinct groups of ``cases``."""
    return sorted({c.group for c in cases})


__all__ += ["expected_id", "groups_of"]
