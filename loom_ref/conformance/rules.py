"""The spec's own words for a rule: what a failure quotes, and what a report shows beside it.

Every case pins an anchor ``{#area.rule}`` written in ``spec/*.md``
(``conformance/INTERPRETING.md`` section 2). The *words* of a rule are the Markdown block
that holds its anchor: the list item (with its continuation lines, the *Why* included), the
paragraph, the table row or the heading, with every anchor taken out and the lines joined.
Nothing is paraphrased: a reader sees the sentence the implementation is held to, and the
file and anchor to open for the rest.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping

import attrs

from loom_ref.conformance.provenance import ANCHOR_RE, Provenance, classes, is_heading

__all__ = ["Rule", "spec_rules"]

# an anchor as lint defines it, with the space before it
_ANCHOR = re.compile(r"\s*" + ANCHOR_RE.pattern)
_PROVENANCES = frozenset(p.value for p in Provenance)
# an anchor shown as an example in inline code defines no rule
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s")
_FENCE = re.compile(r"^\s*(```|~~~)")


@attrs.frozen(kw_only=True)
class Rule:
    """One anchor: the chapter that defines it (``spec/journal.md``), its words, and where
    it comes from (the class beside the anchor, ``{#area.rule .seed}``; ``None`` for an
    anchor that names none, which lint reports for a rule)."""

    anchor: str
    file: str
    words: str
    provenance: Provenance | None = None

    @property
    def link(self) -> str:
        """``spec/journal.md#journal.checksum``."""
        return f"{self.file}#{self.anchor}"


def _blocks(lines: list[str]) -> Iterator[list[str]]:
    """Markdown blocks, roughly: list items, paragraphs, table rows, headings; code fences
    and blank lines separate them and are not blocks."""
    block: list[str] = []
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            if block:
                yield block
            block, fenced = [], not fenced
            continue
        if fenced:
            continue
        stripped = line.strip()
        starts = (not stripped or is_heading(line) or stripped.startswith("|")
                  or _ITEM.match(line)
                  is not None)
        if starts and block:
            yield block
            block = []
        if not stripped:
            continue
        if is_heading(line) or stripped.startswith("|"):
            yield [line]
            continue
        block.append(line)
    if block:
        yield block


def _words(block: list[str]) -> str:
    text = " ".join(line.strip() for line in block)
    text = _ANCHOR.sub("", text).strip()
    return re.sub(r"^(?:[-*+]|\d+[.)]|#+)\s+", "", text)


def spec_rules(spec_dir: str) -> Mapping[str, Rule]:
    """Every anchor of ``spec_dir/*.md`` with its words (the first definition wins)."""
    rules: dict[str, Rule] = {}
    if not os.path.isdir(spec_dir):
        return rules
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
            lines = f.read().splitlines()
        for block in _blocks(lines):
            found = [(m.group(1), classes(m.group(2)))
                     for m in ANCHOR_RE.finditer(_CODE_SPAN.sub("", " ".join(block)))]
            if not found:
                continue
            words = _words(block)
            for anchor, names in found:
                known = [Provenance(n) for n in names if n in _PROVENANCES]
                rules.setdefault(anchor, Rule(anchor=anchor, file=f"spec/{name}", words=words,
                                              provenance=known[0] if len(known) == 1 else None))
    return rules
