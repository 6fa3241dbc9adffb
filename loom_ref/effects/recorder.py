"""The delta recorder: an opt-in tape of what the guarded channel did (**extension**).

Spec: ``spec/deltas.md`` §3a.11 (``deltas.recorder``). Deltas are live-only (ADR 0119 #5:
"Deltas are never journaled and are not called on replay"), so a journal cannot show a
stream. A caller that wants its streams pictured (``loom-ref demo --html`` does) hands the
runtime a :class:`DeltaRecorder` (``EffectRuntime(..., recorder=...)``); the runtime then
writes, beside the journal and never into it, one tape of every streamed call:

- ``open``: a call got a channel: ``toolId``, ``mode``, ``executionId``, ``stepId``, which
  sinks it had (``perCall``, ``configured``) and ``where`` (the caller's ``position()``);
- ``refused``: the call's streaming was refused (``deltas.fail-closed``), with the warning;
- ``attempt``: attempt n began (for n > 1 the reset chunks follow as ``deliver`` records);
- ``write``: the effect wrote a text delta: ``text``, ``verdict`` (``checked`` -- the guards
  are about to see it --, ``late`` after the call settled or its signal aborted,
  ``after-sever``, ``refused``) and ``window``: the running text the first guard that keeps
  one checked (its window before the delta, then the delta: ADR 0119 #10's "RUNNING text"),
  with that guard's ``windowSize``;
- ``sever``: a guard severed the attempt before delivery: the ``error`` and the held text
  ``dropped`` with it (hold-back);
- ``hold``: after a write, the text the channel still holds back (hold-back, extension);
- ``deliver``: a chunk handed to a sink (``per-call`` or ``configured``), in JSON form
  (``deltas.json``); ``raised`` when the sink threw (``deltas.sink-isolated``);
- ``end``: the effect's own end-of-stream chunk, held with its ``usage`` (``deltas.terminal``);
- ``settle``: the call settled, ``succeeded`` or ``failed`` (with the ``error``), ``where``.

Rules: recording changes nothing a sink, an effect or the journal sees (with no recorder the
channel does exactly what it did; with one, every chunk is delivered the same); the tape
holds text a sink never received (a severed delta, text held back, a refused stream), which
is why it is opt-in and meant for teaching and debugging, never for a user's screen; the
recorder writes nothing to the journal, and a replay, which runs no effect, records nothing.
A call with no sink and no guard has no channel (``effects.lean-route``) and is not taped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.effects.deltas import SILENT, EffectDelta, delta_to_json
from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.stream.usage import TokenUsage
from loom_ref.stream.wire import usage_to_json

if TYPE_CHECKING:
    from loom_ref.effects.call import EffectCall

__all__ = ["CallTape", "DeltaRecorder", "RecordingSilent", "TapeKind", "TapeRecord",
           "error_record"]


class TapeKind(LoomEnum):
    """What one record of the tape says happened (spec: deltas.recorder; see the module
    docstring)."""

    OPEN = "open"
    REFUSED = "refused"
    ATTEMPT = "attempt"
    WRITE = "write"
    SEVER = "sever"
    HOLD = "hold"
    DELIVER = "deliver"
    END = "end"
    SETTLE = "settle"


@attrs.frozen(kw_only=True)
class TapeRecord:
    """One thing the channel did: ``index`` on the tape (from 0), the ``call`` it belongs to
    (from 1), the ``attempt`` running then (0 before the first), and the kind's ``data``
    (JSON values only). spec: deltas.recorder"""

    index: int
    call: int
    kind: TapeKind
    attempt: int
    data: Mapping[str, Any] = attrs.field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"index", "call", "kind", "attempt", **data}``."""
        return {"index": self.index, "call": self.call, "kind": self.kind.value,
                "attempt": self.attempt, **self.data}


def error_record(error: BaseException) -> dict[str, Any]:
    """An error as JSON: a loom error's ``to_json()`` and its ``details``, else
    ``{"code": None, "message": "<Type>: <message>"}``."""
    if isinstance(error, LoomError):
        out = error.to_json()
        if error.details:  # JSON values (spec: errors.details-json)
            out["details"] = dict(error.details)
        return out
    return {"code": None, "message": f"{type(error).__name__}: {error}"}


def _chunk_json(chunk: EffectDelta) -> dict[str, Any]:
    """A delivered chunk as the tape keeps it: its JSON form (spec: deltas.json) without the
    origin, which the call's open record names (llm:<its toolId>)."""
    out = delta_to_json(chunk)
    del out["origin"]
    return out


class CallTape:
    """The recorder's handle on one call; the channel and the runtime write through it."""

    __slots__ = ("attempt", "number", "recorder")

    def __init__(self, recorder: DeltaRecorder, number: int) -> None:
        self.recorder = recorder
        self.number = number
        self.attempt = 0

    def _add(self, kind: TapeKind, data: dict[str, Any]) -> None:
        tape = self.recorder.records
        tape.append(TapeRecord(index=len(tape), call=self.number, kind=kind,
                               attempt=self.attempt, data=data))

    def refused(self, warning: str, by: list[str]) -> None:
        """Streaming was refused for this call (spec: deltas.fail-closed)."""
        self._add(TapeKind.REFUSED, {"warning": warning, "by": by})

    def begin(self, attempt: int) -> None:
        """Attempt ``attempt`` began (spec: deltas.reset)."""
        self.attempt = attempt
        self._add(TapeKind.ATTEMPT, {})

    def write(self, text: str, verdict: str, window: str | None = None,
              size: int | None = None) -> None:
        """The effect wrote ``text``; ``window`` is the running text a guard checks it in,
        ``size`` that guard's window (its last ``size`` characters, then the delta)."""
        data: dict[str, Any] = {"text": text, "verdict": verdict}
        if window is not None:
            data["window"] = window
        if size is not None:
            data["windowSize"] = size
        self._add(TapeKind.WRITE, data)

    def sever(self, error: BaseException, dropped: str) -> None:
        """A guard severed the attempt (spec: deltas.guard-before-delivery)."""
        self._add(TapeKind.SEVER, {"error": error_record(error), "dropped": dropped})

    def hold(self, held: str) -> None:
        """Text received and not yet released (spec: deltas.hold-back)."""
        self._add(TapeKind.HOLD, {"held": held})

    def deliver(self, sink: str, chunk: EffectDelta, raised: BaseException | None) -> None:
        """``chunk`` was handed to ``sink`` (spec: deltas.channel, deltas.sink-isolated)."""
        data: dict[str, Any] = {"sink": sink, "chunk": _chunk_json(chunk)}
        if raised is not None:
            data["raised"] = f"{type(raised).__name__}: {raised}"
        self._add(TapeKind.DELIVER, data)

    def end(self, usage: TokenUsage | None, verdict: str = "held") -> None:
        """The effect's end-of-stream chunk (spec: deltas.terminal)."""
        data: dict[str, Any] = {"verdict": verdict}
        if usage is not None:
            data["usage"] = usage_to_json(usage)
        self._add(TapeKind.END, data)

    def settle(self, error: BaseException | None) -> None:
        """The call settled (spec: deltas.live-window)."""
        data: dict[str, Any] = {"outcome": "succeeded" if error is None else "failed"}
        if error is not None:
            data["error"] = error_record(error)
        where = self.recorder.where()
        if where is not None:
            data["where"] = where
        self._add(TapeKind.SETTLE, data)


class DeltaRecorder:
    """An opt-in tape of every streamed call of the runtimes it is given to (spec:
    deltas.recorder, **extension**). ``position`` is called when a call opens and when it
    settles; what it returns (a JSON value: a journal length, a process number) is kept as
    the record's ``where``, so a picture can place the stream on the journal's time axis.
    One recorder may serve several runtimes in turn (a crashed process and its recovery)."""

    __slots__ = ("_calls", "position", "records")

    def __init__(self, *, position: Callable[[], Any] | None = None) -> None:
        if position is not None and not callable(position):
            raise InvalidArgument(f"position must be callable or None, got {position!r}")
        self.position = position
        self.records: list[TapeRecord] = []
        self._calls = 0

    def where(self) -> Any:
        """What ``position()`` says now (None without one)."""
        return None if self.position is None else self.position()

    def open(self, call: EffectCall, *, per_call: bool, configured: bool) -> CallTape:
        """A new call on the tape (spec: deltas.recorder)."""
        self._calls += 1
        tape = CallTape(self, self._calls)
        data: dict[str, Any] = {"toolId": call.tool_id, "mode": call.mode.value,
                                "executionId": call.execution_id, "stepId": call.step_id,
                                "perCall": per_call, "configured": configured}
        where = self.where()
        if where is not None:
            data["where"] = where
        tape._add(TapeKind.OPEN, data)
        return tape

    def to_json(self) -> list[dict[str, Any]]:
        """The tape as JSON values, in order."""
        return [record.to_json() for record in self.records]

    def __repr__(self) -> str:
        return f"DeltaRecorder({self._calls} calls, {len(self.records)} records)"


class RecordingSilent:
    """The silent channel of a call whose streaming was refused, when a recorder listens:
    it checks and drops what the effect writes, as the silent channel does (spec:
    deltas.fail-closed), and tapes it as ``refused``. The runtime starts each attempt on it
    as on a channel (``begin_attempt``; it never severs), so the tape shows the attempts."""

    __slots__ = ("tape",)

    #: Never severed: nothing is checked (the runtime reads it as it reads a channel's).
    severed: BaseException | None = None

    def __init__(self, tape: CallTape) -> None:
        self.tape = tape

    def begin_attempt(self, ctx: Any) -> None:
        """Attempt ``ctx.attempt`` begins (no reset is sent: nothing was delivered)."""
        self.tape.begin(ctx.attempt)

    def __call__(self, text: str) -> None:
        SILENT(text)
        if text:
            self.tape.write(text, "refused")

    def end(self, usage: TokenUsage | None = None) -> None:
        SILENT.end(usage)
        self.tape.end(usage, "refused")
