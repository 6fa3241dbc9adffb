"""The running byte count and the compaction decision functions (spec: agent.byte-count,
agent.canonical-json, agent.compaction-trigger, agent.kept-suffix-bytes,
agent.kept-suffix-messages, agent.compaction-skip)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.agent import (
    Transcript,
    compaction_plan,
    identity,
    kept_suffix_for_bytes,
    message_bytes,
)
from loom_ref.agent import transcript as transcript_module
from loom_ref.errors import InvalidArgument

TEXT = st.text(max_size=40)
MESSAGE = st.builds(lambda role, texts: {"role": role, "content": [
    {"type": "text", "text": t} for t in texts]}, st.sampled_from(["user", "assistant", "tool"]),
    st.lists(TEXT, max_size=3))


def canonical_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
               .encode("utf-8"))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), MESSAGE, st.integers(1, 5)), max_size=30))
def test_the_running_count_equals_the_serialised_size(ops: list[tuple[bool, Any, int]]) -> None:
    t = Transcript()
    for is_fold, message, count in ops:
        if is_fold and len(t) >= count:
            folded = t.fold(count, message)
            assert len(folded) == count
        else:
            t.push(message)
        assert t.bytes == sum(canonical_size(m) for m in t.messages)
        assert t.sizes == [message_bytes(m) for m in t.messages]


def test_a_push_measures_only_the_pushed_message(monkeypatch: pytest.MonkeyPatch) -> None:
    measured: list[Any] = []
    real = transcript_module.canonical_bytes  # type: ignore[attr-defined]

    def spy(value: Any) -> bytes:
        measured.append(value)
        return real(value)

    monkeypatch.setattr(transcript_module, "canonical_bytes", spy)
    t = Transcript()
    messages = [{"role": "user", "content": [{"type": "text", "text": str(i)}]}
                for i in range(500)]
    for m in messages:
        t.push(m)
    assert measured == messages  # never the list, never a message twice
    assert message_bytes({"é": 1}) == len('{"é":1}'.encode()) == 8


SIZES = st.lists(st.integers(0, 400), max_size=25)


@settings(max_examples=300, deadline=None)
@given(SIZES, st.integers(1, 2000), st.integers(1, 10))
def test_the_byte_rule_is_the_longest_fitting_suffix_floored_and_capped(
        sizes: list[int], after: int, keep_recent: int) -> None:
    keep = kept_suffix_for_bytes(sizes, after, keep_recent)
    if not sizes:
        assert keep == 0
        return
    assert 1 <= keep <= max(1, min(keep_recent, len(sizes)))
    suffix = sizes[len(sizes) - keep:]
    if keep > 1 or 2 * sum(suffix) <= after:
        assert 2 * sum(suffix) <= after  # it fits (unless it is the floor of 1)
    if keep < min(keep_recent, len(sizes)):  # longest: one more would not fit
        assert 2 * sum(sizes[len(sizes) - keep - 1:]) > after


@settings(max_examples=300, deadline=None)
@given(SIZES, st.one_of(st.none(), st.integers(2, 30)), st.one_of(st.none(),
                                                                  st.integers(1, 3000)),
       st.integers(1, 10))
def test_the_plan(sizes: list[int], after_messages: int | None, after_bytes: int | None,
                  keep_recent: int) -> None:
    if after_messages is not None:
        keep_recent = min(keep_recent, after_messages - 1)
    plan = compaction_plan(sizes, sum(sizes), after_messages=after_messages,
                           after_bytes=after_bytes, keep_recent=keep_recent)
    n = len(sizes)
    by_m = after_messages is not None and n > after_messages
    by_b = after_bytes is not None and sum(sizes) > after_bytes
    assert plan.keep + plan.fold == n
    if not (by_m or by_b):
        assert (plan.compact, plan.reason, plan.skipped) == (False, None, False)
        return
    assert plan.reason == ("bytes" if by_b else "messages")
    expected_keep = (kept_suffix_for_bytes(sizes, after_bytes, keep_recent) if by_b  # type: ignore[arg-type]
                     else min(keep_recent, n))
    if expected_keep >= n:
        assert plan.skipped and not plan.compact and plan.fold == 0
    else:
        assert plan.compact and plan.keep == expected_keep and plan.fold >= 1


def test_named_plans() -> None:
    # one message alone over the threshold: skipped (spec: agent.compaction-skip)
    assert compaction_plan([5000], 5000, after_messages=None, after_bytes=1000,
                           keep_recent=8).to_json() == {
        "compact": False, "reason": "bytes", "keep": 1, "fold": 0, "skipped": True}
    # an oversized newest message with older ones: keep the newest only
    plan = compaction_plan([10, 10, 5000], 5020, after_messages=100, after_bytes=1000,
                           keep_recent=8)
    assert (plan.compact, plan.keep, plan.fold) == (True, 1, 2)
    # messages crossed, bytes not: keep_recent
    plan = compaction_plan([1] * 7, 7, after_messages=6, after_bytes=10**6, keep_recent=3)
    assert (plan.reason, plan.keep, plan.fold) == ("messages", 3, 4)
    # both crossed: the byte rule wins (never longer than keep_recent)
    plan = compaction_plan([100] * 7, 700, after_messages=6, after_bytes=300, keep_recent=3)
    assert (plan.reason, plan.keep) == ("bytes", 1)


def test_ids() -> None:
    assert identity.turn_step_id(3) == "#turn:3"
    assert identity.tool_step_id(3, 1) == "#turn:3:tool:1"
    assert identity.compact_step_id(0) == "#turn:0:compact"
    assert identity.approval_gate_id("#turn:0:tool:2") == "#turn:0:tool:2:approval"
    assert identity.turn_decision_id(2, "route") == "#turn:2:route"


def test_a_lone_surrogate_has_no_canonical_bytes() -> None:
    """spec: agent.canonical-json -- UTF-8 cannot carry a lone surrogate: argument.invalid,
    not a UnicodeEncodeError; a surrogate pair's character is fine."""
    with pytest.raises(InvalidArgument):
        message_bytes({"role": "user", "content": [{"type": "text", "text": "a\ud800"}]})
    assert message_bytes("\U0001f600") == len('"\U0001f600"'.encode())


def test_a_push_returns_the_new_total() -> None:
    """Transcript.push returns the running total after the push (spec: agent.byte-count); no
    conformance function reads it (the loop pushes and reads ``bytes`` itself), so this is its
    only check (issue 30, branch s7a)."""
    t = Transcript()
    first = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    second = {"role": "assistant", "content": [{"type": "text", "text": "héllo"}]}
    assert t.push(first) == message_bytes(first) == t.bytes
    assert t.push(second) == message_bytes(first) + message_bytes(second) == t.bytes
    assert t.push({}) == t.bytes == message_bytes(first) + message_bytes(second) + 2
