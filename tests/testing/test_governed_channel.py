"""The kit against loom_ref's governed delta channel (ADR 0119 #3, #11, #12): a retried
streaming call delivers exactly the channel a retry schedule predicts, and a recording sink's
reconstruction equals the call's result."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from loom_ref.effects import EffectDelta, EffectRuntime, RetryMiddleware
from loom_ref.effects.clock import ManualClock
from loom_ref.effects.llm_effect import create_llm_effect
from loom_ref.stream import ScriptedAdapter
from loom_ref.testing import RecordingSink, RetrySchedule, check_reconstruction, retry_schedules


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(retry_schedules())
def test_a_retried_call_streams_the_predicted_channel(schedule: RetrySchedule) -> None:
    effect = create_llm_effect(
        ScriptedAdapter(schedule.adapter_scripts()), tool_id="model", model="m"
    )
    runtime = EffectRuntime(
        [effect],
        middleware=[RetryMiddleware(len(schedule.attempts), base_delay=0.0)],
        clock=ManualClock(),
    )
    sink = RecordingSink()
    message = runtime.invoke_transient("model", {"messages": []}, principal="p", on_delta=sink)
    result = "".join(b["text"] for b in message["content"] if b["type"] == "text")
    assert result == schedule.final_text
    assert all(isinstance(e, EffectDelta) for e in sink.events)  # records, tainted deltas
    assert [e.to_json() for e in sink.normalized] == schedule.delta_events()
    assert sink.check(result, require_done=True) == result


def test_effect_delta_records_and_their_json_form() -> None:
    events = [
        EffectDelta.text("Hel", "llm:model"),
        EffectDelta.restart(2, "llm:model"),
        EffectDelta.text("Hi", "llm:model"),
        EffectDelta.end("llm:model"),
    ]
    assert check_reconstruction(events, "Hi", require_done=True) == "Hi"
    assert check_reconstruction([e.to_json() for e in events], "Hi", require_done=True) == "Hi"
