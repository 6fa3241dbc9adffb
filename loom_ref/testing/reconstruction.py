"""What a sink sees: recording the delta channel, and checking that its reconstruction after
resets equals the final result.

Rules (ADR 0119 decisions 3, 6, 9 and 11; ``spec/governance.md`` § guards.reset):

- A delta event is an ``EffectDelta`` record, read by duck type (``.delta``, a ``str`` or a
  tainted ``str``; optional ``.reset``, ``.done``, ``.attempt``, ``.usage``), or its JSON form
  ``{"delta": str, "origin"?: str, "reset"?: true, "done"?: true, "attempt"?: n, "usage"?:
  {...}}`` (``loom_ref.effects.EffectDelta.to_json()``). A tainted delta is unwrapped here,
  at the test's audit point (ADR 0119 #9: "A UI tail unwraps explicitly").
- "A text chunk carries non-empty delta; a reset chunk (reset: true, attempt: n, empty delta)
  precedes attempt n > 1; the terminal chunk is { delta: "", done: true, usage? }" (#3). So a
  text event's delta is non-empty, a reset's and the terminal's are empty, an event is not
  both, nothing follows the terminal event, and the attempt numbers given on resets count
  2, 3, ... in order.
- "A consumer clears and re-renders; the reconstruction equals the recorded decision" (#11):
  the reconstruction is the text since the last reset, and it must equal the final result.
- The terminal event is optional unless required: a configured sink never receives it
  (ADR 0119 #12: text and reset chunks, "never the terminal one").

Nothing here needs hypothesis or pytest: a failure is an ``AssertionError`` whose message
shows the events, the reconstruction, the final text and where they first differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.governance import is_tainted, unwrap_tainted

__all__ = ["DeltaEvent", "RecordingSink", "check_reconstruction", "normalize", "reconstruct"]

_JSON_KEYS = frozenset({"delta", "origin", "reset", "done", "attempt", "usage"})


@attrs.frozen(kw_only=True)
class DeltaEvent:
    """One delta event, normalized: the unwrapped text and the flags."""

    delta: str
    reset: bool = False
    done: bool = False
    attempt: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (flags only when set)."""
        out: dict[str, Any] = {"delta": self.delta}
        if self.reset:
            out["reset"] = True
        if self.done:
            out["done"] = True
        if self.attempt is not None:
            out["attempt"] = self.attempt
        return out


def _fail(position: int, event: object, why: str) -> AssertionError:
    return AssertionError(f"delta event {position} ({event!r}) is malformed: {why}")


def _text(position: int, event: object, delta: object) -> str:
    if is_tainted(delta):
        delta = unwrap_tainted(delta)  # the audit point: a test reading what a UI would show
    if not isinstance(delta, str):
        raise _fail(position, event, f"delta must be a str or a tainted str, got {delta!r}")
    return delta


def _flag(position: int, event: object, name: str, value: object) -> bool:
    if value is None or value is False:
        return False
    if value is True:
        return True
    raise _fail(position, event, f"{name} must be true when present, got {value!r}")


def _one(position: int, event: object) -> DeltaEvent:
    if isinstance(event, Mapping):
        extra = set(event) - _JSON_KEYS
        if extra:
            raise _fail(position, event, f"unknown keys {sorted(extra)}")
        if "delta" not in event:
            raise _fail(position, event, "it has no 'delta'")
        get: Any = event.get
    elif hasattr(event, "delta"):
        get = lambda name: getattr(event, name, None)  # noqa: E731
    else:
        raise _fail(position, event, "expected an EffectDelta-like record or its JSON form")
    attempt = get("attempt")
    if attempt is not None and (isinstance(attempt, bool) or not isinstance(attempt, int)):
        raise _fail(position, event, f"attempt must be an int, got {attempt!r}")
    return DeltaEvent(
        delta=_text(position, event, get("delta")),
        reset=_flag(position, event, "reset", get("reset")),
        done=_flag(position, event, "done", get("done")),
        attempt=attempt,
    )


def normalize(events: Iterable[object]) -> list[DeltaEvent]:
    """The events as :class:`DeltaEvent` records, each checked on its own and in sequence
    (see the module rules); ``AssertionError`` names the first bad one."""
    out: list[DeltaEvent] = []
    attempt = 1
    for position, raw in enumerate(events):
        event = _one(position, raw)
        if out and out[-1].done:
            raise _fail(position, raw, "it follows the terminal (done) event")
        if event.reset and event.done:
            raise _fail(position, raw, "an event is not both a reset and the terminal event")
        if (event.reset or event.done) and event.delta:
            raise _fail(position, raw, "a reset or terminal event carries an empty delta")
        if not (event.reset or event.done) and not event.delta:
            raise _fail(position, raw, "a text event carries a non-empty delta (ADR 0119 #3)")
        if event.reset:
            attempt += 1
            if event.attempt is not None and event.attempt != attempt:
                raise _fail(
                    position, raw, f"this reset starts attempt {attempt}, not {event.attempt}"
                )
        out.append(event)
    return out


def reconstruct(events: Iterable[object]) -> str:
    """The text a consumer shows after ``events``: what arrived since the last reset."""
    return _reconstruct(normalize(events))


def _reconstruct(events: Sequence[DeltaEvent]) -> str:
    pieces: list[str] = []
    for event in events:
        if event.reset:
            pieces.clear()
        elif not event.done:
            pieces.append(event.delta)
    return "".join(pieces)


def _show(events: Sequence[DeltaEvent], limit: int = 40) -> str:
    lines = [f"  [{i}] {e.to_json()!r}" for i, e in enumerate(events[:limit])]
    if len(events) > limit:
        lines.append(f"  ... and {len(events) - limit} more")
    return "\n".join(lines) if lines else "  (none)"


def check_reconstruction(
    events: Iterable[object], final_text: str, *, require_done: bool = False
) -> str:
    """Assert that ``events`` are a well-formed delta channel whose reconstruction after
    resets equals ``final_text`` (ADR 0119 #11); return the reconstruction.

    With ``require_done`` the channel must end with the terminal event (a per-call sink of a
    call that succeeded).
    """
    if not isinstance(final_text, str):
        raise InvalidArgument(f"final_text must be a str, got {type(final_text).__name__}")
    normalized = normalize(events)
    text = _reconstruct(normalized)
    problems: list[str] = []
    if require_done and not (normalized and normalized[-1].done):
        problems.append("the channel does not end with the terminal (done) event")
    if text != final_text:
        at = next(
            (i for i, (a, b) in enumerate(zip(text, final_text, strict=False)) if a != b),
            min(len(text), len(final_text)),
        )
        problems.append(
            f"the reconstruction differs from the final text at character {at}:\n"
            f"  reconstruction: {text!r}\n"
            f"  final text:     {final_text!r}"
        )
    if problems:
        resets = sum(e.reset for e in normalized)
        raise AssertionError(
            "delta channel does not reconstruct the final result ("
            f"{len(normalized)} events, {resets} resets):\n"
            + "\n".join(problems)
            + "\nevents:\n"
            + _show(normalized)
        )
    return text


class RecordingSink:
    """A delta sink that records every event it is handed, for tests.

    Call it as the sink (``on_delta=sink``); :attr:`events` holds what it received, as given;
    :attr:`text` is the reconstruction; :meth:`check` asserts the reconstruction equals the
    final result. ``fail_on`` (optional) makes the sink raise on the n-th event (0-based), to
    test that a sink's throw cannot hurt the call (ADR 0119 #6).
    """

    def __init__(self, *, fail_on: int | None = None) -> None:
        self.events: list[object] = []
        self.fail_on = fail_on

    def __call__(self, event: object) -> None:
        self.events.append(event)
        if self.fail_on is not None and len(self.events) - 1 == self.fail_on:
            raise RuntimeError(f"recording sink told to fail on event {self.fail_on}")

    @property
    def normalized(self) -> list[DeltaEvent]:
        """The recorded events, normalized (and checked)."""
        return normalize(self.events)

    @property
    def text(self) -> str:
        """The reconstruction: the text since the last reset."""
        return reconstruct(self.events)

    @property
    def resets(self) -> int:
        """How many reset events arrived."""
        return sum(e.reset for e in self.normalized)

    @property
    def done(self) -> bool:
        """Whether the terminal event arrived."""
        events = self.normalized
        return bool(events) and events[-1].done

    @property
    def deltas(self) -> list[str]:
        """The text deltas received, across all attempts."""
        return [e.delta for e in self.normalized if not (e.reset or e.done)]

    def check(self, final_text: str, *, require_done: bool = False) -> str:
        """:func:`check_reconstruction` over the recorded events."""
        return check_reconstruction(self.events, final_text, require_done=require_done)

    def clear(self) -> None:
        """Forget what was recorded."""
        self.events.clear()
