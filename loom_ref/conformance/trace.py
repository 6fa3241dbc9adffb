"""Traceability: every rule of ``spec/`` tied to the code that enforces it and the cases that
pin it.

- A **rule anchor** is ``{#area.rule}`` on a line of ``spec/*.md`` that is not a heading; an
  anchor on a heading names a section and is not traced.
- A rule is **cited** when its id appears in the source of ``loom_ref/``.
- A rule is **pinned** when some case under ``conformance/cases/`` names it as its
  ``anchor``; a rule that no case can observe through the protocol (a performance property,
  a Python API detail, an HTTP header) is listed in ``conformance/not-pinned/<chapter>.json``
  (``{anchor: reason}``) and must then be cited by a test under ``tests/`` instead.

:func:`trace` computes the table; :func:`render` writes it as ``spec/TRACE.md``; the test
suite checks that the file is current and that nothing is missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs

__all__ = ["Trace", "TraceRow", "problems", "render", "trace"]

_ANCHOR = re.compile(r"\{#([a-z0-9][a-z0-9.\-]*)"
                     r"(?:\s+\.(?:seed|upstream|convention|loom-ref|extension))?\}")
# an anchor shown as an example in inline code is no rule; a code span opens with a run of
# backticks and closes with a run of the same length (CommonMark), so ``a`b`` is one span
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")


@attrs.frozen(kw_only=True)
class TraceRow:
    """One rule: where it is written, where code cites it, which cases pin it."""

    anchor: str
    chapter: str
    code: tuple[str, ...]
    cases: tuple[str, ...]
    exemption: str | None
    tests: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Trace:
    """The whole table, plus what the case files and exemptions name that the spec lacks."""

    rows: tuple[TraceRow, ...]
    unknown_case_anchors: tuple[str, ...]
    unknown_exemptions: tuple[str, ...]


def rule_anchors(spec_dir: Path) -> dict[str, str]:
    """``{anchor: chapter file}`` for every rule anchor (headings excluded)."""
    found: dict[str, str] = {}
    for path in sorted(spec_dir.glob("*.md")):
        for line in path.read_text().splitlines():
            if line.lstrip().startswith("#"):
                continue
            for anchor in _ANCHOR.findall(_CODE_SPAN.sub("", line)):
                found.setdefault(anchor, path.name)
    return found


def _all_anchors(spec_dir: Path) -> set[str]:
    return {a for p in spec_dir.glob("*.md") for line in p.read_text().splitlines()
            for a in _ANCHOR.findall(_CODE_SPAN.sub("", line))}


def _citations(root: Path, anchors: set[str]) -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {a: [] for a in anchors}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        for anchor in anchors:
            if anchor in text:
                cited[anchor].append(path.as_posix())
    return cited


def trace(repo: Path) -> Trace:
    """Compute the traceability table of the checkout at ``repo``."""
    spec_dir = repo / "spec"
    rules = rule_anchors(spec_dir)
    every = _all_anchors(spec_dir)
    cases: dict[str, list[str]] = {}
    for path in sorted((repo / "conformance" / "cases").rglob("*.json")):
        case = json.loads(path.read_text())
        cases.setdefault(case["anchor"], []).append(case["id"])
    exempt: dict[str, str] = {}
    for path in sorted((repo / "conformance" / "not-pinned").glob("*.json")):
        exempt.update(json.loads(path.read_text()))
    code = _citations(repo / "loom_ref", set(rules))
    tests = _citations(repo / "tests", set(rules))
    rows = tuple(
        TraceRow(anchor=a, chapter=rules[a],
                 code=tuple(p.removeprefix(repo.as_posix() + "/") for p in code[a]),
                 cases=tuple(cases.get(a, ())), exemption=exempt.get(a),
                 tests=tuple(p.removeprefix(repo.as_posix() + "/") for p in tests[a]))
        for a in sorted(rules, key=lambda a: (rules[a], a))
    )
    return Trace(rows=rows, unknown_case_anchors=tuple(sorted(set(cases) - every)),
                 unknown_exemptions=tuple(sorted(set(exempt) - set(rules))))


def problems(t: Trace) -> list[str]:
    """Everything that breaks traceability, one line each (empty when complete)."""
    out = [f"case anchor {a} is not defined in spec/" for a in t.unknown_case_anchors]
    out += [f"conformance/not-pinned/ names {a}, which is not a rule anchor"
            for a in t.unknown_exemptions]
    for row in t.rows:
        if not row.code:
            out.append(f"{row.anchor} ({row.chapter}) is not cited in loom_ref/")
        if row.exemption is None and not row.cases:
            out.append(f"{row.anchor} ({row.chapter}) is pinned by no conformance case")
        if row.exemption is not None and row.cases:
            out.append(f"{row.anchor} is exempted but has cases: drop the exemption")
        if row.exemption is not None and not row.exemption.strip():
            out.append(f"{row.anchor}: an exemption needs a reason")
        if row.exemption is not None and not row.tests:
            out.append(f"{row.anchor} is exempted from cases but no test under tests/ cites it")
    return out


def _short(paths: tuple[str, ...], limit: int = 3) -> str:
    shown = ", ".join(f"`{p}`" for p in paths[:limit])
    return shown + (f" (+{len(paths) - limit})" if len(paths) > limit else "")


def render(t: Trace) -> str:
    """``spec/TRACE.md``: one row per rule."""
    lines = [
        "# Traceability: rule -> code -> cases",
        "",
        "Generated by `loom-ref conformance trace --write` from `spec/*.md`, `loom_ref/` and",
        "`conformance/cases/`; do not edit by hand (a test checks it is current). A rule no",
        "case can observe through the protocol is listed in `conformance/not-pinned/` with its",
        "reason and is proved by the tests named here instead.",
        "",
        f"{len(t.rows)} rules; {sum(1 for r in t.rows if r.cases)} pinned by cases; "
        f"{sum(1 for r in t.rows if r.exemption)} proved by tests only.",
        "",
        "| rule | chapter | cited in | pinned by |",
        "|---|---|---|---|",
    ]
    for r in t.rows:
        pinned = (f"{len(r.cases)} case(s): {_short(r.cases, 2)}" if r.cases
                  else f"tests only ({r.exemption}): {_short(r.tests, 2)}")
        lines.append(f"| `{r.anchor}` | {r.chapter} | {_short(r.code)} | {pinned} |")
    return "\n".join(lines) + "\n"
