"""The Python API's small observables: reprs say what they hold (a debugger's view; the
protocol cannot see them, so tools/coverage/python-only.toml names this file for them)."""

from __future__ import annotations

from loom_ref.effects import NEVER, SILENT, KillSwitch, ManualClock


def test_manual_clock_repr_shows_its_time() -> None:
    clock = ManualClock()
    clock.advance(2.5)
    assert repr(clock) == f"ManualClock(now={clock.now()!r})"
    assert "2.5" in repr(clock)


def test_silent_and_never_are_named() -> None:
    assert repr(SILENT) == "SILENT"
    assert repr(NEVER) == "NEVER"


def test_kill_switch_repr_shows_what_is_engaged() -> None:
    switch = KillSwitch()
    assert repr(switch) == "KillSwitch(global=None, tools={})"
    switch.kill("outage", tool_id="pay")
    assert "'pay': 'outage'" in repr(switch)


def test_check_registration_hands_the_effect_back() -> None:
    """``check_registration`` returns the effect it admitted (the runtimes call it for its
    refusals alone; a Python caller may chain on the value)."""
    from loom_ref.effects import Effect
    from loom_ref.effects.effect import check_registration

    effect = Effect(tool_id="echo", execute=lambda ctx, input: input)
    assert check_registration(effect, {}) is effect
