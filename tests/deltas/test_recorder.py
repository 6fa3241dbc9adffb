"""The delta recorder (extension, spec: deltas.recorder): a tape of what the guarded channel did,
written beside the journal, that changes nothing any sink, effect or journal sees."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from loom_ref.effects import (
    STREAMING_DISABLED,
    DeltaRecorder,
    Effect,
    EffectRuntime,
    ManualClock,
    RetryMiddleware,
    TapeKind,
    safety_middleware,
)
from loom_ref.errors import InvalidArgument
from loom_ref.governance import pii_validator
from loom_ref.journal import MemoryStore
from loom_ref.kernel import ExecutionContext, Runtime, Workflow
from loom_ref.stream import TokenUsage

from .helpers import Sink, streaming

USAGE = TokenUsage(input_tokens=7, output_tokens=3)
CARD = [["card: 4111 1111 ", "1111 1111", " thanks"]]


def run(execute: Any, *, middleware: Any = (), recorder: DeltaRecorder | None = None,
        per_call: bool = True) -> tuple[Sink, Sink, list[str], Any]:
    """One transient call; the two sinks, the warnings and the result (or the error)."""
    configured, sink, warnings = Sink("configured"), Sink("per-call"), []
    rt = EffectRuntime([Effect(tool_id="llm", execute=execute, delta_sink=configured)],
                       clock=ManualClock(), middleware=middleware, on_warn=warnings.append,
                       recorder=recorder)
    try:
        result: Any = rt.invoke_transient("llm", None, principal="x1",
                                          on_delta=sink if per_call else None)
    except Exception as error:
        result = error
    return sink, configured, warnings, result


def kinds(recorder: DeltaRecorder) -> list[str]:
    return [r.kind.value for r in recorder.records]


SCENARIOS: list[tuple[str, Any, Any]] = [
    ("plain", streaming([["Hel", "lo"]], usage=USAGE), ()),
    ("severed", streaming(CARD), [safety_middleware([pii_validator()])]),
    ("held back", streaming(CARD), [safety_middleware([pii_validator()], hold_back=True)]),
    ("retried", streaming([["par", "tial"], ["fin", "al"]], fail_until=1),
     [RetryMiddleware(2, base_delay=0)]),
    ("refused", streaming([["Hel", "lo"]]), [safety_middleware([pii_validator(delta=False)])]),
]


@pytest.mark.parametrize(("name", "execute", "middleware"), SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_recording_changes_nothing_the_sinks_see(name: str, execute: Any,
                                                 middleware: Any) -> None:
    # spec: deltas.recorder -- "recording changes nothing a sink, an effect or the journal sees"
    bare = run(execute, middleware=middleware)
    recorder = DeltaRecorder()
    taped = run(execute, middleware=middleware, recorder=recorder)
    assert taped[0].seen == bare[0].seen and taped[1].seen == bare[1].seen
    assert taped[2] == bare[2]
    assert repr(taped[3]) == repr(bare[3])
    # and the tape's deliveries are exactly what each sink received, in order
    for sink in (taped[0], taped[1]):
        delivered = [r.data["chunk"] for r in recorder.records
                     if r.kind is TapeKind.DELIVER and r.data["sink"] == sink.name]
        assert delivered == [{k: v for k, v in c.items() if k != "origin"} for c in sink.seen]


def test_the_tape_of_a_plain_stream() -> None:
    recorder = DeltaRecorder(position=lambda: "here")
    run(streaming([["Hel", "lo"]], usage=USAGE), recorder=recorder)
    assert kinds(recorder) == ["open", "attempt", "write", "deliver", "deliver", "write",
                               "deliver", "deliver", "end", "deliver", "settle"]
    opened, settled = recorder.records[0].data, recorder.records[-1].data
    assert opened == {"toolId": "llm", "mode": "transient", "executionId": None,
                      "stepId": None, "perCall": True, "configured": True, "where": "here"}
    assert settled == {"outcome": "succeeded", "where": "here"}
    # per-call first, then configured; the terminal chunk to the per-call sink only, with usage
    delivers = [(r.data["sink"], r.data["chunk"]) for r in recorder.records
                if r.kind is TapeKind.DELIVER]
    assert delivers == [("per-call", {"delta": "Hel"}), ("configured", {"delta": "Hel"}),
                        ("per-call", {"delta": "lo"}), ("configured", {"delta": "lo"}),
                        ("per-call", {"delta": "", "done": True,
                                      "usage": {"inputTokens": 7, "outputTokens": 3}})]
    assert recorder.records[8].data == {"verdict": "held",
                                        "usage": {"inputTokens": 7, "outputTokens": 3}}
    assert [r.index for r in recorder.records] == list(range(11))
    assert {r.call for r in recorder.records} == {1}


def test_a_sever_is_taped_with_the_window_the_guard_checked() -> None:
    # spec: deltas.recorder, deltas.guard-before-delivery
    recorder = DeltaRecorder()
    *_, error = run(streaming(CARD), middleware=[safety_middleware([pii_validator()])],
                    recorder=recorder)
    assert getattr(error, "code", None) == "governance.delta-severed"
    writes = [r.data for r in recorder.records if r.kind is TapeKind.WRITE]
    assert writes == [
        {"text": "card: 4111 1111 ", "verdict": "checked", "window": "card: 4111 1111 ",
         "windowSize": 4096},
        {"text": "1111 1111", "verdict": "checked", "window": "card: 4111 1111 1111 1111",
         "windowSize": 4096}]
    sever = next(r.data for r in recorder.records if r.kind is TapeKind.SEVER)
    assert sever["error"]["code"] == "governance.delta-severed"
    assert sever["error"]["details"]["span"] == [6, 25]  # the match, in the attempt's text
    assert sever["dropped"] == ""
    assert recorder.records[-1].data["outcome"] == "failed"
    assert recorder.records[-1].data["error"]["code"] == "governance.delta-severed"


def test_hold_back_is_taped_as_what_stays_held() -> None:
    recorder = DeltaRecorder()
    run(streaming(CARD), middleware=[safety_middleware([pii_validator()], hold_back=True)],
        recorder=recorder)
    held = [r.data["held"] for r in recorder.records if r.kind is TapeKind.HOLD]
    assert held and held[0].endswith("4111 1111 ")
    sever = next(r.data for r in recorder.records if r.kind is TapeKind.SEVER)
    assert "4111" in sever["dropped"]  # dropped with the sever, never delivered
    delivered = "".join(r.data["chunk"]["delta"] for r in recorder.records
                        if r.kind is TapeKind.DELIVER)
    assert "4111" not in delivered


def test_a_retry_is_taped_as_a_new_attempt_after_its_reset() -> None:
    recorder = DeltaRecorder()
    run(streaming([["par", "tial"], ["fin", "al"]], fail_until=1),
        middleware=[RetryMiddleware(2, base_delay=0)], recorder=recorder)
    attempts = [r.index for r in recorder.records if r.kind is TapeKind.ATTEMPT]
    assert len(attempts) == 2
    after = recorder.records[attempts[1] + 1]
    assert after.kind is TapeKind.DELIVER and after.attempt == 2
    assert after.data["chunk"] == {"delta": "", "reset": True, "attempt": 2}


def test_a_refused_stream_is_taped_with_its_warning_and_what_the_effect_wrote() -> None:
    # spec: deltas.recorder, deltas.fail-closed
    recorder = DeltaRecorder()
    sink, configured, warnings, result = run(
        streaming([["Hel", "lo"]]), middleware=[safety_middleware([pii_validator(delta=False)])],
        recorder=recorder)
    assert result == "Hello" and warnings == [STREAMING_DISABLED]
    assert sink.chunks == [] and configured.chunks == []
    assert kinds(recorder) == ["open", "refused", "attempt", "write", "write", "end", "settle"]
    assert recorder.records[1].data["warning"] == STREAMING_DISABLED
    assert [r.data["verdict"] for r in recorder.records[3:6]] == ["refused"] * 3


def test_a_durable_step_is_taped_with_its_step_and_never_journaled() -> None:
    # spec: deltas.recorder, deltas.live-only -- the tape is beside the journal, never in it
    recorder = DeltaRecorder()
    store = MemoryStore()
    effects = EffectRuntime([Effect(tool_id="llm", execute=streaming([["Hel", "lo"]]),
                                    delta_sink=Sink())], recorder=recorder)

    def body(ctx: ExecutionContext, _: Any) -> Generator[Any, Any, Any]:
        return (yield ctx.execute("llm", {}))

    rt = Runtime(store=store, effects=effects, workflows=[Workflow(name="w", body=body)])
    rt.start("w", None, execution_id="e1")
    opened = recorder.records[0].data
    assert opened["mode"] == "durable" and opened["stepId"] and opened["executionId"] == "e1"
    journal = repr([e.payload for e in store.read("e1").events])
    assert "deliver" not in journal and "Hel\"" not in journal.replace("Hello", "")
    taped = len(recorder.records)
    rt.replay("e1")  # a replay runs no effect: nothing more on the tape
    assert len(recorder.records) == taped


def test_the_recorder_is_checked() -> None:
    with pytest.raises(InvalidArgument):
        DeltaRecorder(position=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        EffectRuntime([], recorder=object())  # type: ignore[arg-type]
    recorder = DeltaRecorder()
    run(streaming([["a"]]), recorder=recorder)
    assert recorder.to_json()[0]["kind"] == "open"
    assert repr(recorder) == "DeltaRecorder(1 calls, 8 records)"
