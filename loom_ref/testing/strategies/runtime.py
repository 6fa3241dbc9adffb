"""Strategies for runtime situations: retry schedules, crash points, retry policies and
kernel scenarios in the conformance case format.

Rules:

- A :class:`RetrySchedule` is what one governed streaming call goes through: attempts that
  stream some deltas and fail, then (usually) one that streams the final text and succeeds.
  :meth:`RetrySchedule.delta_events` is the delta channel a correct runtime delivers for it
  (ADR 0119 #3 and #11): the deltas of attempt 1; for each attempt n > 1 first
  ``{"delta": "", "reset": true, "attempt": n}`` -- sent EAGERLY, "before any of its deltas
  ... so a view is cleared even if the retry produces no text" -- then its deltas; and after a
  success the terminal ``{"delta": "", "done": true}``. Its reconstruction equals the final
  text ("A consumer clears and re-renders; the reconstruction equals the recorded decision").
  :meth:`RetrySchedule.adapter_scripts` plays it through a ``ScriptedAdapter``.
- A crash point is ``{"afterEvent": k, "torn"?: true}``, the conformance form of "the store
  crashes after the action's k-th append" (spec: journal.crash-model); ``k`` is what
  ``FaultInjectingStore(crash_after=k)`` takes.
- :func:`scenario_cases` draws scenario cases in the conformance case format
  (``conformance/schemas/case.json``; ``conformance/INTERPRETING.md``): scripted tools that
  return, echo or fail, scripted deciders (some calling a tool transiently), a body of
  executes (some inside try/catch), decisions, stream appends and gates, threading values
  through variables; the case starts the workflow and resumes each gate it reaches. With
  ``with_expect`` the ``expect`` member is the linear model's
  (``loom_ref.conformance.model.model_expectation``), so a kernel can be checked against it.
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.testing._deps import require_hypothesis

require_hypothesis()

from hypothesis import strategies as st  # noqa: E402

from loom_ref.stream import (  # noqa: E402
    BlockEnd,
    BlockStart,
    BlockType,
    FinishChunk,
    FinishReason,
    Script,
    StreamChunk,
    TextBlock,
    TextDelta,
)
from loom_ref.testing.strategies.text import splits  # noqa: E402

__all__ = [
    "AttemptScript",
    "RetrySchedule",
    "crash_points",
    "json_values",
    "retry_policies",
    "retry_schedules",
    "scenario_cases",
]

# ---- retry schedules --------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class AttemptScript:
    """One attempt: the deltas it streams, then whether it fails (raises) or succeeds."""

    deltas: tuple[str, ...]
    fails: bool


@attrs.frozen(kw_only=True)
class RetrySchedule:
    """The attempts of one call, in order; only the last may succeed."""

    attempts: tuple[AttemptScript, ...]

    @property
    def succeeded(self) -> bool:
        """Whether the last attempt succeeds (else the retries were exhausted)."""
        return not self.attempts[-1].fails

    @property
    def final_text(self) -> str | None:
        """The text of the successful attempt (the recorded result), or ``None``."""
        return "".join(self.attempts[-1].deltas) if self.succeeded else None

    def delta_events(self, *, attempt_numbers: bool = True) -> list[dict[str, Any]]:
        """The delta channel, in the JSON form of ``EffectDelta`` (ADR 0119 #3, #11)."""
        events: list[dict[str, Any]] = []
        for n, attempt in enumerate(self.attempts, start=1):
            if n > 1:  # the reset is eager: before any delta of attempt n
                reset: dict[str, Any] = {"delta": "", "reset": True}
                if attempt_numbers:
                    reset["attempt"] = n
                events.append(reset)
            events.extend({"delta": d} for d in attempt.deltas)
        if self.succeeded:
            events.append({"delta": "", "done": True})
        return events

    def adapter_scripts(self) -> list[Script]:
        """One ``Script`` per attempt, for ``ScriptedAdapter(schedule.adapter_scripts())``: a
        text block streaming the attempt's deltas; a failing attempt raises
        ``stream.scripted.failure`` after them, a successful one ends the block and finishes
        with ``stop``."""
        scripts: list[Script] = []
        for attempt in self.attempts:
            chunks: list[StreamChunk] = [BlockStart(index=0, block_type=BlockType.TEXT)]
            chunks += [TextDelta(index=0, text=d) for d in attempt.deltas]
            if attempt.fails:
                scripts.append(Script(chunks=chunks, raise_after=len(chunks)))
                continue
            chunks.append(BlockEnd(index=0, block=TextBlock(text="".join(attempt.deltas))))
            chunks.append(FinishChunk(reason=FinishReason.stop()))
            scripts.append(Script(chunks=chunks))
        return scripts


@st.composite
def retry_schedules(
    draw: st.DrawFn,
    texts: st.SearchStrategy[str] | None = None,
    *,
    max_attempts: int = 4,
    may_exhaust: bool = False,
) -> RetrySchedule:
    """Schedules of 1 to ``max_attempts`` attempts, each streaming a text drawn from
    ``texts`` split into non-empty deltas; a failed attempt may stream nothing. All but the
    last attempt fail; with ``may_exhaust`` the last may fail too."""
    text = texts if texts is not None else st.text(alphabet="abc xyz.", max_size=12)
    count = draw(st.integers(1, max_attempts), label="attempts")
    attempts: list[AttemptScript] = []
    for n in range(1, count + 1):
        last = n == count
        fails = not last or (may_exhaust and draw(st.booleans(), label="last fails"))
        deltas = draw(splits(draw(text, label=f"attempt {n} text")), label=f"attempt {n} deltas")
        attempts.append(AttemptScript(deltas=deltas, fails=fails))
    return RetrySchedule(attempts=tuple(attempts))


def retry_policies() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments that ``RetryMiddleware`` accepts (spec: effects.retry-backoff)."""
    delays = st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0, 2.5])
    return st.fixed_dictionaries(
        {
            "max_attempts": st.integers(1, 6),
            "base_delay": delays,
            "multiplier": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
            "max_delay": st.sampled_from([0.0, 0.5, 1.0, 10.0]),
            "jitter": st.sampled_from([0.0, 0.25, 0.5, 1.0]),
            "seed": st.sampled_from(["", "s1", "seed-2"]),
        }
    )


# ---- crash points -----------------------------------------------------------------------------


def crash_points(events: int, *, torn: bool | None = False) -> st.SearchStrategy[dict[str, Any]]:
    """Crash specs ``{"afterEvent": k}`` for an action that appends ``events`` events
    (1 <= k <= events). ``torn=True`` adds ``"torn": true`` (the k-th append writes only a
    prefix of its line); ``None`` draws both kinds."""
    if isinstance(events, bool) or not isinstance(events, int) or events < 1:
        raise InvalidArgument(f"events must be an int >= 1, got {events!r}")
    after = st.integers(1, events)
    kinds = st.booleans() if torn is None else st.just(torn)
    return st.tuples(after, kinds).map(
        lambda p: {"afterEvent": p[0], "torn": True} if p[1] else {"afterEvent": p[0]}
    )


# ---- scenarios --------------------------------------------------------------------------------


def json_values(max_leaves: int = 4) -> st.SearchStrategy[Any]:
    """Small JSON values that survive a JSON round trip unchanged (no NaN, exact floats, no
    ``$`` keys, which the body language reads as operators)."""
    leaves = st.one_of(
        st.integers(-5, 100),
        st.sampled_from(["a", "b", "ok", "x y", "é", ""]),
        st.booleans(),
        st.none(),
        st.sampled_from([0.5, 2.25, -1.5]),
    )
    keys = st.sampled_from(["k", "p", "q", "r"]).flatmap(
        lambda c: st.integers(0, 3).map(lambda i: f"{c}{i}")
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=max_leaves,
    )


def _tool_script(n: int) -> st.SearchStrategy[list[Any]]:
    entry = st.one_of(
        json_values().map(lambda v: {"return": v}),
        st.just({"echo": True}),
        st.just({"raise": {"code": f"tool.failed-{n}", "message": f"boom {n}"}}),
    )
    return st.lists(entry, min_size=1, max_size=3)


def _decider_script(tools: list[str]) -> st.SearchStrategy[list[Any]]:
    entry = st.one_of(
        json_values().map(lambda v: {"return": v}),
        st.builds(
            lambda c, p: {"choice": c, "policy": "pol", "propensity": p},
            st.sampled_from(["left", "right", 3]),
            st.sampled_from([0.25, 0.5, 1]),
        ),
        st.builds(
            lambda t, v: {"invokeTransient": {"tool": t, "input": v}},
            st.sampled_from(tools),
            json_values(),
        ),
    )
    return st.lists(entry, min_size=1, max_size=3)


@st.composite
def _body(
    draw: st.DrawFn, tools: list[str], deciders: list[str], max_instructions: int
) -> tuple[list[Any], list[str]]:
    body: list[Any] = []
    names: list[str] = []

    def value() -> Any:
        use_var: bool = bool(names) and draw(st.booleans(), label="use a variable")
        if use_var:
            return {"$var": draw(st.sampled_from(names))}
        return draw(json_values())

    count = draw(st.integers(1, max_instructions), label="instructions")
    for n in range(1, count + 1):
        kind = draw(st.sampled_from(["execute", "decide", "stream", "suspend"]), label="op")
        var = f"v{len(names)}"
        if kind == "execute":
            ins: dict[str, Any] = {
                "op": "execute",
                "tool": draw(st.sampled_from(tools)),
                "input": value(),
                "as": var,
            }
            if draw(st.booleans(), label="explicit step id"):
                ins["stepId"] = f"s{n}"
            if draw(st.booleans(), label="inside try"):
                err = f"e{n}"
                body += [
                    {"op": "set", "var": var, "value": None},
                    {
                        "op": "try",
                        "body": [ins],
                        "catch": {
                            "as": err,
                            "body": [{"op": "set", "var": var, "value": {"$var": err}}],
                        },
                    },
                ]
            else:
                body.append(ins)
            names.append(var)
        elif kind == "decide":
            ins = {
                "op": "decide",
                "id": f"d{n}",
                "decider": draw(st.sampled_from(deciders)),
                "as": var,
            }
            if draw(st.booleans(), label="alternatives"):
                ins["alternatives"] = ["left", "right"]
            body.append(ins)
            names.append(var)
        elif kind == "stream":
            body.append({"op": "stream", "data": value()})
        else:
            ins = {"op": "suspend", "gate": f"g{n}", "as": var}
            if draw(st.booleans(), label="typed gate"):
                ins["on"] = "Approval"
            body.append(ins)
            names.append(var)
    body.append({"op": "return", "value": {v: {"$var": v} for v in names}})
    return body, names


@st.composite
def scenario_cases(
    draw: st.DrawFn,
    *,
    max_instructions: int = 6,
    with_expect: bool = True,
    group: str = "testing.generated",
    max_resumes: int = 6,
) -> dict[str, Any]:
    """A scenario case dict in the conformance case format (see the module rules). Without
    ``with_expect`` the case has no ``expect`` member (the form sent to an implementation
    lacks it too) and its only action is ``start``."""
    from loom_ref.conformance.model import model_expectation

    tools = [f"t{i}" for i in range(draw(st.integers(1, 3), label="tools"))]
    effects = {
        t: {
            "idempotent": draw(st.booleans(), label=f"{t} idempotent"),
            "script": draw(_tool_script(i), label=f"{t} script"),
        }
        for i, t in enumerate(tools)
    }
    decider_names = [f"p{i}" for i in range(draw(st.integers(1, 2), label="deciders"))]
    deciders = {
        d: {"script": draw(_decider_script(tools), label=f"{d} script")} for d in decider_names
    }
    body, _ = draw(_body(tools, decider_names, max_instructions))
    case: dict[str, Any] = {
        "id": f"{group}/case-{draw(st.integers(0, 9999)):04d}",
        "anchor": "kernel.recover",
        "provenance": "loom-ref",  # a generated program leans on loom-ref's choices too
        "tier": "must",
        "description": "A generated program: the kernel agrees with the linear model.",
        "family": "scenario",
        "workflow": {"name": "generated", "body": body},
        "effects": effects,
        "deciders": deciders,
        "actions": [{"do": "start", "input": draw(json_values(), label="input")}],
    }
    if not with_expect:
        return case
    for _ in range(max_resumes):
        last = model_expectation(case)["actions"][-1]["result"]
        if last["status"] != "suspended":
            break
        payload = {"answer": draw(json_values(), label="resume payload")}
        case["actions"].append({"do": "resume", "gate": last["waitingOn"], "payload": payload})
    case["expect"] = model_expectation(case)
    return case
