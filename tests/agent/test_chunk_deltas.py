"""chunk_deltas (spec: agent.chunk-boundary, agent.chunk-min-chars, agent.chunk-flush; ADR
0087 D7 Verification: "chunkDeltas boundary, minChars and flush behaviour")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.agent import chunk_deltas
from loom_ref.errors import InvalidArgument


def run(deltas: list[str], min_chars: int) -> tuple[list[str], list[str]]:
    """(batches before the flush, batches including it)."""
    out: list[str] = []
    chunker = chunk_deltas(out.append, min_chars=min_chars)
    for d in deltas:
        chunker(d)  # the chunker is itself a sink
    before = list(out)
    chunker.flush()
    return before, out


def test_batches_at_a_sentence_boundary_once_min_chars_is_reached() -> None:
    tokens = ["Hel", "lo", " wor", "ld.", " How", " are", " you?", " Fine", "."]
    before, out = run(tokens, 10)
    assert before == ["Hello world. ", "How are you? "]
    assert out == before + ["Fine."]


def test_min_chars_holds_short_sentences_together() -> None:
    _, out = run(["Hi. ", "Yes. ", "No. ", "A longer sentence here. ", "x"], 12)
    assert out == ["Hi. Yes. No. ", "A longer sentence here. ", "x"]


def test_a_full_stop_without_whitespace_is_not_a_boundary() -> None:
    _, out = run(["pi is 3", ".14159 and e is 2", ".71828 ok"], 1)
    assert out == ["pi is 3.14159 and e is 2.71828 ok"]


def test_newlines_closers_and_other_punctuation() -> None:
    _, out = run(['He said "stop!" then', " left\nNext line? ", "yes"], 1)
    assert out == ['He said "stop!" ', "then left\nNext line? ", "yes"]
    _, out = run(["第一句。第二句", "。 end"], 1)
    assert out == ["第一句。第二句。 ", "end"]


def test_flush_emits_nothing_when_empty_and_the_chunker_is_reusable() -> None:
    out: list[str] = []
    chunker = chunk_deltas(out.append, min_chars=5)
    chunker.flush()
    assert out == []
    chunker.push("")
    chunker.push("One more.")
    assert chunker.pending == "One more."
    chunker.flush()
    chunker.push("Again. and")
    chunker.flush()
    assert out == ["One more.", "Again. ", "and"]


def test_one_delta_with_several_boundaries_is_one_batch_up_to_the_last() -> None:
    before, _ = run(["A. B. C. tail"], 2)
    assert before == ["A. B. C. "]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        chunk_deltas(print, min_chars=0)
    with pytest.raises(InvalidArgument):
        chunk_deltas("not callable", min_chars=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        chunk_deltas(print).push(b"bytes")  # type: ignore[arg-type]


BOUNDARY_END = re.compile(r"([.!?。！？][\"'”’)\]]{0,3}\s|\n)$")
ALPHABET = st.sampled_from(list("ab .!?\n\"')x"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=12), max_size=30), st.integers(1, 30))
def test_batches_are_lossless_bounded_and_cut_only_at_boundaries(deltas: list[str],
                                                                  min_chars: int) -> None:
    before, out = run(deltas, min_chars)
    assert "".join(out) == "".join(deltas)  # spec: agent.chunk-flush -- lossless
    for batch in before:  # every batch before the flush: >= min_chars, ends at a boundary
        assert len(batch) >= min_chars
        assert BOUNDARY_END.search(batch), batch
    assert all(out)  # never an empty batch
