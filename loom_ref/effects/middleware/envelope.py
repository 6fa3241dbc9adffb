"""Envelope middleware: wrap the output as ``{"tool": tool_id, "result": output}``.

Spec: ``spec/effects.md`` (``effects.envelope``): *the envelope middleware MUST return*
``{"tool": <tool id>, "result": <what next returned>}`` *and nothing else*. That is the shape
ADR 0087's amendment shows reaching a model (``{"tool":…,"result":…}``); a claim-check
middleware later puts its reference record in ``result``.

The envelope only adds structure around the effect's output: it neither rejects nor masks
content, so the streamed text equals the text inside ``result`` and the middleware does not
set ``inspects_output`` (ADR 0119 decision 13 obliges only output-rejecting or rewriting
middleware). A failure of ``next`` propagates unwrapped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_ref.effects.middleware.base import Next

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["EnvelopeMiddleware"]


class EnvelopeMiddleware:
    """``{"tool": ctx.tool_id, "result": output}`` around each successful call.
    (spec: effects.envelope)
    """

    inspects_output = False
    delta_guard = None

    __slots__ = ()

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        return {"tool": ctx.tool_id, "result": next(ctx, input)}
