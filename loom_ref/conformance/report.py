"""Reporting a run: a text summary for people, JSON and JUnit XML for machines.

Rules (``conformance/INTERPRETING.md`` section 9):

- Every report states the suite's version, loom-ref's (the runner's) version, and the
  implementation's name, version and language.
- Cases as written and generated variants are counted apart (a handful of cases can generate
  thousands of variants), per group and per tier (must / should / may); the verdict says, for
  each tier, whether the implementation conforms, fails, or was not tested there.
- Each failure and error names its case, tier and rule (``spec/FILE.md#anchor``), quotes the
  rule's words, and shows each mismatch as ``path: expected X, got Y``; the text shortens
  long values unless asked not to (``--full``), the JSON report never does: it keeps the
  expected and actual values as JSON, and the case exactly as it was sent; it names case
  files by their place in the suite (``cases/<group>/<name>.json``), never by a directory of
  the machine it ran on.
- The JSON report is valid against ``schemas/report.json``; the JUnit XML report has one
  ``testsuite`` per group (and per group and generated mode) and one ``testcase`` per case,
  with the versions and verdicts as properties.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from typing import Any

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.match import ABSENT, Mismatch
from loom_ref.conformance.runner import CaseResult, Status, SuiteResult

__all__ = ["dump_json", "group_counts", "render_text", "tier_counts", "to_json", "to_junit",
           "verdicts"]

_ORDER = (Status.PASS, Status.FAIL, Status.SKIP, Status.ERROR)
TIERS = ("must", "should", "may")

# What an implementation under test may send back and a report must still carry: a lone
# surrogate (UTF-8 cannot encode it) and, in XML, the characters XML 1.0 does not allow.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _xml_text(text: str) -> str:
    """``text`` with each character XML 1.0 cannot hold written as ``\\uXXXX``."""
    return _NOT_XML.sub(_escape, text)


def _kind(result: CaseResult) -> str:
    return "cases" if result.mode == "base" else "variants"


def _empty() -> dict[str, dict[str, int]]:
    return {kind: {s.value: 0 for s in _ORDER} for kind in ("cases", "variants")}


def _tally(results: Iterable[CaseResult], key: Any) -> dict[str, dict[str, dict[str, int]]]:
    table: dict[str, dict[str, dict[str, int]]] = {}
    for r in results:
        table.setdefault(key(r), _empty())[_kind(r)][r.status.value] += 1
    return table


def group_counts(results: Iterable[CaseResult]) -> dict[str, dict[str, dict[str, int]]]:
    """``{group: {cases: {pass, fail, skip, error}, variants: {...}}}``, sorted by group."""
    return dict(sorted(_tally(results, lambda r: r.group).items()))


def tier_counts(results: Iterable[CaseResult]) -> dict[str, dict[str, dict[str, int]]]:
    """``{tier: {cases: {...}, variants: {...}}}`` for must, should and may."""
    table = _tally(results, lambda r: r.tier)
    return {tier: table.get(tier, _empty()) for tier in TIERS}


def _ran(row: Mapping[str, Mapping[str, int]]) -> int:
    return sum(row[k][s] for k in row for s in ("pass", "fail", "error"))


def _bad(row: Mapping[str, Mapping[str, int]]) -> int:
    return sum(row[k][s] for k in row for s in ("fail", "error"))


def verdicts(suite: SuiteResult) -> dict[str, str]:
    """Per tier: ``conforms`` (something ran, nothing failed), ``fails`` or ``untested``."""
    out = {}
    for tier, row in tier_counts(suite.results).items():
        out[tier] = "fails" if _bad(row) else "conforms" if _ran(row) else "untested"
    return out


def _describe_failure(r: CaseResult, suite: SuiteResult, max_diff: int | None,
                      width: int | None) -> list[str]:
    rule = suite.rules.get(r.anchor)
    where = rule.link if rule else f"#{r.anchor}"
    origin = f" -- {r.mode} variant of {r.base_id}" if r.base_id else ""
    lines = [f"{r.status.value.upper()} {r.id} [{r.anchor}] ({r.tier}) {where}{origin}"]
    if r.description:
        lines.append(f"  {r.description}")
    if rule is not None:
        words = rule.words if width is None else textwrap.shorten(rule.words, 300,
                                                                   placeholder=" [...]")
        lines.append(f"  rule: {words}")
    if r.message:
        lines.append(f"  {r.message}")
    shown = [m.render(width) for m in r.mismatches] + list(r.details)
    cut = shown if max_diff is None else shown[:max_diff]
    lines += [f"    {d}" for d in cut]
    if len(shown) > len(cut):
        lines.append(f"    ... {len(shown) - len(cut)} more (--full shows all)")
    lines.append(f"  see it: loom-ref conformance show '{r.id}'")
    return lines


def _row(label: str, width: int, row: Mapping[str, Mapping[str, int]]) -> str:
    cells = [f"{row[k][s.value]:>5}" for k in ("cases", "variants") for s in _ORDER]
    return f"{label:<{width}}  {' '.join(cells[:4])}    {' '.join(cells[4:])}"


def _table(title: str, rows: Mapping[str, Mapping[str, Mapping[str, int]]]) -> list[str]:
    width = max([len(k) for k in rows] + [len(title)])
    head = " ".join(f"{s.value:>5}" for s in _ORDER)
    return [f"{'':<{width}}  {'cases':^23}    {'generated variants':^23}",
            f"{title:<{width}}  {head}    {head}",
            *(_row(k, width, v) for k, v in rows.items())]


def versions_line(suite: SuiteResult) -> str:
    impl = suite.implementation
    lang = f" ({impl['language']})" if impl.get("language") else ""
    return (f"suite {suite.suite_version or '?'}, runner loom-ref {suite.runner_version}; "
            f"implementation {impl.get('name', '?')} {impl.get('version', '?')}{lang}")


def verdict_line(suite: SuiteResult) -> str:
    tiers = tier_counts(suite.results)
    parts = []
    for tier, verdict in verdicts(suite).items():
        row = tiers[tier]
        n = sum(row["cases"].values())
        ran = sum(row["cases"][s] for s in ("pass", "fail", "error"))
        if verdict == "fails":
            parts.append(f"{tier.upper()} fails ({_bad(row)} failed or errored)")
        elif verdict == "conforms":
            parts.append(f"{tier.upper()} conforms ({ran} of {n} cases ran)")
        elif n:
            parts.append(f"{tier.upper()} untested ({n} cases, none ran)")
        else:
            parts.append(f"{tier.upper()}: no cases selected")
    tested = [v for v in verdicts(suite).values() if v != "untested"]
    head = "FAILED" if not suite.ok else "CONFORMS" if tested else "NOTHING RAN"
    if suite.ok and tested and any(sum(tiers[t]["cases"].values()) and v == "untested"
                                   for t, v in verdicts(suite).items()):
        head = "CONFORMS where tested"
    extra = f"; {len(suite.problems)} problem(s) with the run" if suite.problems else ""
    return f"verdict: {head}: {'; '.join(parts)}{extra}"


def render_text(suite: SuiteResult, *, max_failures: int | None = 50,
                max_diff: int | None = 8, full: bool = False) -> str:
    """The human summary: failures first, then the groups, the tiers, versions and verdict.
    ``full`` shows every failure, every mismatch and whole values."""
    width = None if full else 160
    if full:
        max_failures = max_diff = None
    out: list[str] = []
    bad = [r for r in suite.results if r.status in (Status.FAIL, Status.ERROR)]
    shown = bad if max_failures is None else bad[:max_failures]
    for r in shown:
        out += _describe_failure(r, suite, max_diff, width)
    if len(bad) > len(shown):
        out.append(f"... and {len(bad) - len(shown)} more failures (--full, or see --json)")
    if bad:
        out.append("")
    groups = group_counts(suite.results)
    ran = {k: v for k, v in groups.items() if _ran(v)}
    idle = [k for k, v in groups.items() if not _ran(v)]
    if ran:
        out += _table("group", ran)
    if idle:
        n = sum(sum(groups[k]["cases"].values()) for k in idle)
        out.append("")
        out += textwrap.wrap(f"nothing ran in {len(idle)} group(s) ({n} cases, all skipped): "
                             + ", ".join(idle), width=100, subsequent_indent="  ")
    out.append("")
    out += _table("tier", tier_counts(suite.results))
    out.append("")
    for problem in suite.problems:
        out.append(f"PROBLEM {problem}")
    for crash in suite.crashes:
        out.append(f"CRASH {crash}")
    totals = {k: sum(1 for r in suite.results if _kind(r) == k) for k in ("cases", "variants")}
    out.append(versions_line(suite))
    out.append(f"ran {totals['cases']} cases and {totals['variants']} generated variants: "
               + ", ".join(f"{suite.count(s)} {s.value}" for s in _ORDER))
    out.append(verdict_line(suite))
    return utf8_json("\n".join(out)) + "\n"


def _mismatch_json(m: Mismatch) -> dict[str, Any]:
    out: dict[str, Any] = {"path": m.path}
    if m.expected is not ABSENT:
        out["expected"] = m.expected
    if m.actual is not ABSENT:
        out["actual"] = m.actual
    if m.note:
        out["note"] = m.note
    return out


def _where(path: str | None, cases_dir: str | None) -> str | None:
    """A case file's path as a report shows it: ``cases/<group>/<name>.json`` for a file of
    the run's cases directory (a report is shared: it names no directory of the machine it
    ran on), else as it was given."""
    if path is None or cases_dir is None:
        return path
    rel = os.path.relpath(path, cases_dir)
    return path if rel.startswith("..") else "cases/" + rel.replace(os.sep, "/")


def _case_json(r: CaseResult, cases_dir: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": r.id, "group": r.group, "mode": r.mode, "anchor": r.anchor, "tier": r.tier,
        "status": r.status.value, "description": r.description, "message": r.message,
        "mismatches": [_mismatch_json(m) for m in r.mismatches], "details": list(r.details),
        "baseId": r.base_id, "path": _where(r.path, cases_dir)}
    if r.sent is not None:
        out["sent"] = r.sent
    return out


def to_json(suite: SuiteResult) -> dict[str, Any]:
    """The JSON report (``schemas/report.json``)."""
    return {
        "suite": {"version": suite.suite_version},
        "runner": {"name": "loom-ref", "version": suite.runner_version},
        "implementation": dict(suite.implementation),
        "ok": suite.ok,
        "verdict": verdicts(suite),
        "totals": {k: {s.value: sum(1 for r in suite.results
                                    if _kind(r) == k and r.status is s) for s in _ORDER}
                   for k in ("cases", "variants")},
        "tiers": tier_counts(suite.results),
        "groups": group_counts(suite.results),
        "problems": list(suite.problems),
        "crashes": list(suite.crashes),
        "rules": {a: {"file": r.file, "words": r.words} for a, r in suite.rules.items()},
        "cases": [_case_json(r, suite.cases_dir) for r in suite.results],
    }


def dump_json(suite: SuiteResult) -> str:
    """The JSON report as text (lone surrogates written as escapes)."""
    return utf8_json(json.dumps(to_json(suite), indent=2, ensure_ascii=False)) + "\n"


def to_junit(suite: SuiteResult) -> bytes:
    """The JUnit XML report (one testsuite per group, and per group and generated mode:
    ``kernel.gates [crash]``)."""
    root = ET.Element("testsuites", name=f"loom conformance: {suite.implementation.get('name')}")
    impl = suite.implementation
    props = {"suite.version": suite.suite_version, "runner": f"loom-ref {suite.runner_version}",
             "implementation.name": str(impl.get("name", "")),
             "implementation.version": str(impl.get("version", "")),
             "implementation.language": str(impl.get("language", "")),
             **{f"verdict.{t}": v for t, v in verdicts(suite).items()}}
    by_group: dict[str, list[CaseResult]] = {}
    for r in suite.results:
        by_group.setdefault(r.group if r.mode == "base" else f"{r.group} [{r.mode}]",
                            []).append(r)
    for group, results in sorted(by_group.items()):
        el = ET.SubElement(root, "testsuite", name=group, tests=str(len(results)),
                           failures=str(sum(r.status is Status.FAIL for r in results)),
                           errors=str(sum(r.status is Status.ERROR for r in results)),
                           skipped=str(sum(r.status is Status.SKIP for r in results)))
        properties = ET.SubElement(el, "properties")
        for name, value in props.items():
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
        for r in results:
            case = ET.SubElement(el, "testcase", classname=group, name=r.id)
            rule = suite.rules.get(r.anchor)
            where = rule.link if rule else r.anchor
            text = _xml_text("\n".join([f"rule: {where} ({r.tier})", *r.diff]))
            message = _xml_text(r.message)
            if r.status is Status.FAIL:
                ET.SubElement(case, "failure", message=message).text = text
            elif r.status is Status.ERROR:
                ET.SubElement(case, "error", message=message).text = text
            elif r.status is Status.SKIP:
                ET.SubElement(case, "skipped", message=message)
    if suite.problems or suite.crashes:
        el = ET.SubElement(root, "testsuite", name="suite", tests="1", failures="0",
                           errors="1" if suite.problems else "0", skipped="0")
        case = ET.SubElement(el, "testcase", classname="suite", name="audit")
        if suite.problems:
            ET.SubElement(case, "error", message="problems with the run").text = _xml_text(
                "\n".join(suite.problems))
        ET.SubElement(case, "system-out").text = _xml_text("\n".join(suite.crashes))
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data
