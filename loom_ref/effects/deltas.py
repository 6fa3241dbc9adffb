"""Governed streaming deltas: the :class:`EffectDelta` record and the runtime's guarded channel.

Spec: ``spec/deltas.md`` (chapter 3a). Rules enforced here, ADR 0119 decision by decision:

- ``deltas.record`` (#3): ``EffectDelta{delta: TaintedValue[str], done?, reset?, attempt?,
  usage?}``. A text chunk carries a non-empty delta; a reset chunk is ``{delta: "", reset:
  true, attempt: n}`` with n >= 2; the terminal chunk is ``{delta: "", done: true, usage?}``.
- ``deltas.taint`` (#9): every delta is a ``TaintedValue`` with origin ``llm:<toolId>``.
- ``deltas.channel`` (#2, #12): the runtime puts ONE channel on ``ctx.on_delta`` for every
  call, durable or transient. The channel forwards text and reset chunks to the per-call sink
  first, then to the effect's configured sink (``Effect.delta_sink``).
- ``deltas.writer``: the effect writes in one shape: ``ctx.on_delta(text)`` (a ``str``) for a
  text delta and ``ctx.on_delta.end(usage)`` for its end-of-stream chunk; the channel builds
  the ``EffectDelta`` records, with the call's origin.
- ``deltas.guard-before-delivery`` (#7, #10, #12): every middleware ``delta_guard`` of the
  running attempt checks a delta BEFORE any sink sees it; a guard's raise propagates out of the
  channel into the effect ("a sever channel") and the attempt stays severed
  (``deltas.sever-sticky``): nothing more is delivered and a later write raises the sever again.
- ``deltas.sink-isolated`` (#6): a sink's ``Exception`` is swallowed and reported through
  ``on_warn`` as ``"delta sink raised: <Type>: <message>"``; the call carries on.
- ``deltas.live-window`` (#6): nothing is delivered once the call has settled or its signal
  has aborted, including a write from an effect that ignores its signal or writes late.
- ``deltas.reset`` (#11): at the start of attempt n > 1 the runtime sends ``{reset, attempt:
  n}`` eagerly, before any delta of that attempt, and the attempt gets fresh guards.
- ``deltas.terminal`` (#3, #4, #6, #12): the effect's end-of-stream chunk is held (its usage
  kept) and never forwarded; after the whole call has succeeded the runtime sends the terminal
  chunk to the per-call sink only, and only if the successful attempt streamed.
- ``deltas.live-only`` (#5): the channel writes to sinks and nowhere else: no delta, reset or
  terminal chunk reaches the kernel's journal, which records only what a step or decider
  returns; a replay serves that record, so no effect runs and no sink is called.
- ``deltas.hold-back`` (**extension**, off by default): a guard with ``feed``/``flush`` (a
  ``HoldBackGuard``) releases text only once it can no longer start a match; the held text is
  flushed after success and dropped on a sever.
- ``deltas.recorder`` (**extension**, off by default): with a ``CallTape`` (the runtime's
  recorder, :mod:`loom_ref.effects.recorder`) the channel tapes each write, sever, hold,
  delivery and end beside its work; without one it does nothing more than above.
- ``deltas.no-runtime``: with no runtime between an effect and its sinks (the plain
  registry's :class:`DirectWriter`, or an effect that finds ``ctx.on_delta`` is ``None``),
  text chunks go to the per-call sink and then the configured sink, and the end chunk to the
  per-call sink only; nothing guards them, and a sink's exception propagates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.effects.context import EffectContext
from loom_ref.errors import InvalidArgument
from loom_ref.governance.taint import TaintedValue, taint
from loom_ref.signals import Signal
from loom_ref.stream.usage import TokenUsage
from loom_ref.stream.wire import usage_to_json

if TYPE_CHECKING:
    from loom_ref.effects.call import DeltaSink
    from loom_ref.effects.middleware.base import DeltaGuardFactory
    from loom_ref.effects.recorder import CallTape

__all__ = [
    "SILENT",
    "SINK_RAISED",
    "DeltaChannel",
    "DirectWriter",
    "EffectDelta",
    "SilentChannel",
    "delta_origin",
    "delta_to_json",
]

#: The prefix of the warning a raising sink produces (spec: deltas.sink-isolated).
SINK_RAISED = "delta sink raised"


def delta_origin(tool_id: str) -> str:
    """``llm:<toolId>``: the taint origin of every delta of ``tool_id`` (spec: deltas.taint)."""
    return f"llm:{tool_id}"


def _check_delta(_inst: object, _attr: object, value: Any) -> None:
    if not isinstance(value, TaintedValue) or not isinstance(value.value, str):
        raise InvalidArgument(f"EffectDelta.delta must be a TaintedValue[str], got {value!r}")


def _check_flag(_inst: object, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"EffectDelta.{attr.name} must be a bool, got {value!r}")


@attrs.frozen(kw_only=True)
class EffectDelta:
    """One chunk a delta sink receives (spec: deltas.record).

    ADR 0119 #3: "A text chunk carries non-empty delta; a reset chunk (reset: true, attempt: n,
    empty delta) precedes attempt n > 1; the terminal chunk is { delta: "", done: true, usage?
    }". Read the text with ``unwrap_tainted(chunk.delta)``: the call site is the audit trail.
    """

    delta: TaintedValue[str] = attrs.field(validator=_check_delta)
    done: bool = attrs.field(default=False, validator=_check_flag)
    reset: bool = attrs.field(default=False, validator=_check_flag)
    attempt: int | None = None
    usage: TokenUsage | None = None

    def __attrs_post_init__(self) -> None:
        text = self.delta.value
        if self.usage is not None and not isinstance(self.usage, TokenUsage):
            raise InvalidArgument(f"EffectDelta.usage must be a TokenUsage, got {self.usage!r}")
        if self.reset:
            attempt = self.attempt
            if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 2:
                raise InvalidArgument(f"a reset chunk needs attempt >= 2, got {attempt!r}")
            if text or self.done or self.usage is not None:
                raise InvalidArgument("a reset chunk has an empty delta, no done and no usage")
        elif self.attempt is not None:
            raise InvalidArgument("only a reset chunk carries an attempt")
        elif self.done:
            if text:
                raise InvalidArgument("the terminal chunk has an empty delta")
        elif not text or self.usage is not None:
            raise InvalidArgument("a text chunk carries a non-empty delta and no usage")

    @classmethod
    def text(cls, text: str, origin: str) -> EffectDelta:
        """A text chunk: ``{delta: taint(text, origin)}``."""
        return cls(delta=taint(text, origin))

    @classmethod
    def end(cls, origin: str, usage: TokenUsage | None = None) -> EffectDelta:
        """An end-of-stream / terminal chunk: ``{delta: "", done: true, usage?}``."""
        return cls(delta=taint("", origin), done=True, usage=usage)

    @classmethod
    def restart(cls, attempt: int, origin: str) -> EffectDelta:
        """A reset chunk: ``{delta: "", reset: true, attempt}``."""
        return cls(delta=taint("", origin), reset=True, attempt=attempt)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (spec: deltas.json): ``{"delta", "origin", "done"?, "reset"?,
        "attempt"?, "usage"?}``; absent fields are omitted."""
        return delta_to_json(self)


def delta_to_json(chunk: EffectDelta) -> dict[str, Any]:
    """``{"delta": text, "origin": origin}`` plus ``done``/``reset``/``attempt``/``usage``
    when present (spec: deltas.json). Serialising is a display, so it unwraps here."""
    if not isinstance(chunk, EffectDelta):
        raise InvalidArgument(f"delta_to_json takes an EffectDelta, got {type(chunk).__name__}")
    out: dict[str, Any] = {"delta": chunk.delta.value, "origin": chunk.delta.origin}
    if chunk.done:
        out["done"] = True
    if chunk.reset:
        out["reset"] = True
        out["attempt"] = chunk.attempt
    if chunk.usage is not None:
        out["usage"] = usage_to_json(chunk.usage)
    return out


def _text_of(text: object) -> str:
    """What an effect wrote as a text delta: a ``str`` (spec: deltas.writer)."""
    if type(text) is str:
        return text
    if isinstance(text, str):
        return str(text)
    if isinstance(text, EffectDelta):
        hint = ("reset chunks are the runtime's to send (spec: deltas.reset)" if text.reset
                else "write its text as a str, and an end chunk with ctx.on_delta.end(usage)")
        raise InvalidArgument(f"ctx.on_delta takes the text of a delta: {hint}")
    raise InvalidArgument(f"ctx.on_delta takes a str, got {type(text).__name__}")


def _usage_of(usage: object) -> TokenUsage | None:
    """What an effect gave ``ctx.on_delta.end``: a ``TokenUsage`` or ``None``."""
    if usage is not None and not isinstance(usage, TokenUsage):
        raise InvalidArgument(f"ctx.on_delta.end takes a TokenUsage or None, got {usage!r}")
    return usage


_new = object.__new__
_set = object.__setattr__


def _text_chunk(text: str, origin: str) -> EffectDelta:
    """A text chunk built without re-running the record's validators: the channel has already
    checked that ``text`` is a non-empty ``str`` and built ``origin`` from a non-empty tool id
    (spec: effects.lean-route -- the channel builds one chunk per delta on the hot path). The
    result equals ``EffectDelta.text(text, origin)``."""
    tainted = _new(TaintedValue)
    _set(tainted, "value", text)
    _set(tainted, "origin", origin)
    chunk = _new(EffectDelta)
    _set(chunk, "delta", tainted)
    _set(chunk, "done", False)
    _set(chunk, "reset", False)
    _set(chunk, "attempt", None)
    _set(chunk, "usage", None)
    return chunk


class SilentChannel:
    """The channel of a call with nothing to deliver to and nothing to guard, or whose
    streaming was refused (spec: deltas.fail-closed): it checks what the effect wrote and
    drops it. It is never ``None``, so an effect never falls back to calling its own sink."""

    __slots__ = ()

    def __call__(self, text: str) -> None:
        """Check a text delta and drop it (spec: deltas.writer)."""
        _text_of(text)

    def end(self, usage: TokenUsage | None = None) -> None:
        """Check an end-of-stream chunk and drop it (spec: deltas.writer)."""
        _usage_of(usage)

    def __repr__(self) -> str:
        return "SILENT"


#: Shared by every call whose channel is silent (no per-call allocation).
SILENT = SilentChannel()

Check = Callable[[str], object]


def _normalise(guard: object) -> tuple[Check | None, Any]:
    """A factory's product as ``(check, hold)``: a ``feed``/``flush`` guard is a hold-back
    guard, an object with ``check`` or a plain callable checks only."""
    if guard is None:
        return None, None
    feed, flush = getattr(guard, "feed", None), getattr(guard, "flush", None)
    if callable(feed) and callable(flush):
        return None, guard
    check = getattr(guard, "check", None)
    if callable(check):
        return check, None
    if callable(guard):
        return guard, None
    raise InvalidArgument(f"a delta_guard factory returned {guard!r}, which cannot check text")


class DeltaChannel:
    """The runtime-owned guarded channel of one call (spec: deltas.channel).

    The effect writes with ``channel(text)``; the runtime drives :meth:`begin_attempt`,
    :meth:`succeed` and :meth:`settle`.
    """

    __slots__ = (
        "_both",
        "_checks",
        "_delivered",
        "_factories",
        "_first",
        "_holds",
        "_pending",
        "_released",
        "_windows",
        "attempt",
        "configured",
        "dropped",
        "held",
        "on_warn",
        "origin",
        "per_call",
        "settled",
        "severed",
        "signal",
        "streamed",
        "tape",
    )

    def __init__(
        self,
        *,
        tool_id: str,
        signal: Signal,
        per_call: DeltaSink | None,
        configured: DeltaSink | None,
        factories: tuple[DeltaGuardFactory, ...],
        on_warn: Callable[[str], None],
        tape: CallTape | None = None,
    ) -> None:
        # spec: errors.invalid-argument -- one combined test (a streamed call builds one)
        if not (isinstance(tool_id, str) and tool_id and isinstance(signal, Signal)
                and (per_call is None or callable(per_call))
                and (configured is None or callable(configured))
                and isinstance(factories, tuple | list) and all(map(callable, factories))
                and callable(on_warn)):
            raise InvalidArgument(
                "a DeltaChannel takes a non-empty tool_id, a Signal, sinks that are callable or "
                "None, a tuple of callable guard factories and a callable on_warn; got "
                f"{tool_id!r}, {type(signal).__name__}, {type(per_call).__name__}, "
                f"{type(configured).__name__}, {factories!r} and {type(on_warn).__name__}")
        self.origin = delta_origin(tool_id)
        self.signal = signal
        self.per_call = per_call
        self.configured = configured
        # per-call first, then configured (spec: deltas.channel); absent sinks left out
        self._both = tuple(s for s in (per_call, configured) if s is not None)
        self._first = () if per_call is None else (per_call,)
        self.on_warn = on_warn
        self._factories = factories
        self.attempt = 0
        self.settled = False
        #: Writes dropped because the call had settled or its signal had aborted.
        self.dropped = 0
        #: The recorder's handle on this call, or None (spec: deltas.recorder).
        self.tape = tape
        self._reset_attempt_state()

    def _reset_attempt_state(self) -> None:
        self._checks: list[Check] = []
        self._windows: list[Any] = []  # guards that keep a running text (taped only)
        self._holds: list[Any] = []
        self._released: list[int] = []
        self._pending = ""
        self._delivered = 0
        #: The sever of the running attempt (spec: deltas.sever-sticky).
        self.severed: BaseException | None = None
        #: The effect's own end-of-stream chunk, held (spec: deltas.terminal).
        self.held: EffectDelta | None = None
        #: Whether the running attempt wrote text or an end chunk.
        self.streamed = False

    # -- runtime side ------------------------------------------------------------------

    def begin_attempt(self, ctx: EffectContext) -> None:
        """Attempt ``ctx.attempt`` begins: send the reset eagerly (n > 1), then build the
        attempt's guards. spec: deltas.reset"""
        if not isinstance(ctx, EffectContext):
            raise InvalidArgument(f"begin_attempt takes the call's EffectContext, got "
                                  f"{type(ctx).__name__}")
        self.attempt = n = ctx.attempt
        self._reset_attempt_state()
        tape = self.tape
        if tape is not None:
            tape.begin(n)
        if n > 1:
            self._deliver(EffectDelta.restart(n, self.origin), both=True)
        for factory in self._factories:
            guard = factory(ctx)
            if n > 1:  # spec: deltas.reset -- "resets the delta guards' running text"
                reset = getattr(guard, "reset", None)
                if callable(reset):
                    reset()
            check, hold = _normalise(guard)
            if tape is not None and hasattr(guard, "running_text"):
                self._windows.append(guard)
            if hold is not None:
                check = self._feeder(hold)
            if check is not None:  # in middleware order (spec: deltas.guard-order)
                self._checks.append(check)

    def _feeder(self, hold: Any) -> Check:
        """A hold-back guard as one of the attempt's checks, so it takes its place in the
        guards' order (spec: deltas.guard-order): it feeds the guard each delta and counts
        the characters the guard has released."""
        i = len(self._holds)
        self._holds.append(hold)
        self._released.append(0)

        def feed(text: str) -> None:
            self._released[i] += len(hold.feed(text))

        return feed

    def succeed(self) -> None:
        """The whole call succeeded (middleware output phase included): flush held text,
        then send the terminal chunk to the per-call sink. spec: deltas.terminal"""
        if self.settled or self.signal.aborted or self.severed is not None:
            self.settled = True
            return
        if self._holds:  # spec: deltas.hold-back -- flushed on success
            for i, hold in enumerate(self._holds):
                self._released[i] += len(hold.flush())
            self._release()
        if self.streamed and self.per_call is not None:
            usage = self.held.usage if self.held is not None else None
            self._deliver(EffectDelta.end(self.origin, usage), both=False)
        self.settled = True
        if self.tape is not None:
            self.tape.settle(None)

    def settle(self, error: BaseException | None = None) -> None:
        """The call settled (either way; ``error`` is what it failed with, for the tape):
        nothing is delivered any more. spec: deltas.live-window"""
        self.settled = True
        if self.tape is not None:
            self.tape.settle(error)

    # -- effect side --------------------------------------------------------------------

    def end(self, usage: TokenUsage | None = None) -> None:
        """The effect writes its end-of-stream chunk (spec: deltas.writer): held with its
        usage, never forwarded (spec: deltas.terminal)."""
        usage = _usage_of(usage)
        tape = self.tape
        if self.settled or self.signal.aborted:  # spec: deltas.live-window
            self.dropped += 1
            if tape is not None:
                tape.end(usage, "late")
            return
        if self.severed is not None:  # spec: deltas.sever-sticky
            if tape is not None:
                tape.end(usage, "after-sever")
            raise self.severed
        self.held = EffectDelta.end(self.origin, usage)
        self.streamed = True
        if tape is not None:
            tape.end(usage)

    def __call__(self, text: str) -> None:
        """The effect writes a text delta (spec: deltas.writer)."""
        what = text if type(text) is str else _text_of(text)
        tape = self.tape
        if tape is not None and what:
            self._tape_write(tape, what)
        if self.settled or self.signal.aborted:  # spec: deltas.live-window
            self.dropped += 1
            return
        if self.severed is not None:  # spec: deltas.sever-sticky
            raise self.severed
        if not what:
            return
        self.streamed = True
        try:  # spec: deltas.guard-before-delivery, deltas.guard-order (first raise wins)
            for check in self._checks:
                check(what)
        except BaseException as sever:
            self.severed = sever
            if tape is not None:
                tape.sever(sever, self._pending)
            self._pending = ""  # spec: deltas.hold-back -- dropped on sever
            raise
        if not self._holds:
            self._deliver(_text_chunk(what, self.origin), both=True)
            return
        self._pending += what
        self._release()
        if tape is not None:
            tape.hold(self._pending)

    def _tape_write(self, tape: CallTape, what: str) -> None:
        """Tape a write before the channel acts on it (spec: deltas.recorder)."""
        if self.settled or self.signal.aborted:
            tape.write(what, "late")
        elif self.severed is not None:
            tape.write(what, "after-sever")
        elif self._windows:
            guard = self._windows[0]
            tape.write(what, "checked", guard.running_text + what, getattr(guard, "window", None))
        else:
            tape.write(what, "checked")

    def _release(self) -> None:
        """Deliver the pending text every hold-back guard has released."""
        ready = min(self._released) - self._delivered
        if ready > 0:
            piece, self._pending = self._pending[:ready], self._pending[ready:]
            self._delivered += ready
            self._deliver(_text_chunk(piece, self.origin), both=True)

    def _deliver(self, chunk: EffectDelta, *, both: bool) -> None:
        """Per-call sink first, then the configured sink (``both``); a sink's exception is
        reported, never raised (spec: deltas.sink-isolated, deltas.channel)."""
        signal = self.signal
        tape = self.tape
        for sink in self._both if both else self._first:
            if signal.aborted:  # a sink may abort the signal: deliver nothing after
                return
            try:
                sink(chunk)
            except Exception as error:
                if tape is not None:
                    tape.deliver(self._name(sink), chunk, error)
                self.on_warn(f"{SINK_RAISED}: {type(error).__name__}: {error}")
            else:
                if tape is not None:
                    tape.deliver(self._name(sink), chunk, None)

    def _name(self, sink: DeltaSink) -> str:
        """``per-call`` or ``configured``: which sink ``sink`` is (for the tape)."""
        return "per-call" if sink is self.per_call else "configured"

    def __repr__(self) -> str:
        return (
            f"DeltaChannel(origin={self.origin!r}, attempt={self.attempt}, "
            f"settled={self.settled}, severed={self.severed is not None})"
        )



class DirectWriter:
    """``ctx.on_delta`` with no runtime between the effect and its sinks (spec:
    deltas.no-runtime): the plain registry's channel, and what an LLM effect delivers through
    when it finds ``ctx.on_delta`` is ``None``. Text chunks go to ``per_call`` then
    ``configured``, the end chunk to ``per_call`` only; nothing is guarded or isolated."""

    __slots__ = ("configured", "origin", "per_call")

    def __init__(self, *, tool_id: str, per_call: DeltaSink | None,
                 configured: DeltaSink | None) -> None:
        if not (isinstance(tool_id, str) and tool_id
                and (per_call is None or callable(per_call))
                and (configured is None or callable(configured))):
            raise InvalidArgument("a DirectWriter takes a non-empty tool_id and sinks that are "
                                  "callable or None")
        self.origin = delta_origin(tool_id)
        self.per_call = per_call
        self.configured = configured

    def __call__(self, text: str) -> None:
        """Deliver a text delta to both sinks, per-call first (spec: deltas.no-runtime)."""
        text = _text_of(text)
        if not text:
            return
        chunk = EffectDelta.text(text, self.origin)
        for sink in (self.per_call, self.configured):
            if sink is not None:
                sink(chunk)

    def end(self, usage: TokenUsage | None = None) -> None:
        """Deliver the end chunk to the per-call sink (spec: deltas.no-runtime)."""
        chunk = EffectDelta.end(self.origin, _usage_of(usage))
        if self.per_call is not None:
            self.per_call(chunk)
