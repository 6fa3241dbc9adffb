"""The seam between the kernel and whatever runs effects.

Spec: ``spec/kernel.md`` (``kernel.effect-seam``): the kernel MUST reach effects only
through :class:`EffectHost`, so the plain :class:`EffectRegistry` below and the governed
``loom_ref.effects.EffectRuntime`` are interchangeable and runner bodies do not change.

The kernel journals around ``invoke`` (STEP_STARTED before, STEP_COMPLETED / STEP_FAILED
after); it never journals ``invoke_transient``. ``is_idempotent`` feeds the in-doubt rule
(``kernel.in-doubt``): an idempotent effect whose step has no outcome at recovery is invoked
again with the same idempotency key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from loom_ref.effects.call import EffectCall
from loom_ref.effects.errors import UnknownEffectError
from loom_ref.errors import InvalidArgument

__all__ = ["EffectHost", "EffectRegistry", "check_effect_host"]


@runtime_checkable
class EffectHost(Protocol):
    """What the kernel needs from an effect runner."""

    def invoke(self, call: EffectCall) -> Any:
        """Run a durable call and return its output (raise to fail the step)."""
        ...

    def invoke_transient(self, call: EffectCall) -> Any:
        """Run a transient call (not journaled) and return its output."""
        ...

    def is_idempotent(self, tool_id: str) -> bool:
        """Whether re-invoking ``tool_id`` with the same idempotency key is safe."""
        ...


def check_effect_host(effects: object) -> EffectHost:
    """Return ``effects`` if it provides the :class:`EffectHost` methods, else raise
    InvalidArgument."""
    for name in ("invoke", "invoke_transient", "is_idempotent"):
        if not callable(getattr(effects, name, None)):
            raise InvalidArgument(f"effects must provide {name}() (see EffectHost), got "
                                  f"{type(effects).__name__}")
    return effects  # type: ignore[return-value]


class EffectRegistry:
    """The plain effect host: a dictionary of callables, no governance.

    Each effect is ``fn(call: EffectCall) -> output``. Use it to teach the kernel on its own;
    use ``loom_ref.effects.EffectRuntime`` for the governed route.
    """

    def __init__(self) -> None:
        self._effects: dict[str, Callable[[EffectCall], Any]] = {}
        self._idempotent: set[str] = set()

    def add(
        self, tool_id: str, fn: Callable[[EffectCall], Any], *, idempotent: bool = False
    ) -> EffectRegistry:
        """Register ``fn`` under ``tool_id``; returns ``self`` so calls chain."""
        if not isinstance(tool_id, str) or not tool_id:
            raise InvalidArgument(f"tool_id must be a non-empty string, got {tool_id!r}")
        if not callable(fn):
            raise InvalidArgument(f"effect for {tool_id!r} must be callable")
        if tool_id in self._effects:
            raise InvalidArgument(f"tool_id {tool_id!r} is already registered")
        self._effects[tool_id] = fn
        if idempotent:
            self._idempotent.add(tool_id)
        return self

    def _lookup(self, tool_id: str) -> Callable[[EffectCall], Any]:
        try:
            return self._effects[tool_id]
        except KeyError:
            raise UnknownEffectError(  # the same code as the governed runtime's
                f"no effect registered as {tool_id!r}", tool_id=tool_id
            ) from None

    def invoke(self, call: EffectCall) -> Any:
        return self._lookup(call.tool_id)(call)

    def invoke_transient(self, call: EffectCall) -> Any:
        return self._lookup(call.tool_id)(call)

    def is_idempotent(self, tool_id: str) -> bool:
        return tool_id in self._idempotent
