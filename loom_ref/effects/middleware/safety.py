"""Safety middleware: validators around ``next()``, and a per-attempt delta guard for streams.

Spec: ``spec/deltas.md`` § Validators on the route. Rules enforced here:

- ``deltas.safety-phases``: ``safety_middleware(validators)`` runs every validator's input
  form on the call's input BEFORE ``next``, and its output form on the output AFTER ``next``
  (ADR 0119 #10); a rejection raises ``governance.safety-violation`` and fails the call.
- ``deltas.output-text``: the output form sees the output's text: a ``str`` output is the
  text; a message in the stream package's wire form (``{"role", "content": [blocks]}``) is
  checked as the concatenation of its text blocks (the text the deltas reconstruct) and every
  other string in an output (tool-call arguments, nested values) is checked on its own.
- ``deltas.safety-delta-guard``: when every validator that has an output form also has a
  delta form, the middleware exposes ``delta_guard(ctx)``: a fresh per-attempt
  ``RunningTextGuard`` over the validators' delta forms (window ``delta_window``, default
  4096), which raises to sever BEFORE the offending delta is delivered. Otherwise it has no
  delta guard and is marked ``inspects_output``, so the runtime refuses streaming
  (``deltas.fail-closed``).
- ``deltas.hold-back`` (**extension**, ``hold_back=True``, off by default): the per-attempt
  guard is a ``HoldBackGuard`` instead; the validators must be bounded pattern validators,
  checked when the middleware is built.
- ``deltas.token-budget``: :func:`stream_budget_middleware` exposes ``stream_token_budget``
  (K8.4) as a delta guard only: it severs before the delta that would exceed the budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from loom_ref.effects.middleware.base import Next
from loom_ref.errors import InvalidArgument
from loom_ref.governance.budget import (
    StreamTokenBudgetGuard,
    TokenCounter,
    approx_token_count,
    stream_token_budget,
)
from loom_ref.governance.guards import DEFAULT_WINDOW, RunningTextGuard
from loom_ref.governance.holdback import HoldBackGuard
from loom_ref.governance.validators import SafetyValidator
from loom_ref.governance.walk import walk

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = [
    "SafetyMiddleware",
    "StreamBudgetMiddleware",
    "output_texts",
    "safety_middleware",
    "stream_budget_middleware",
]


def _message_text(output: Mapping[str, Any]) -> str | None:
    """The concatenated text blocks of a wire-form message, or ``None`` if not one."""
    content = output.get("content")
    if not isinstance(output.get("role"), str) or not isinstance(content, list):
        return None
    parts = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)


def output_texts(output: object) -> Iterator[str]:
    """The texts an output form checks (spec: deltas.output-text): the output itself when it
    is a ``str``; else the joined text blocks of a wire-form message, then every string in
    the output in document order (walked as ``taint.walk``)."""
    if isinstance(output, str):
        yield output
        return
    if isinstance(output, Mapping):
        joined = _message_text(output)
        if joined is not None:
            yield joined
    for node in walk(output):
        if isinstance(node.value, str):
            yield node.value


class SafetyMiddleware:
    """Input and output validation around ``next``; a delta guard when all output validators
    have delta forms (see the module rules) (spec: deltas.safety-phases)."""

    __slots__ = ("delta_guard", "delta_window", "hold_back", "inspects_output", "validators")

    def __init__(
        self,
        validators: Iterable[SafetyValidator],
        *,
        delta_window: int = DEFAULT_WINDOW,
        hold_back: bool = False,
    ) -> None:
        if isinstance(validators, SafetyValidator) or not isinstance(validators, Iterable):
            raise InvalidArgument("validators must be a sequence of SafetyValidator")
        self.validators: tuple[SafetyValidator, ...] = tuple(validators)
        for v in self.validators:
            if not isinstance(v, SafetyValidator):
                raise InvalidArgument(f"expected a SafetyValidator, got {type(v).__name__}")
        if not isinstance(hold_back, bool):
            raise InvalidArgument(f"hold_back must be a bool, got {hold_back!r}")
        self.hold_back = hold_back
        self.delta_window = delta_window
        delta_validators = [v for v in self.validators if v.delta_form is not None]
        covered = all(
            v.delta_form is not None for v in self.validators if v.output_form is not None
        )
        # spec: deltas.safety-delta-guard, deltas.fail-closed
        self.inspects_output = any(v.output_form is not None for v in self.validators)
        self.delta_guard = self._guard if covered and delta_validators else None
        if hold_back and len(delta_validators) < len(self.validators):  # spec: deltas.hold-back
            raise InvalidArgument("hold_back needs the delta form of every validator")
        if self.delta_guard is not None:
            self._guard(None)  # build one now: a bad window or hold-back set-up fails here

    def _guard(self, ctx: EffectContext | None) -> RunningTextGuard | HoldBackGuard:
        """A fresh guard for one attempt (spec: deltas.safety-delta-guard)."""
        validators = [v for v in self.validators if v.delta_form is not None]
        if self.hold_back:  # spec: deltas.hold-back (extension)
            return HoldBackGuard(validators, self.delta_window)
        return RunningTextGuard(validators, self.delta_window)

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        for validator in self.validators:  # spec: deltas.safety-phases (input, before next)
            validator.check_input(input)
        output = next(ctx, input)
        if self.inspects_output:  # spec: deltas.safety-phases (output, after next)
            for text in output_texts(output):
                for validator in self.validators:
                    validator.check_output(text)
        return output

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.validators)
        return f"SafetyMiddleware([{names}], hold_back={self.hold_back})"


def safety_middleware(
    validators: Iterable[SafetyValidator],
    *,
    delta_window: int = DEFAULT_WINDOW,
    hold_back: bool = False,
) -> SafetyMiddleware:
    """ADR 0119 #10's ``safetyMiddleware``: validators in the input and output phases, and a
    per-attempt ``delta_guard`` over the running text (spec: deltas.safety-phases,
    deltas.safety-delta-guard). ``hold_back=True`` is the hold-back **extension**."""
    return SafetyMiddleware(validators, delta_window=delta_window, hold_back=hold_back)


class StreamBudgetMiddleware:
    """``stream_token_budget`` as a delta guard on the route (spec: deltas.token-budget).

    It neither rejects nor rewrites the output, so it is not ``inspects_output``.
    """

    inspects_output = False

    __slots__ = ("count", "max_tokens")

    def __init__(self, max_tokens: int, count: TokenCounter = approx_token_count) -> None:
        stream_token_budget(max_tokens, count)  # validates the arguments
        self.max_tokens = max_tokens
        self.count = count

    def delta_guard(self, ctx: EffectContext) -> StreamTokenBudgetGuard:
        """A fresh per-attempt budget (spec: deltas.token-budget, guards.reset)."""
        return stream_token_budget(self.max_tokens, self.count)

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        return next(ctx, input)


def stream_budget_middleware(
    max_tokens: int, count: TokenCounter = approx_token_count
) -> StreamBudgetMiddleware:
    """Sever a streamed attempt before the delta that would take it above ``max_tokens``
    (ADR 0119 #7: "streamTokenBudget (K8.4) ... is the intended bound").
    (spec: deltas.token-budget)"""
    return StreamBudgetMiddleware(max_tokens, count)
