"""The table a run prints, and the records it keeps (one JSON line per scored mutant)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from .sites import Mutant

__all__ = ["Row", "record", "render"]

Row = dict[str, Any]

_COLUMNS = ("mutants", "suite", "pytest", "survived", "equivalent", "beyond")


def record(mutant: Mutant, layer: str, kind: str, verdict: str, *, stage: str = "",
           how: str = "", detail: Iterable[str] = (), seconds: float = 0.0,
           reason: str = "") -> Row:
    """One scored mutant as a JSON-ready row."""
    return {"id": mutant.id, "key": mutant.key, "layer": layer, "kind": kind,
            "file": mutant.file, "line": mutant.line, "function": mutant.function,
            "op": mutant.op, "change": mutant.change, "source": mutant.source_line,
            "rule": mutant.rule, "verdict": verdict, "stage": stage, "how": how,
            "detail": list(detail), "seconds": round(seconds, 2), "reason": reason}


def _tally(rows: Iterable[Row]) -> dict[str, int]:
    counts = dict.fromkeys(_COLUMNS, 0)
    for row in rows:
        counts["mutants"] += 1
        counts[row["verdict"]] += 1
    return counts


def _score(counts: Mapping[str, int], *, reach: bool = False) -> str:
    live = counts["mutants"] - counts["equivalent"] - (counts["beyond"] if reach else 0)
    return "-" if live == 0 else f"{100.0 * counts['suite'] / live:.1f}%"


def render(rows: list[Row], out: TextIO, *, pytest: bool) -> None:
    """The per-layer table (random, semantic, edge, edge2 and edge3 mutants
    apart), then every
    survivor and every mutant only pytest killed, by file and line."""
    header = (f"{'layer':<11} {'kind':<9} {'mutants':>7} {'suite':>6} {'pytest':>6} "
              f"{'survived':>8} {'equiv':>6} {'beyond':>6} {'suite score':>11} {'in reach':>8}")
    out.write(header + "\n" + "-" * len(header) + "\n")
    layers = list(dict.fromkeys(r["layer"] for r in rows))
    for layer in layers:
        for kind in ("random", "semantic", "edge", "edge2", "edge3"):
            mine = [r for r in rows if r["layer"] == layer and r["kind"] == kind]
            if not mine:
                continue
            c = _tally(mine)
            killed_pytest = str(c["pytest"]) if pytest else "n/a"
            out.write(f"{layer:<11} {kind:<9} {c['mutants']:>7} {c['suite']:>6} "
                      f"{killed_pytest:>6} {c['survived']:>8} {c['equivalent']:>6} "
                      f"{c['beyond']:>6} {_score(c):>11} {_score(c, reach=True):>8}\n")
    drawn = [r for r in rows if r["kind"] == "random"]
    if drawn:
        equivalent = sum(1 for r in drawn if r["verdict"] == "equivalent")
        out.write(f"\njudged equivalent: {equivalent} of the {len(drawn)} random mutants "
                  f"drawn ({100.0 * equivalent / len(drawn):.1f}%; a reviewed entry counts "
                  "only when its mutant is drawn)\n")
    out.write("\nsuite score: killed by the suite / (mutants - equivalent)\n"
              "in reach:    killed by the suite / (mutants - equivalent - beyond), beyond = "
              "reviewed beyond-protocol mutants the named pytest killed\n")
    for verdict, title in (("pytest", "killed only by pytest"), ("beyond", "beyond the "
                           "protocol (reviewed; killed by the named pytest)"),
                           ("survived", "survived")):
        chosen = [r for r in rows if r["verdict"] == verdict]
        if not chosen:
            continue
        out.write(f"\n{title} ({len(chosen)}):\n")
        for r in sorted(chosen, key=lambda r: (r["file"], r["line"])):
            out.write(f"  {r['file']}:{r['line']} [{r['op']}] {r['change']}\n"
                      f"      in {r['function']}: {r['source'][:90]}\n"
                      f"      key {r['key']}\n")
            if verdict == "pytest" and r["detail"]:
                out.write(f"      pytest: {r['detail'][0][:100]}\n")
            if verdict == "survived" and r["detail"]:
                out.write(f"      note: {r['detail'][0][:120]}\n")


def write_rows(rows: Iterable[Row], out: TextIO) -> None:
    for row in rows:
        out.write(json.dumps(row, sort_keys=True) + "\n")
