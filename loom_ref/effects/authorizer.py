"""The authorizer (K2): the first stage of every governed call.

Spec: ``spec/effects.md``. Rules enforced here and in the runtime:

- ``effects.authorizer``: *an authorizer answers allow or deny for a (principal, tool id,
  mode) triple, with a reason; a deny refuses the call with* ``effect.denied`` *carrying the
  reason*. The authorizer runs once per call, before the middleware chain, so a denied call
  is never retried, rate-limited, metered or executed.
- ``effects.scope-principal``: a decider's scope runs AS the deciding execution (the seeds'
  L30), so the principal it presents is that execution's id; grants for a decider are written
  against execution ids like any other principal.

:class:`AllowAll` is the runtime's default. :class:`GrantAuthorizer` is a small, explicit
allow-list: a call is allowed iff some :class:`Grant` matches it, and ``"*"`` matches any
principal or tool id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import attrs

from loom_ref.effects.call import Mode
from loom_ref.effects.decision import ALLOW, Decision
from loom_ref.effects.effect import ALL_MODES, to_modes
from loom_ref.errors import InvalidArgument

__all__ = ["AllowAll", "Authorizer", "Grant", "GrantAuthorizer"]

WILDCARD = "*"


@runtime_checkable
class Authorizer(Protocol):
    """Decides whether ``principal`` may call ``tool_id`` through ``mode``.
    (spec: effects.authorizer)
    """

    def authorize(self, principal: str, tool_id: str, mode: Mode) -> Decision: ...


class AllowAll:
    """Allows every call (the runtime's default authorizer) (spec: effects.authorizer)."""

    __slots__ = ()

    def authorize(self, principal: str, tool_id: str, mode: Mode) -> Decision:
        return ALLOW


def _non_empty_str(_inst: object, attr: attrs.Attribute[str], value: object) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{attr.name} must be a non-empty string, got {value!r}")


def _any_modes(value: object) -> frozenset[Mode]:
    return to_modes(value, non_empty=False)


@attrs.frozen(kw_only=True)
class Grant:
    """``principal`` may call ``tool_id`` through any of ``modes`` (``"*"`` = any).
    (spec: effects.authorizer)
    """

    principal: str = attrs.field(validator=_non_empty_str)
    tool_id: str = attrs.field(validator=_non_empty_str)
    modes: frozenset[Mode] = attrs.field(default=ALL_MODES, converter=_any_modes)

    def matches(self, principal: str, tool_id: str, mode: Mode) -> bool:
        if type(mode) is not Mode:  # spec: errors.invalid-argument
            raise InvalidArgument(f"mode must be a Mode, got {mode!r}")
        return (
            (self.principal == WILDCARD or self.principal == principal)
            and (self.tool_id == WILDCARD or self.tool_id == tool_id)
            and mode in self.modes
        )


class GrantAuthorizer:
    """Allow-list authorizer: allowed iff a grant matches; otherwise denied with a reason
    naming the triple. spec: effects.authorizer"""

    __slots__ = ("grants",)

    def __init__(self, grants: Iterable[Grant]) -> None:
        if isinstance(grants, str | bytes) or not isinstance(grants, Iterable):
            raise InvalidArgument(f"grants must be an iterable of Grant, got {grants!r}")
        grants = tuple(grants)
        for grant in grants:
            if not isinstance(grant, Grant):
                raise InvalidArgument(f"grants must be Grant records, got {grant!r}")
        self.grants = grants

    def authorize(self, principal: str, tool_id: str, mode: Mode) -> Decision:
        # spec: errors.invalid-argument -- the triple is checked before any grant is tried
        if not (isinstance(principal, str) and isinstance(tool_id, str) and type(mode) is Mode):
            raise InvalidArgument(f"authorize takes (str, str, Mode), got ({principal!r}, "
                                  f"{tool_id!r}, {mode!r})")
        for grant in self.grants:
            if grant.matches(principal, tool_id, mode):
                return ALLOW
        return Decision.deny(
            f"no grant lets principal {principal!r} call {tool_id!r} ({mode.value})"
        )
