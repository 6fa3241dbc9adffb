"""The Effect record: what is registered under a tool id.

Spec: ``spec/effects.md`` (``effects.registration``): *an effect is registered by* ``tool_id``
*with its execute function, the modes it allows, whether it is idempotent, and an optional
configured delta sink*. ``execute(ctx, input) -> output`` is the only code an effect supplies;
everything around it (authorization, middleware, mode, budget, kill switch, signal) is the
runtime's, so an effect cannot skip governance by construction (ADR 0119 decision 2).

``idempotent`` feeds the kernel's in-doubt rule (``kernel.in-doubt``): an idempotent effect
whose step has no outcome at recovery is invoked again with the same idempotency key.
``delta_sink`` is ADR 0119 decision 12's ``Effect.deltaSink``: the configured sink whose
delivery the runtime owns. The runtime feeds it from the call's guarded delta channel, after
the per-call sink, with text and reset chunks only (``spec/deltas.md``: deltas.channel); an
effect calls it itself only when there is no runtime (``ctx.on_delta`` is ``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.effects.call import DeltaSink, Mode
from loom_ref.errors import InvalidArgument

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext

__all__ = ["ALL_MODES", "Effect", "ExecuteFn", "check_registration", "to_modes"]

#: An effect body: ``execute(ctx, input) -> output``; raise to fail the attempt.
ExecuteFn = Callable[["EffectContext", Any], Any]

#: Both doors: the default for an effect that does not restrict its modes.
ALL_MODES: frozenset[Mode] = frozenset(Mode)


def _check_tool_id(_inst: object, _attr: object, value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"tool_id must be a non-empty string, got {value!r}")


def _check_execute(_inst: object, _attr: object, value: Any) -> None:
    if not callable(value):
        raise InvalidArgument(f"execute must be callable, got {type(value).__name__}")


def to_modes(value: object, *, non_empty: bool = True) -> frozenset[Mode]:
    """``value`` (one :class:`Mode` or an iterable of them) as a frozenset; anything else, or
    an empty set where ``non_empty``, is refused with InvalidArgument."""
    if isinstance(value, Mode):
        return frozenset((value,))
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise InvalidArgument(f"modes must be Mode values, got {value!r}")
    modes = frozenset(value)
    if not all(isinstance(m, Mode) for m in modes) or (non_empty and not modes):
        what = "a non-empty set of Mode values" if non_empty else "Mode values"
        raise InvalidArgument(f"modes must be {what}, got {value!r}")
    return modes


def _check_bool(_inst: object, attr: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{attr.name} must be a bool, got {value!r}")


def _check_sink(_inst: object, _attr: object, value: Any) -> None:
    if value is not None and not callable(value):
        raise InvalidArgument(f"delta_sink must be callable or None, got {value!r}")


@attrs.frozen(kw_only=True)
class Effect:
    """One registered effect (spec: effects.registration)."""

    tool_id: str = attrs.field(validator=_check_tool_id)
    execute: ExecuteFn = attrs.field(validator=_check_execute)
    modes: frozenset[Mode] = attrs.field(default=ALL_MODES, converter=to_modes)
    idempotent: bool = attrs.field(default=False, validator=_check_bool)
    delta_sink: DeltaSink | None = attrs.field(default=None, validator=_check_sink)


def check_registration(effect: object, registered: Mapping[str, Effect]) -> Effect:
    """``effect`` if a host holding ``registered`` may register it, else InvalidArgument: the
    refusals both hosts' ``register`` share (spec: effects.registration, kernel.effect-forms).
    A bare function is told how to wrap it in a record."""
    if not isinstance(effect, Effect):
        hint = (" (an effect function goes in a record: Effect(tool_id=..., execute=fn), "
                "spec: kernel.effect-forms)" if callable(effect) else "")
        raise InvalidArgument(f"register takes an Effect, got {type(effect).__name__}{hint}")
    if effect.tool_id in registered:
        raise InvalidArgument(f"tool_id {effect.tool_id!r} is already registered")
    return effect
