"""Reporting a run: a text summary for people, JSON and JUnit XML for machines.

Rules (``conformance/INTERPRETING.md`` sections 9 and 9a):

- Every report states the suite's version, loom-ref's (the runner's) version, and the
  implementation's name, version and language.
- Two profiles, two verdicts: the *core* profile (cases whose rule comes from a seed, the
  public upstream source or a documented convention: what Loom requires) and the *loom-ref*
  profile (every case: the core plus loom-ref's own choices and its extensions). Both
  verdicts are stated; the run judges one (``SuiteResult.profile``, default core), and the
  exit status, the headline and the JUnit report follow it.
- Cases as written and generated variants are counted apart (a handful of cases can generate
  thousands of variants), per group and per tier (must / should / may); the verdict says, for
  each tier of each profile, whether the implementation conforms, fails, or was not tested.
- The headline counts what was selected, what was sent, and why the rest was not.
- Each failure and error names its case, tier, provenance and rule (``spec/FILE.md#anchor``),
  quotes the rule's words, and shows each mismatch as ``path: expected X, got Y``. Failures
  of the judged profile come first, base cases before generated variants; variants of one
  base case that fail the same way (the same message, at the same paths) are shown once,
  folded, with their ids. The text shortens long values unless asked not to (``--full``);
  the JSON report never does: it keeps the expected and actual values as JSON, and the case
  exactly as it was sent; it names case files by their place in the suite
  (``cases/<group>/<name>.json``), never by a directory of the machine it ran on.
- Skip reasons are shown per group (``--full``: per case): a skip is never silent.
- The JSON report is valid against ``schemas/report.json``; the JUnit XML report has one
  ``testsuite`` per group (and per group and generated mode) and one ``testcase`` per case of
  the judged profile, with the versions and both profiles' verdicts as properties.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.match import ABSENT, Mismatch
from loom_ref.conformance.provenance import Profile
from loom_ref.conformance.runner import CaseResult, Status, SuiteResult

__all__ = ["dump_json", "group_counts", "render_text", "tier_counts", "to_json", "to_junit",
           "verdicts"]

_ORDER = (Status.PASS, Status.FAIL, Status.SKIP, Status.ERROR)
TIERS = ("must", "should", "may")
PROFILES = (Profile.CORE, Profile.LOOM_REF)
_PROFILE_WORDS = {
    Profile.CORE: "core: the rules of the seeds, the public upstream source and documented "
                  "conventions, what any faithful Loom implementation must do",
    Profile.LOOM_REF: "loom-ref: every case, loom-ref's own choices and extensions included",
}
#: The reason the runner gives a case it does not send for a missing capability.
_NOT_DECLARED = "the implementation does not declare capability"

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


def verdicts(suite: SuiteResult, profile: Profile | None = None) -> dict[str, str]:
    """Per tier of ``profile`` (default: the one judged): ``conforms`` (something ran,
    nothing failed), ``fails`` or ``untested``."""
    out = {}
    for tier, row in tier_counts(suite.results_in(profile or suite.profile)).items():
        out[tier] = "fails" if _bad(row) else "conforms" if _ran(row) else "untested"
    return out


def _totals(results: Sequence[CaseResult]) -> dict[str, dict[str, int]]:
    return {k: {s.value: sum(1 for r in results if _kind(r) == k and r.status is s)
                for s in _ORDER} for k in ("cases", "variants")}


# -- failures, folded ------------------------------------------------------------------------
def _signature(r: CaseResult) -> tuple[Any, ...]:
    """What makes two failing variants of one base case "fail the same way"."""
    return (r.status, r.message, tuple((m.path, m.note) for m in r.mismatches))


def failure_units(results: Sequence[CaseResult]) -> list[list[CaseResult]]:
    """The failed and errored results as they are shown: each failing base case alone, then
    the failing variants of each base case, grouped by mode and by the way they fail, in
    order of first appearance (a base case's variants run only when it passed, so the two
    never describe one bug twice)."""
    bad = [r for r in results if r.status in (Status.FAIL, Status.ERROR)]
    units: dict[Any, list[CaseResult]] = {}
    for r in bad:
        key: Any = ("base", r.id) if r.base_id is None else (r.base_id, r.mode, _signature(r))
        units.setdefault(key, []).append(r)
    return ([u for k, u in units.items() if k[0] == "base"]
            + [u for k, u in units.items() if k[0] != "base"])


def _variant_ids(unit: Sequence[CaseResult], limit: int | None) -> str:
    suffixes = [r.id[len(r.base_id or "") + 1:] for r in unit]
    shown = suffixes if limit is None else suffixes[:limit]
    more = f", ... ({len(suffixes)} in all)" if len(shown) < len(suffixes) else ""
    return ", ".join(shown) + more


def _describe_failure(unit: Sequence[CaseResult], suite: SuiteResult, max_diff: int | None,
                      width: int | None) -> list[str]:
    r = unit[0]
    rule = suite.rules.get(r.anchor)
    where = rule.link if rule else f"#{r.anchor}"
    label = f"({r.tier}, {r.provenance.value})"
    if len(unit) == 1:
        origin = f" -- {r.mode} variant of {r.base_id}" if r.base_id else ""
        lines = [f"{r.status.value.upper()} {r.id} [{r.anchor}] {label} {where}{origin}"]
    else:
        ids = _variant_ids(unit, None if width is None else 8)
        lines = [f"{r.status.value.upper()} {len(unit)} {r.mode} variants of {r.base_id}, "
                 f"all failing the same way [{r.anchor}] {label} {where}",
                 f"  variants: {ids}"]
    if r.description:
        lines.append(f"  {r.description}")
    if rule is not None:
        words = rule.words if width is None else textwrap.shorten(rule.words, 300,
                                                                   placeholder=" [...]")
        lines.append(f"  rule: {words}")
    if r.message:
        lines.append(f"  {r.message}" + (" (the first variant's)" if len(unit) > 1 else ""))
    shown = [m.render(width) for m in r.mismatches] + list(r.details)
    cut = shown if max_diff is None else shown[:max_diff]
    lines += [f"    {d}" for d in cut]
    if len(shown) > len(cut):
        lines.append(f"    ... {len(shown) - len(cut)} more (--full shows all)")
    lines.append(f"  see it: loom-ref conformance show '{r.id}'")
    return lines


def _failures(results: Sequence[CaseResult], suite: SuiteResult, max_failures: int | None,
              max_diff: int | None, width: int | None) -> tuple[list[str], int]:
    units = failure_units(results)
    shown = units if max_failures is None else units[:max_failures]
    out: list[str] = []
    for unit in shown:
        out += _describe_failure(unit, suite, max_diff, width)
    hidden = sum(len(u) for u in units[len(shown):])
    if hidden:
        out.append(f"... and {hidden} more failures in {len(units) - len(shown)} more "
                   "groups (--full, or see --json)")
    return out, sum(len(u) for u in units)


# -- tables ----------------------------------------------------------------------------------
def _row(label: str, width: int, row: Mapping[str, Mapping[str, int]]) -> str:
    cells = [f"{row[k][s.value]:>5}" for k in ("cases", "variants") for s in _ORDER]
    return f"{label:<{width}}  {' '.join(cells[:4])}    {' '.join(cells[4:])}"


def _table(title: str, rows: Mapping[str, Mapping[str, Mapping[str, int]]]) -> list[str]:
    width = max([len(k) for k in rows] + [len(title)])
    head = " ".join(f"{s.value:>5}" for s in _ORDER)
    return [f"{'':<{width}}  {'cases':^23}    {'generated variants':^23}",
            f"{title:<{width}}  {head}    {head}",
            *(_row(k, width, v) for k, v in rows.items())]


def _skip_reasons(results: Sequence[CaseResult], full: bool) -> list[str]:
    """Why cases were skipped: per group, each distinct reason with its count (a capability
    the implementation does not declare is said once per capability); with ``full``, every
    skipped case with its own reason."""
    skipped = [r for r in results if r.status is Status.SKIP]
    if not skipped:
        return []
    if full:
        return ["skipped:", *(f"  {r.id}: {r.message}" for r in skipped)]
    by_group: dict[str, Counter[str]] = {}
    for r in skipped:
        reason = r.message
        if reason.startswith("not run: base case"):
            reason = "not run: the base case did not pass"
        by_group.setdefault(r.group, Counter())[reason] += 1
    lines = ["skipped, and why (--full: per case):"]
    for group, reasons in sorted(by_group.items()):
        for reason, n in reasons.most_common():
            lines.append(f"  {group}: {n} x {textwrap.shorten(reason, 110, placeholder='...')}")
    return lines


def versions_line(suite: SuiteResult) -> str:
    impl = suite.implementation
    lang = f" ({impl['language']})" if impl.get("language") else ""
    return (f"suite {suite.suite_version or '?'}, runner loom-ref {suite.runner_version}; "
            f"implementation {impl.get('name', '?')} {impl.get('version', '?')}{lang}")


def sent_line(suite: SuiteResult) -> str:
    """What was selected, what was sent, and why the rest was not."""
    totals = {k: sum(1 for r in suite.results if _kind(r) == k) for k in ("cases", "variants")}
    sent = {k: sum(1 for r in suite.results if _kind(r) == k and r.delivered)
            for k in ("cases", "variants")}
    undeclared = sum(1 for r in suite.results
                     if not r.delivered and r.message.startswith(_NOT_DECLARED))
    after_fail = sum(1 for r in suite.results if not r.delivered
                     and r.message.startswith("not run: base case"))
    answered = Counter(r.status.value for r in suite.results if r.delivered)
    parts = [f"selected {totals['cases']} cases and {totals['variants']} generated variants; "
             f"sent {sent['cases']} cases and {sent['variants']} variants"]
    if sent["cases"] or sent["variants"]:
        parts.append("answered: " + ", ".join(f"{answered[s.value]} {s.value}" for s in _ORDER))
    unsent = []
    if undeclared:
        unsent.append(f"{undeclared} need a capability the implementation does not declare")
    if after_fail:
        unsent.append(f"{after_fail} variants of a base case that did not pass")
    if unsent:
        parts.append("not sent: " + "; ".join(unsent))
    return "; ".join(parts)


def verdict_line(suite: SuiteResult, profile: Profile | None = None) -> str:
    """One profile's verdict, per tier (default: the judged profile)."""
    profile = profile or suite.profile
    results = suite.results_in(profile)
    tiers = tier_counts(results)
    marks = verdicts(suite, profile)
    parts = []
    for tier, verdict in marks.items():
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
    tested = [v for v in marks.values() if v != "untested"]
    ok = suite.ok_in(profile)
    head = "FAILED" if not ok else "CONFORMS" if tested else "NOTHING RAN"
    if ok and tested and any(sum(tiers[t]["cases"].values()) and v == "untested"
                             for t, v in marks.items()):
        head = "CONFORMS where tested"
    extra = f"; {len(suite.problems)} problem(s) with the run" if suite.problems else ""
    if profile is suite.profile:
        return f"verdict: {head} ({profile.value} profile): {'; '.join(parts)}{extra}"
    return f"{profile.value} profile (not judged): {head}: {'; '.join(parts)}{extra}"


def render_text(suite: SuiteResult, *, max_failures: int | None = 50,
                max_diff: int | None = 8, full: bool = False) -> str:
    """The human summary: the judged profile's failures first (base cases before folded
    variants), then the other profile's, the groups, why cases were skipped, the tiers of
    each profile, the versions, what was sent, and both verdicts (the judged one last)."""
    width = None if full else 160
    if full:
        max_failures = max_diff = None
    judged = suite.profile
    other = Profile.LOOM_REF if judged is Profile.CORE else None
    out: list[str] = []
    mine = suite.results_in(judged)
    lines, n = _failures(mine, suite, max_failures, max_diff, width)
    out += lines
    if other is not None:
        extra = [r for r in suite.results if not r.counts_in(judged)]
        lines, m = _failures(extra, suite, max_failures, max_diff, width)
        if m:
            out += ["", f"-- {m} failure(s) in the loom-ref profile only (loom-ref's own "
                    "choices and extensions; not judged: --profile loom-ref judges them) --",
                    *lines]
        n += m
    if n:
        out.append("")
    groups = group_counts(suite.results)
    ran = {k: v for k, v in groups.items() if _ran(v)}
    idle = [k for k, v in groups.items() if not _ran(v)]
    if ran:
        out += _table("group", ran)
    if idle:
        count = sum(sum(groups[k]["cases"].values()) for k in idle)
        out.append("")
        out += textwrap.wrap(f"nothing ran in {len(idle)} group(s) ({count} cases, all "
                             "skipped): " + ", ".join(idle), width=100, subsequent_indent="  ")
    reasons = _skip_reasons(suite.results, full)
    if reasons:
        out += ["", *reasons]
    for profile in PROFILES:
        out.append("")
        out += _table(f"tier, {profile.value}", tier_counts(suite.results_in(profile)))
    out.append("")
    for problem in suite.problems:
        out.append(f"PROBLEM {problem}")
    for crash in suite.crashes:
        out.append(f"CRASH {crash}")
    out.append(versions_line(suite))
    out.append(sent_line(suite))
    out += [verdict_line(suite, p) for p in PROFILES if p is not judged]
    out.append(verdict_line(suite, judged))
    return utf8_json("\n".join(out)) + "\n"


# -- JSON ------------------------------------------------------------------------------------
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
        "provenance": r.provenance.value, "profile": r.profile.value,
        "status": r.status.value, "delivered": r.delivered, "description": r.description,
        "message": r.message, "mismatches": [_mismatch_json(m) for m in r.mismatches],
        "details": list(r.details), "baseId": r.base_id, "path": _where(r.path, cases_dir)}
    if r.sent is not None:
        out["sent"] = r.sent
    return out


def _profile_json(suite: SuiteResult, profile: Profile) -> dict[str, Any]:
    results = suite.results_in(profile)
    return {"ok": suite.ok_in(profile), "verdict": verdicts(suite, profile),
            "totals": _totals(results), "tiers": tier_counts(results)}


def to_json(suite: SuiteResult) -> dict[str, Any]:
    """The JSON report (``schemas/report.json``). Its top-level ``ok`` and ``verdict`` are
    the judged profile's (``profile``); ``totals``, ``tiers`` and ``groups`` count every
    case of the run; ``profiles`` holds both profiles' verdicts and counts."""
    judged = _profile_json(suite, suite.profile)
    return {
        "suite": {"version": suite.suite_version},
        "runner": {"name": "loom-ref", "version": suite.runner_version},
        "implementation": dict(suite.implementation),
        "profile": suite.profile.value,
        "ok": suite.ok,
        "verdict": judged["verdict"],
        "profiles": {p.value: _profile_json(suite, p) for p in PROFILES},
        "totals": _totals(suite.results),
        "tiers": tier_counts(suite.results),
        "groups": group_counts(suite.results),
        "problems": list(suite.problems),
        "crashes": list(suite.crashes),
        "rules": {a: {"file": r.file, "words": r.words,
                      "provenance": r.provenance.value if r.provenance else None}
                  for a, r in suite.rules.items()},
        "cases": [_case_json(r, suite.cases_dir) for r in suite.results],
    }


def dump_json(suite: SuiteResult) -> str:
    """The JSON report as text (lone surrogates written as escapes)."""
    return utf8_json(json.dumps(to_json(suite), indent=2, ensure_ascii=False)) + "\n"


# -- JUnit -----------------------------------------------------------------------------------
def to_junit(suite: SuiteResult) -> bytes:
    """The JUnit XML report: the judged profile's cases (one testsuite per group, and per
    group and generated mode: ``kernel.gates [crash]``), both profiles' verdicts as
    properties."""
    root = ET.Element("testsuites", name=f"loom conformance: {suite.implementation.get('name')}")
    impl = suite.implementation
    props = {"suite.version": suite.suite_version, "runner": f"loom-ref {suite.runner_version}",
             "implementation.name": str(impl.get("name", "")),
             "implementation.version": str(impl.get("version", "")),
             "implementation.language": str(impl.get("language", "")),
             "profile": suite.profile.value,
             **{f"verdict.{t}": v for t, v in verdicts(suite).items()},
             **{f"verdict.{p.value}.{t}": v for p in PROFILES
                for t, v in verdicts(suite, p).items()}}
    by_group: dict[str, list[CaseResult]] = {}
    for r in suite.results_in(suite.profile):
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
            text = _xml_text("\n".join([f"rule: {where} ({r.tier}, {r.provenance.value})",
                                        *r.diff]))
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
