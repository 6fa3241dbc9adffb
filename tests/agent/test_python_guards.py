"""The agent layer's checks that only a Python caller can trip (spec: errors.invalid-argument).

Each check refuses a value no JSON input of a conformance function can carry (a callable, a
Python object standing for a store, ``bytes`` against ``str``, a non-sequence where the
vector functions already refuse anything but a list), so the conformance suite cannot pin
it; these tests do, each on the refusal's stable ``code`` (``argument.invalid``), never on
its message. They are named by the Python-only regions of
``tools/coverage/python-only.toml`` that hold those lines (issue 30).
"""

from __future__ import annotations

from typing import Any

import pytest

from loom_ref.agent import (
    AgentLoopConfig,
    ListMemory,
    MemoryContentStore,
    claim_check_envelope,
    claim_check_middleware,
    kept_suffix_for_bytes,
    recall,
    resolve_claim_check,
)
from loom_ref.errors import InvalidArgument

ANY: Any = None  # a value of the wrong kind, typed loosely for the checks below


def refused(call: Any) -> str:
    """The code of the InvalidArgument that ``call()`` raises (any other outcome fails)."""
    with pytest.raises(InvalidArgument) as info:
        call()
    return info.value.code


def test_recall_refuses_a_decide_that_is_not_callable_before_yielding() -> None:
    gen = recall(decide=ANY, memory=ListMemory(["a"]), query="a", recall_limit=1)
    assert refused(lambda: next(gen)) == "argument.invalid"


def test_the_memory_store_stores_bytes_only() -> None:
    store = MemoryContentStore()
    assert refused(lambda: store.put("text, not bytes")) == "argument.invalid"  # type: ignore[arg-type]
    assert store.blobs == {}


def test_resolving_needs_a_content_store() -> None:
    store = MemoryContentStore()
    envelope = claim_check_envelope({"a": 1}, store)
    assert resolve_claim_check(store, envelope) == {"a": 1}
    assert refused(lambda: resolve_claim_check(ANY, envelope)) == "argument.invalid"


def test_the_middleware_check_takes_a_string_tool_id() -> None:
    middleware = claim_check_middleware(MemoryContentStore(), ["t"])
    assert middleware.check("other", 1) == 1  # a tool not opted in: unchanged
    assert refused(lambda: middleware.check(ANY, 1)) == "argument.invalid"


def test_kept_suffix_for_bytes_takes_a_sequence_of_sizes() -> None:
    assert kept_suffix_for_bytes((3, 1), 4, 8) == 1
    assert refused(lambda: kept_suffix_for_bytes(ANY, 4, 8)) == "argument.invalid"
    assert refused(lambda: kept_suffix_for_bytes(5, 4, 8)) == "argument.invalid"  # type: ignore[arg-type]


def test_the_approval_gate_namer_must_be_callable() -> None:
    assert AgentLoopConfig(model_tool_id="llm").approval_gate("#turn:0:tool:0") == (
        "#turn:0:tool:0:approval")
    assert refused(lambda: AgentLoopConfig(model_tool_id="llm", approval_gate=ANY)) == (
        "argument.invalid")


@pytest.mark.parametrize("keep_recent", [0, -1, True, 1.0])
def test_compaction_plan_refuses_a_keep_recent_a_python_caller_gives(keep_recent: Any) -> None:
    # spec: errors.invalid-argument -- a Compaction refuses these first on every protocol
    # path; compaction_plan, public, checks its own argument too
    from loom_ref.agent.compaction import compaction_plan

    with pytest.raises(InvalidArgument) as info:
        compaction_plan([1, 1, 1], 3, after_messages=2, after_bytes=None, keep_recent=keep_recent)
    assert info.value.code == "argument.invalid"


def test_claim_check_middleware_refuses_a_digest_that_is_not_callable() -> None:
    # spec: errors.invalid-argument -- digests map tool ids to callables
    with pytest.raises(InvalidArgument) as info:
        claim_check_middleware(MemoryContentStore(), ["t"], digests={"t": "preview"})
    assert info.value.code == "argument.invalid"


def test_a_plain_callable_summarizer_must_return_a_string() -> None:
    # the text -> str form of create_summarizer_effect: anything else is refused in the call
    from loom_ref.agent import create_summarizer_effect
    from loom_ref.effects import EffectRuntime

    effect = create_summarizer_effect(lambda text: {"summary": text}, tool_id="summarize")
    runtime = EffectRuntime([effect])
    with pytest.raises(InvalidArgument) as info:
        runtime.invoke_transient("summarize", {"messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]}]}, principal="p")
    assert info.value.code == "argument.invalid"


def test_recall_refuses_a_bad_limit_before_yielding() -> None:
    # issue 30 (sample 713662): recall() checks its own recall_limit before it yields the
    # decision; the protocol's limit comes from a Recall record, whose validator refused it
    def decide(*_args: Any, **_kwargs: Any) -> str:
        return "the decision"

    for bad in (0, -1, True, 1.5):
        gen = recall(decide=decide, memory=ListMemory(["a"]), query="a", recall_limit=bad)
        assert refused(lambda gen=gen: next(gen)) == "argument.invalid"


def test_render_transcript_vector_refuses_messages_that_are_not_a_list() -> None:
    # the vector function reads a JSON array; a Python caller's tuple is not one (render_transcript
    # itself would take a tuple), and every other non-list is refused with the same code
    from loom_ref.agent.vectors_model import render_transcript_vector

    user = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
    for value in ((user,), (), {"0": user}, "Hi", 5, None):
        with pytest.raises(InvalidArgument) as caught:
            render_transcript_vector({"messages": value})
        assert caught.value.code == "argument.invalid"
    assert "Hi" in render_transcript_vector({"messages": [user]})["text"]
