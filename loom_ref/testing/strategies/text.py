"""Strategies for texts and for the ways a stream can split them into deltas.

Rules (``spec/governance.md`` § guards.running-text; ADR 0119 decision 10):

- A delta form must see what the output form sees *however the text is split*. So a split is
  any sequence of deltas whose concatenation is the text: :func:`splits` draws arbitrary cuts
  (empty-free by default: ADR 0119 #3, "A text chunk carries non-empty delta"; with
  ``allow_empty`` empty deltas are mixed in), :func:`one_char_splits` cuts at every position,
  :func:`splits_around` puts a cut at a position inside a planted match (hypothesis explores
  every position; :func:`every_cut` lists them all for an exhaustive loop), and
  :func:`delta_splits` mixes them, shrinking towards the fewest cuts at the earliest position.
- Interesting texts are rare at random: :func:`planted_texts` plants a match (drawn from a
  strategy, e.g. ``st.from_regex(KEY, fullmatch=True)``) inside filler and remembers where, so
  a split can target it; :func:`texts_from_pieces` joins chosen fragments (card numbers,
  separators, emails ...) so that matches and near-misses meet.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.testing._deps import require_hypothesis

require_hypothesis()

from hypothesis import strategies as st  # noqa: E402

__all__ = [
    "PlantedText",
    "delta_splits",
    "every_cut",
    "one_char_splits",
    "planted_texts",
    "split_at",
    "splits",
    "splits_around",
    "texts_from_pieces",
]


@attrs.frozen(kw_only=True)
class PlantedText:
    """A text with a match planted at ``span`` (``[start, end)``)."""

    text: str
    span: tuple[int, int]

    @property
    def match(self) -> str:
        """The planted match."""
        return self.text[self.span[0] : self.span[1]]


def split_at(text: str, cuts: Sequence[int]) -> tuple[str, ...]:
    """``text`` cut at the given positions (sorted, deduplicated; 0 and ``len(text)`` are the
    ends). Cutting twice at one position yields no empty piece; see :func:`splits` for those."""
    points = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(points)) if text else ()


def one_char_splits(text: str) -> st.SearchStrategy[tuple[str, ...]]:
    """The split with one delta per character."""
    return st.just(tuple(text))


@st.composite
def splits(
    draw: st.DrawFn, text: str, *, max_cuts: int | None = None, allow_empty: bool = False
) -> tuple[str, ...]:
    """``text`` cut into deltas at arbitrary positions (no empty delta unless ``allow_empty``).

    The empty text has the empty split (a stream with no text delta).
    """
    cuts: set[int] = set()
    if len(text) > 1:
        limit = len(text) - 1 if max_cuts is None else min(max_cuts, len(text) - 1)
        cuts = draw(st.sets(st.integers(1, len(text) - 1), max_size=limit), label="cuts")
    pieces = list(split_at(text, sorted(cuts)))
    if allow_empty:
        empties = draw(st.lists(st.integers(0, len(pieces)), max_size=3), label="empty deltas")
        for at in sorted(empties, reverse=True):
            pieces.insert(at, "")
    return tuple(pieces)


@st.composite
def splits_around(
    draw: st.DrawFn, text: str, span: tuple[int, int], *, extra_cuts: int = 2
) -> tuple[str, ...]:
    """A split with a cut strictly inside ``span`` (any position of the match), plus up to
    ``extra_cuts`` other cuts anywhere. A match one character wide cannot be cut; then the
    cut lands just before it."""
    start, end = span
    if end - start >= 2:
        inside = draw(st.integers(start + 1, end - 1), label="cut inside the match")
    else:
        inside = start
    others: set[int] = set()
    if len(text) > 1 and extra_cuts:
        others = draw(st.sets(st.integers(1, len(text) - 1), max_size=extra_cuts), label="cuts")
    return split_at(text, [inside, *others])


def every_cut(text: str, span: tuple[int, int]) -> list[tuple[str, ...]]:
    """For each position strictly inside ``span``, the two-delta split cut there."""
    return [split_at(text, [p]) for p in range(span[0] + 1, span[1])]


def delta_splits(
    text: str,
    span: tuple[int, int] | None = None,
    *,
    max_cuts: int | None = 8,
    allow_empty: bool = False,
) -> st.SearchStrategy[tuple[str, ...]]:
    """Every kind of split of ``text``: arbitrary cuts (at most ``max_cuts``; ``None``: any
    number), one delta per character, the whole text as one delta, and (given the ``span`` of
    a planted match) a cut inside the match.

    The whole text and arbitrary cuts come first, so a failure shrinks towards the fewest,
    earliest cuts.
    """
    options: list[st.SearchStrategy[tuple[str, ...]]] = [
        st.just((text,) if text else ()),
        splits(text, max_cuts=max_cuts, allow_empty=allow_empty),
    ]
    if span is not None and span[1] > span[0]:
        options.append(splits_around(text, span))
    options.append(one_char_splits(text))
    return st.one_of(options)


@st.composite
def planted_texts(
    draw: st.DrawFn,
    matches: st.SearchStrategy[str],
    *,
    filler: st.SearchStrategy[str] | None = None,
) -> PlantedText:
    """``prefix + match + suffix``, with the match drawn from ``matches`` and the prefix and
    suffix from ``filler`` (default: short text over letters, digits, space and punctuation,
    which shrinks to the empty string)."""
    fill = filler if filler is not None else st.text(alphabet="abcxyz019 _-.:", max_size=12)
    prefix = draw(fill, label="prefix")
    match = draw(matches, label="match")
    suffix = draw(fill, label="suffix")
    return PlantedText(text=prefix + match + suffix, span=(len(prefix), len(prefix) + len(match)))


def texts_from_pieces(pieces: Sequence[str], *, max_pieces: int = 8) -> st.SearchStrategy[str]:
    """Texts made by joining up to ``max_pieces`` fragments chosen from ``pieces``."""
    if not pieces:
        raise InvalidArgument("texts_from_pieces needs at least one piece")
    return st.lists(st.sampled_from(list(pieces)), max_size=max_pieces).map("".join)
