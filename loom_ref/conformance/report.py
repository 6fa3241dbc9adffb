"""Reporting a run: a text summary for people, JSON and JUnit XML for machines.

Rules (``conformance/INTERPRETING.md`` section 9): the summary gives pass / fail / skip /
error per group (a generated mode shows as ``<group> [<mode>]``); each failure and error is
listed with its case id, the spec anchor it pins, its tier and the expected-vs-actual diff.
The JSON report holds the same facts, one object per case; the JUnit XML report has one
``testsuite`` per group and one ``testcase`` per case.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.runner import CaseResult, Status, SuiteResult

__all__ = ["group_counts", "render_text", "to_json", "to_junit"]

_ORDER = (Status.PASS, Status.FAIL, Status.SKIP, Status.ERROR)

# What an implementation under test may send back and a report must still carry: a lone
# surrogate (UTF-8 cannot encode it) and, in XML, the characters XML 1.0 does not allow.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _xml_text(text: str) -> str:
    """``text`` with each character XML 1.0 cannot hold written as ``\\uXXXX``."""
    return _NOT_XML.sub(_escape, text)


def _key(result: CaseResult) -> str:
    return result.group if result.mode == "base" else f"{result.group} [{result.mode}]"


def group_counts(results: Iterable[CaseResult]) -> dict[str, dict[str, int]]:
    """``{group-or-group-[mode]: {pass, fail, skip, error}}``, sorted by key."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        row = table.setdefault(_key(r), {s.value: 0 for s in _ORDER})
        row[r.status.value] += 1
    return dict(sorted(table.items()))


def _describe_failure(r: CaseResult, max_diff: int) -> list[str]:
    origin = f" -- {r.mode} variant of {r.base_id}" if r.base_id else ""
    lines = [f"{r.status.value.upper()} {r.id} [{r.anchor}] ({r.tier}){origin}"]
    if r.description:
        lines.append(f"  {r.description}")
    if r.message:
        lines.append(f"  {r.message}")
    lines += [f"    {d}" for d in r.diff[:max_diff]]
    if len(r.diff) > max_diff:
        lines.append(f"    ... {len(r.diff) - max_diff} more")
    return lines


def render_text(suite: SuiteResult, *, max_failures: int = 50, max_diff: int = 8) -> str:
    """The human summary: failures first, then the per-group table and the totals."""
    out: list[str] = []
    bad = [r for r in suite.results if r.status in (Status.FAIL, Status.ERROR)]
    for r in bad[:max_failures]:
        out += _describe_failure(r, max_diff)
    if len(bad) > max_failures:
        out.append(f"... and {len(bad) - max_failures} more failures (see --json)")
    if bad:
        out.append("")
    counts = group_counts(suite.results)
    width = max([len(k) for k in counts] + [5])
    out.append(f"{'group':<{width}}  {'pass':>5} {'fail':>5} {'skip':>5} {'error':>5}")
    for key, row in counts.items():
        out.append(f"{key:<{width}}  {row['pass']:>5} {row['fail']:>5} {row['skip']:>5} "
                   f"{row['error']:>5}")
    for problem in suite.problems:
        out.append(f"PROBLEM {problem}")
    for crash in suite.crashes:
        out.append(f"CRASH {crash}")
    impl = suite.implementation
    totals = ", ".join(f"{suite.count(s)} {s.value}" for s in _ORDER)
    out.append(f"{impl.get('name', '?')} {impl.get('version', '?')}: {totals}"
               + ("" if suite.ok else "  -- FAILED"))
    return utf8_json("\n".join(out)) + "\n"


def to_json(suite: SuiteResult) -> dict[str, Any]:
    """The JSON report."""
    return {
        "implementation": dict(suite.implementation),
        "ok": suite.ok,
        "totals": {s.value: suite.count(s) for s in _ORDER},
        "groups": group_counts(suite.results),
        "problems": list(suite.problems),
        "crashes": list(suite.crashes),
        "cases": [
            {"id": r.id, "group": r.group, "mode": r.mode, "anchor": r.anchor, "tier": r.tier,
             "status": r.status.value, "message": r.message, "diff": list(r.diff),
             "baseId": r.base_id, "path": r.path}
            for r in suite.results
        ],
    }


def to_junit(suite: SuiteResult) -> bytes:
    """The JUnit XML report (one testsuite per group and mode)."""
    root = ET.Element("testsuites", name=f"loom conformance: {suite.implementation.get('name')}")
    by_key: dict[str, list[CaseResult]] = {}
    for r in suite.results:
        by_key.setdefault(_key(r), []).append(r)
    for key, results in sorted(by_key.items()):
        el = ET.SubElement(root, "testsuite", name=key, tests=str(len(results)),
                           failures=str(sum(r.status is Status.FAIL for r in results)),
                           errors=str(sum(r.status is Status.ERROR for r in results)),
                           skipped=str(sum(r.status is Status.SKIP for r in results)))
        for r in results:
            case = ET.SubElement(el, "testcase", classname=key, name=r.id)
            text = _xml_text("\n".join([f"anchor: {r.anchor} ({r.tier})", *r.diff]))
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
            ET.SubElement(case, "error", message="suite problems").text = _xml_text(
                "\n".join(suite.problems))
        ET.SubElement(case, "system-out").text = _xml_text("\n".join(suite.crashes))
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


def dump_json(suite: SuiteResult) -> str:
    """The JSON report as text."""
    return utf8_json(json.dumps(to_json(suite), indent=2, ensure_ascii=False)) + "\n"


__all__ += ["dump_json"]
