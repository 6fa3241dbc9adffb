"""The kit's strategies generate what they promise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom_ref.conformance.case import Case
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.match import match
from loom_ref.effects import RetryMiddleware, backoff_delay
from loom_ref.errors import InvalidArgument
from loom_ref.schema import validate
from loom_ref.signals import Signal
from loom_ref.stream import (
    LlmRequest,
    Rule,
    ScriptedAdapter,
    ScriptedFailure,
    TextDelta,
    assemble,
    check,
)
from loom_ref.testing import (
    PlantedText,
    RetrySchedule,
    ViolatingStream,
    check_reconstruction,
    crash_points,
    delta_splits,
    every_cut,
    one_char_splits,
    planted_texts,
    retry_policies,
    retry_schedules,
    scenario_cases,
    split_at,
    splits,
    splits_around,
    valid_streams,
    violating_streams,
)

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
SCHEMAS = Path(__file__).resolve().parents[2] / "conformance" / "schemas"
TEXT = st.text(alphabet="ab c", max_size=20)


# ---- splits ---------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data(), text=TEXT)
def test_splits_join_to_the_text_and_are_empty_free(data: st.DataObject, text: str) -> None:
    for strategy in (splits(text), delta_splits(text), one_char_splits(text)):
        deltas = data.draw(strategy)
        assert "".join(deltas) == text
        assert all(deltas)  # ADR 0119 #3: a text chunk carries non-empty delta


@SETTINGS
@given(data=st.data(), text=TEXT)
def test_splits_with_empty_deltas(data: st.DataObject, text: str) -> None:
    deltas = data.draw(splits(text, allow_empty=True))
    assert "".join(deltas) == text
    assert len([d for d in deltas if d]) == len(split_at(text, _cuts(deltas)))


def _cuts(deltas: tuple[str, ...]) -> list[int]:
    out, at = [], 0
    for d in deltas:
        at += len(d)
        out.append(at)
    return out


@SETTINGS
@given(one_char_splits("abc"))
def test_one_char_splits_cut_everywhere(deltas: tuple[str, ...]) -> None:
    assert deltas == ("a", "b", "c")


def test_split_at_cuts_at_the_given_positions() -> None:
    assert split_at("abcd", [2, 2, 0, 4]) == ("ab", "cd")
    assert split_at("", [1]) == ()


@SETTINGS
@given(data=st.data())
def test_planted_texts_remember_the_match(data: st.DataObject) -> None:
    planted = data.draw(planted_texts(st.sampled_from(["KEY1", "XY"])))
    assert isinstance(planted, PlantedText)
    assert planted.match in ("KEY1", "XY")
    deltas = data.draw(splits_around(planted.text, planted.span))
    assert "".join(deltas) == planted.text
    ends = _cuts(deltas)[:-1]
    start, end = planted.span
    assert any(start < c < end for c in ends)  # one cut falls inside the match


def test_every_cut_lists_each_position_inside_the_match() -> None:
    got = every_cut("xKEYx", (1, 4))
    assert got == [("xK", "EYx"), ("xKE", "Yx")]


# ---- streams --------------------------------------------------------------------------------


@SETTINGS
@given(valid_streams())
def test_valid_streams_are_accepted_and_assemble_to_the_model(stream: Any) -> None:
    assert check(stream.chunks) == ()
    assembled = assemble(stream.chunks)
    assert tuple(assembled.message.content) == stream.blocks


@pytest.mark.parametrize("rule", list(Rule), ids=lambda r: r.value)
def test_each_violation_breaks_exactly_its_rule(rule: Rule) -> None:
    @SETTINGS
    @given(violating_streams(rule))
    def run(v: ViolatingStream) -> None:
        assert v.rule is rule
        assert [(x.rule, x.index) for x in check(v.chunks)] == [(rule, v.index)]
        assert check(v.base.chunks) == ()

    run()


# ---- retry schedules ------------------------------------------------------------------------


@SETTINGS
@given(retry_schedules(may_exhaust=True))
def test_retry_schedules_reconstruct_to_the_final_text(schedule: RetrySchedule) -> None:
    events = schedule.delta_events()
    resets = [e for e in events if e.get("reset")]
    assert [e["attempt"] for e in resets] == list(range(2, len(schedule.attempts) + 1))
    if schedule.succeeded:
        assert schedule.final_text is not None
        assert events[-1] == {"delta": "", "done": True}
        check_reconstruction(events, schedule.final_text, require_done=True)
    else:
        assert schedule.final_text is None
        check_reconstruction(events, "".join(schedule.attempts[-1].deltas))


@SETTINGS
@given(retry_schedules())
def test_retry_schedules_play_through_a_scripted_adapter(schedule: RetrySchedule) -> None:
    adapter = ScriptedAdapter(schedule.adapter_scripts())
    request = LlmRequest(model="m", messages=())
    for attempt in schedule.attempts:
        seen: list[str] = []
        stream = adapter.stream(request, Signal())
        if attempt.fails:
            with pytest.raises(ScriptedFailure):
                for chunk in stream:
                    if isinstance(chunk, TextDelta):
                        seen.append(chunk.text)
        else:
            chunks = list(stream)
            seen = [c.text for c in chunks if isinstance(c, TextDelta)]
            assert check(chunks) == ()
            assert assemble(chunks).message.content[0].text == schedule.final_text
        assert tuple(seen) == attempt.deltas


@SETTINGS
@given(retry_policies(), st.integers(1, 8))
def test_retry_policies_are_accepted_and_bounded(policy: dict[str, Any], attempt: int) -> None:
    middleware = RetryMiddleware(**policy)
    assert middleware.max_attempts == policy["max_attempts"]
    delay = backoff_delay(
        attempt,
        base_delay=policy["base_delay"],
        multiplier=policy["multiplier"],
        max_delay=policy["max_delay"],
        jitter=policy["jitter"],
        key=policy["seed"] + ":",
    )
    assert 0.0 <= delay <= policy["max_delay"] + 1e-6


# ---- crash points ---------------------------------------------------------------------------


@SETTINGS
@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), crash_points(n, torn=None))))
def test_crash_points_are_in_range(pair: tuple[int, dict[str, Any]]) -> None:
    events, point = pair
    assert 1 <= point["afterEvent"] <= events
    assert set(point) <= {"afterEvent", "torn"}
    assert point.get("torn", True) is True


def test_crash_points_refuse_no_events() -> None:
    with pytest.raises(InvalidArgument):
        crash_points(0)


# ---- scenarios ------------------------------------------------------------------------------


def _schemas() -> dict[str, Any]:
    return {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.json")}


@settings(SETTINGS, max_examples=40)
@given(scenario_cases())
def test_scenarios_are_valid_cases_and_the_kernel_agrees_with_the_model(
    case: dict[str, Any],
) -> None:
    docs = _schemas()
    assert validate(case, docs["case.json"], registry=docs) == []
    run = Case(data=case).to_run()  # what an implementation receives: no expect, no provenance
    assert validate(run, {"$ref": "defs.json#/$defs/scenarioRun"}, registry=docs) == []
    reply = LoomRefAdapter().run(json.loads(json.dumps(run)))
    assert "observations" in reply, reply
    assert match(case["expect"], reply["observations"]) == []


@settings(SETTINGS, max_examples=30)
@given(data=st.data(), case=scenario_cases())
def test_a_crash_at_any_point_then_recover_ends_where_the_run_would(
    data: st.DataObject, case: dict[str, Any]
) -> None:
    """Crash points on a generated program: crash the start after its k-th event, recover;
    the recovery reaches the start's outcome, or parks a non-idempotent step in doubt
    (spec: kernel.recover, kernel.in-doubt)."""
    first = case["expect"]["actions"][0]
    events = [e for e in first["trace"] if "event" in e]
    point = data.draw(crash_points(len(events)), label="crash")
    crashed = Case(data=case).to_run()
    crashed["actions"] = [{**case["actions"][0], "crash": point}, {"do": "recover"}]
    docs = _schemas()
    assert validate(crashed, {"$ref": "defs.json#/$defs/scenarioRun"}, registry=docs) == []
    reply = LoomRefAdapter().run(json.loads(json.dumps(crashed)))
    start, recover = reply["observations"]["actions"]
    assert start.get("crashed") is True
    outcome = recover["result"]
    if outcome["status"] == "in-doubt":
        assert "kernel.in-doubt" in recover["warnings"]
        assert events[point["afterEvent"] - 1]["event"]["kind"] == "STEP_STARTED"
    else:
        assert match(first["result"], outcome) == []
