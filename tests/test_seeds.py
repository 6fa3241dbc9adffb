"""The seed table (spec/README.md, Provenance): every sentence of the three seeds that states
behaviour, listed in conformance/seed-sentences.json with the rules that carry it; the
generated spec/SEEDS.md is current, every rule it names exists, and every sentence no case
pins says why."""

from __future__ import annotations

import json
import re
from pathlib import Path

from loom_ref.conformance.seeds import SeedSentence, load_sentences, problems, render
from loom_ref.conformance.trace import trace

REPO = Path(__file__).parents[1]
SENTENCES = REPO / "conformance" / "seed-sentences.json"


def test_the_seed_table_has_no_problems() -> None:
    assert problems(load_sentences(SENTENCES), trace(REPO)) == []


def test_the_generated_table_is_current() -> None:
    expected = render(load_sentences(SENTENCES), trace(REPO))
    assert (REPO / "spec" / "SEEDS.md").read_text() == expected, (
        "regenerate with: loom-ref conformance trace --write")


def test_every_part_of_every_seed_has_its_sentences() -> None:
    """ADR 0119 decisions 1-13 and its consequences, the dsh-llm contract bullets and type
    comments, ADR 0087 D1-D7 and its three amendments: each has at least one sentence."""
    sentences = load_sentences(SENTENCES)
    wheres = {(s.seed, s.where.split(" (")[0].split(",")[0]) for s in sentences}
    wanted = (
        [("ADR 0119", f"Decision {n}") for n in range(1, 14)]
        + [("ADR 0119", "Consequences")]
        + [("seed 001", w) for w in ("StreamChunk", "The adapter contract", "AppIdentity",
                                      "TokenUsage", "BlockAssembler", "The seam")]
        + [("ADR 0087", f"D{n}") for n in range(1, 8)]
        + [("ADR 0087", w) for w in ("Consequences", "Amendment 2026-09-27",
                                      "Amendment 2026-10-31")]
    )
    assert [w for w in wanted if w not in wheres] == []
    # the adapter contract's four bullets, by their bold heads
    contract = " ".join(s.text for s in sentences if s.where == "The adapter contract")
    for head in ("**`usage` before `finish`", "**Tool-call `arguments` stay raw JSON",
                 "**Two sanctioned error paths.**", "**Every provider HTTP request"):
        assert head in contract


def test_the_sentences_are_well_formed() -> None:
    data = json.loads(SENTENCES.read_text(encoding="utf-8"))
    for entry in data["sentences"]:
        assert set(entry) <= {"id", "seed", "where", "text", "rules", "reason"}, entry["id"]
        assert re.fullmatch(r"(0119|001|0087)\.[A-Za-z0-9.]+", entry["id"]), entry["id"]
        assert entry["id"].split(".")[0] == {"ADR 0119": "0119", "seed 001": "001",
                                             "ADR 0087": "0087"}[entry["seed"]]
        assert entry["where"].strip() and entry["text"].strip(), entry["id"]
        assert len(set(entry["rules"])) == len(entry["rules"]), entry["id"]


def test_the_check_can_fail() -> None:
    """An unknown rule, an unpinned sentence without a reason, a pinned one with a reason,
    an unknown seed and a repeated id are each reported (the check above is not vacuous)."""
    t = trace(REPO)
    pinned = next(row.anchor for row in t.rows if row.cases)
    unpinned = next(row.anchor for row in t.rows if not row.cases)

    def one(id: str, seed: str = "ADR 0119", rules: tuple[str, ...] = (),
            reason: str | None = None) -> SeedSentence:
        return SeedSentence(id=id, seed=seed, where="w", text="t", rules=rules, reason=reason)

    found = problems([one("a", rules=("nope.rule",), reason="r"), one("b", rules=(unpinned,)),
                      one("c", rules=(pinned,), reason="r"), one("d", seed="ADR 9999",
                                                                   reason="r"),
                      one("e", reason="r"), one("e", reason="r")], t)
    assert found == [
        "seed sentence a names nope.rule, which is not a rule of spec/",
        "seed sentence b is pinned by no case and says not why",
        "seed sentence c is pinned by cases but still gives a reason",
        "seed sentence d: unknown seed 'ADR 9999'",
        "seed sentence e is listed twice",
    ]


def test_the_table_tells_core_cases_from_loom_ref_ones() -> None:
    """A sentence whose rule is pinned only by cases of the loom-ref profile says "0 core"
    (the core verdict does not judge it); one with a core case counts it."""
    t = trace(REPO)
    weak = next(row for row in t.rows if row.cases and not row.core_cases)
    strong = next(row for row in t.rows if row.core_cases)
    table = render([SeedSentence(id="0119.x", seed="ADR 0119", where="w", text="weak",
                                 rules=(weak.anchor,)),
                    SeedSentence(id="0119.y", seed="ADR 0119", where="w", text="strong",
                                 rules=(strong.anchor,))], t)
    assert f"| {len(weak.cases)} case(s), 0 core: " in table
    assert f"| {len(strong.cases)} case(s), {len(strong.core_cases)} core: " in table
    assert "2 pinned by cases (1 of them by core cases, 1 by loom-ref-profile cases only)" in table
