"""Where a rule comes from, and which verdict it may decide.

Rules (``conformance/INTERPRETING.md`` section 9a, ``spec/README.md`` "Provenance"):

- Every rule anchor of ``spec/*.md`` carries its provenance as a class beside its id,
  ``{#stream.single-finish .upstream}``: one of

  ========== =============================================================================
  seed       a seed document says it (ADR 0119, dsh-llm "LLM Streaming", ADR 0087)
  upstream   the public source of the system a seed describes decides it (dsh-llm)
  convention a documented convention decides it (an RFC, the WHATWG SSE or JSON text)
  loom-ref   loom-ref chose, where the seeds and upstream are silent (a canonical form,
             an interchange format, a stricter refusal, a Python API shape)
  extension  beyond the seeds, opt-in and off by default
  ========== =============================================================================

- The first three are the **core** profile: what any faithful Loom implementation must
  do. The **loom-ref** profile holds every case: the core, plus loom-ref's own choices and
  its extensions. A faithful Loom port is judged by the core profile and is never failed
  for a loom-ref choice.
- Every case file carries ``provenance`` too. A case may be *weaker* than its rule (a
  seed rule's case that can only be observed through a loom-ref representation detail is
  ``loom-ref``), never stronger: a case of a loom-ref rule is never core.
- A generated variant belongs to the core profile only if its base case does and the rule
  of its mode (``kernel.recover``, ``journal.torn-tail`` ...) is core too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from loom_ref.enums import LoomEnum
from loom_ref.errors import ConformanceError

__all__ = [
    "ANCHOR_RE",
    "CORE",
    "HEADING_RE",
    "Profile",
    "Provenance",
    "is_heading",
    "profile_of",
    "spec_problems",
    "spec_provenance",
    "stamped",
    "weakest",
]


class Provenance(LoomEnum):
    """Where a rule comes from (the class beside its anchor)."""

    SEED = "seed"
    UPSTREAM = "upstream"
    CONVENTION = "convention"
    LOOM_REF = "loom-ref"
    EXTENSION = "extension"


class Profile(LoomEnum):
    """A verdict's scope: ``core`` (what Loom requires) or ``loom-ref`` (every case)."""

    CORE = "core"
    LOOM_REF = "loom-ref"


#: The provenances that may decide whether an implementation behaves like Loom.
CORE = frozenset({Provenance.SEED, Provenance.UPSTREAM, Provenance.CONVENTION})

#: ``{#area.rule}`` or ``{#area.rule .class}``: the id, then its classes (pandoc's
#: attribute syntax, which Markdown renderers that know attributes read the same way).
ANCHOR_RE = re.compile(r"\{#([A-Za-z0-9][A-Za-z0-9._-]*)"
                       r"((?:[ \t]+\.[A-Za-z][A-Za-z0-9-]*)*)\}")


def profile_of(provenance: Provenance) -> Profile:
    """The narrowest profile a case of this provenance belongs to."""
    return Profile.CORE if provenance in CORE else Profile.LOOM_REF


def weakest(*provenances: Provenance) -> Provenance:
    """The provenance of something that rests on all of ``provenances``: a non-core one
    if any is (the first such), else the first."""
    for p in provenances:
        if p not in CORE:
            return p
    return provenances[0]


def classes(raw: str) -> list[str]:
    """The class names of an anchor's attribute text (``" .seed"`` -> ``["seed"]``)."""
    return [c.lstrip(".") for c in raw.split()]


def _spec_prose(spec_dir: str) -> Iterator[tuple[str, int, str]]:
    """``(file name, line number, line)`` for every prose line of ``spec_dir/*.md`` (none
    when the folder is missing), files in name order."""
    if not os.path.isdir(spec_dir):
        return
    for name in sorted(os.listdir(spec_dir)):
        if name.endswith(".md"):
            with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
                text = f.read()
            for number, line in _prose_lines(text):
                yield name, number, line


def spec_provenance(spec_dir: str) -> Mapping[str, Provenance]:
    """``{anchor: provenance}`` for every anchor of ``spec_dir/*.md`` that names one (the
    first definition wins; lint reports an anchor without one, or with an unknown one)."""
    found: dict[str, Provenance] = {}
    known = {p.value for p in Provenance}
    for _, _, line in _spec_prose(spec_dir):
        for m in ANCHOR_RE.finditer(line):
            names = [c for c in classes(m.group(2)) if c in known]
            if len(names) == 1 and m.group(1) not in found:
                found[m.group(1)] = Provenance(names[0])
    return found


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of a chapter's prose: fenced code left out, and inline code
    spans taken out of each line (an anchor shown as an example there defines nothing)."""
    out: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, _CODE_SPAN.sub("", line)))
    return out


def stamped(case: Mapping[str, Any], table: Mapping[str, Provenance]) -> dict[str, Any]:
    """``case`` with its ``provenance`` member: the one it gives (a case weaker than its rule
    says so where it is defined), else its anchor's from ``table``
    (:func:`spec_provenance`). How every writer of case files fills the member."""
    out = dict(case)
    if "provenance" not in out:
        anchor = str(out.get("anchor"))
        if anchor not in table:
            raise ConformanceError(f"case {out.get('id')!r}: its anchor {anchor!r} names no "
                                   "provenance in spec/", anchor=anchor)
        out["provenance"] = table[anchor].value
    return out


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")
#: A Markdown (ATX) heading: up to three spaces, one to six #, then a space or the end. A
#: continuation line such as "  #9). The runtime ..." is not one.
HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")


def is_heading(line: str) -> bool:
    """Whether ``line`` is a Markdown heading (whose anchor names a section, not a rule)."""
    return HEADING_RE.match(line) is not None


def spec_problems(spec_dir: str) -> list[str]:
    """Every anchor of ``spec_dir/*.md`` whose provenance is missing, unknown or given twice.
    A heading's anchor names a section and needs none, unless a case pins it (lint checks
    that); a rule's (any other line's, outside inline code) needs exactly one."""
    problems: list[str] = []
    known = {p.value for p in Provenance}
    for name, number, line in _spec_prose(spec_dir):
        heading = is_heading(line)
        for m in ANCHOR_RE.finditer(line):
            names = classes(m.group(2))
            where = f"spec/{name}:{number}: {{#{m.group(1)}}}"
            unknown = [n for n in names if n not in known]
            if unknown:
                problems.append(f"{where}: unknown provenance {', '.join(unknown)} (one of "
                                f"{', '.join(p.value for p in Provenance)})")
            elif len(names) > 1:
                problems.append(f"{where}: one provenance per rule, not {len(names)}")
            elif not names and not heading:
                problems.append(f"{where}: says not where the rule comes from (write "
                                "`.seed`, `.upstream`, `.convention`, `.loom-ref` or "
                                "`.extension` beside the id)")
    return problems
