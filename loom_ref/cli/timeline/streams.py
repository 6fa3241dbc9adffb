"""The streams of a run, read from a delta recorder's tape, laid out for a picture.

Deltas are live-only (ADR 0119 #5): the journal never holds them, so a picture of a stream
needs the tape a :class:`~loom_ref.effects.DeltaRecorder` wrote beside the journal
(``deltas.recorder``, an extension). :func:`read_tape` turns the tape's JSON records into one
:class:`StreamCall` per call, each a row of :class:`Moment` columns, in the order things
happened: each delta the effect wrote, a reset at a retry, the effect's held end chunk, the
flush of held text, the terminal chunk and the settlement; each moment says what every sink
received at it.

The tape's ``where`` (what the recorder's ``position()`` returned) is read as
``{"process": n, "journal": length}``, as ``loom-ref demo`` records it: the call opened when
the journal held ``length`` events, so on the journal's time axis it sits between event
``length`` and the next one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

__all__ = ["SINKS", "Moment", "StreamCall", "read_tape", "reconstruct"]

#: The two sinks a chunk can reach, in the order the channel delivers (per-call first).
SINKS = ("per-call", "configured")


@attrs.define(kw_only=True)
class Moment:
    """One column of a stream: ``kind`` is ``write`` (the effect wrote ``text``), ``reset``
    (attempt ``attempt`` began), ``end`` (the effect's end chunk, ``usage``), ``flush`` (held
    text released after success), ``terminal`` (the terminal chunk) or ``settle``.
    ``verdict`` says what became of a write: ``delivered``, ``held`` (hold-back kept it),
    ``severed``, ``refused``, ``late``, ``after-sever``; ``window`` is the running text the
    guard checked; ``received`` what each sink got at this moment."""

    kind: str
    attempt: int
    text: str = ""
    verdict: str = ""
    window: str | None = None
    window_size: int | None = None
    held: str | None = None
    dropped: str | None = None
    error: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] | None = None
    received: dict[str, list[Mapping[str, Any]]] = attrs.field(factory=dict)


@attrs.define(kw_only=True)
class StreamCall:
    """One call's stream: its tool, mode and step, the process and the journal length when it
    opened (``after``: it sits between journal event ``after`` and the next), which sinks it
    had, the refusal warning if streaming was refused, its moments and how it settled."""

    number: int
    tool_id: str
    mode: str
    step_id: str | None
    process: int | None
    after: int | None
    per_call: bool
    configured: bool
    refused: str | None = None
    moments: list[Moment] = attrs.field(factory=list)
    outcome: str | None = None
    error: Mapping[str, Any] | None = None

    @property
    def writes(self) -> list[Moment]:
        """The deltas the effect wrote, in order."""
        return [m for m in self.moments if m.kind == "write"]

    @property
    def attempts(self) -> int:
        """How many attempts the call made (1 when it never began one)."""
        return max([1, *(m.attempt for m in self.moments)])

    @property
    def sever(self) -> Moment | None:
        """The write a guard severed, if any."""
        return next((m for m in self.moments if m.verdict == "severed"), None)

    @property
    def streamed(self) -> bool:
        """Whether the effect wrote any text."""
        return bool(self.writes)

    def received(self, sink: str) -> list[Mapping[str, Any]]:
        """Every chunk ``sink`` received, in order."""
        return [c for m in self.moments for c in m.received.get(sink, [])]

    def usage(self) -> Mapping[str, Any] | None:
        """The usage of the last end chunk the effect wrote."""
        ends = [m.usage for m in self.moments if m.kind == "end" and m.usage is not None]
        return ends[-1] if ends else None


def reconstruct(chunks: Iterable[Mapping[str, Any]]) -> str:
    """What a sink shows after these chunks: a reset clears it, text appends (ADR 0119 #11:
    "A consumer clears and re-renders")."""
    out = ""
    for chunk in chunks:
        if chunk.get("reset"):
            out = ""
        elif not chunk.get("done"):
            out += str(chunk.get("delta", ""))
    return out


def _where(data: Mapping[str, Any]) -> tuple[int | None, int | None]:
    where = data.get("where")
    if isinstance(where, Mapping):
        process, journal = where.get("process"), where.get("journal")
        return (process if isinstance(process, int) else None,
                journal if isinstance(journal, int) else None)
    return None, None


def read_tape(tape: Sequence[Mapping[str, Any]]) -> list[StreamCall]:
    """The tape's JSON records (``DeltaRecorder.to_json()``) as one view per call."""
    calls: dict[int, StreamCall] = {}
    for record in tape:
        number, kind, attempt = record["call"], record["kind"], record["attempt"]
        if kind == "open":
            process, after = _where(record)
            calls[number] = StreamCall(
                number=number, tool_id=record["toolId"], mode=record["mode"],
                step_id=record.get("stepId"), process=process, after=after,
                per_call=bool(record.get("perCall")), configured=bool(record.get("configured")))
            continue
        call = calls[number]
        last = call.moments[-1] if call.moments else None
        if kind == "refused":
            call.refused = record["warning"]
        elif kind == "attempt":
            if attempt > 1:
                call.moments.append(Moment(kind="reset", attempt=attempt))
        elif kind == "write":
            verdict = record["verdict"]
            call.moments.append(Moment(
                kind="write", attempt=attempt, text=record["text"],
                verdict="held" if verdict == "checked" else verdict,
                window=record.get("window"), window_size=record.get("windowSize")))
        elif kind == "sever" and last is not None:
            last.verdict = "severed"
            last.error = record["error"]
            last.dropped = record.get("dropped") or None
        elif kind == "hold" and last is not None:
            last.held = record["held"]
        elif kind == "deliver":
            chunk = record["chunk"]
            if chunk.get("done"):
                last = Moment(kind="terminal", attempt=attempt, usage=chunk.get("usage"))
                call.moments.append(last)
            elif last is None or last.kind in ("end", "settle"):
                last = Moment(kind="flush", attempt=attempt)
                call.moments.append(last)
            last.received.setdefault(record["sink"], []).append(chunk)
            if last.kind == "write" and not chunk.get("reset"):
                last.verdict = "delivered"
        elif kind == "end":
            call.moments.append(Moment(kind="end", attempt=attempt, usage=record.get("usage"),
                                       verdict=record.get("verdict", "held")))
        elif kind == "settle":
            call.outcome = record["outcome"]
            call.error = record.get("error")
            call.moments.append(Moment(kind="settle", attempt=attempt, verdict=call.outcome,
                                       error=call.error))
    return list(calls.values())
