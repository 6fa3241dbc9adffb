"""An allow-or-refuse verdict with a reason: what the authorizer and a meter's admission return.

Spec: ``spec/effects.md`` (``effects.authorizer``): *an authorizer MUST answer allow or deny
with a reason, and a deny reason MUST reach the caller in the refusal error*. The same record
serves metering admission (``effects.metering-admission``), so both stages read alike.
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.errors import InvalidArgument

__all__ = ["ALLOW", "Decision"]


def _typed(kind: type) -> Any:
    def check(_inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if type(value) is not kind:
            raise InvalidArgument(f"{attr.name} must be a {kind.__name__}, got {value!r}")

    return check


@attrs.frozen(kw_only=True)
class Decision:
    """``allowed`` is the verdict; ``reason`` says why (it becomes the refusal's message).
    (spec: effects.authorizer)
    """

    allowed: bool = attrs.field(validator=_typed(bool))
    reason: str = attrs.field(validator=_typed(str))

    @classmethod
    def deny(cls, reason: str) -> Decision:
        """A refusal with ``reason``."""
        return cls(allowed=False, reason=reason)


#: The shared "allowed" verdict (returning it allocates nothing on the hot path).
ALLOW = Decision(allowed=True, reason="allowed")
