"""The typed refusals of the governed effect route, each with a stable code.

Spec: ``spec/effects.md``. Rules enforced through these types:

- ``effects.refusal-codes``: each stage of the route refuses with its own error class and
  stable code: ``effect.denied`` (authorizer), ``effect.rate-limited`` (rate-limit
  middleware), ``effect.mode-refused`` (mode check), ``effect.over-budget`` (metering
  admission), ``effect.killed`` (kill switch), ``effect.aborted`` (signal).
- ``effects.refusal-never-retried``: every refusal subclasses :class:`EffectRefusal`, and the
  retry middleware never retries an :class:`EffectRefusal`.
- ``effects.unknown-tool``: a call to a tool id nobody registered fails with
  :class:`UnknownEffectError` (``effect.unknown-tool``) before the route starts. The kernel's
  plain ``EffectRegistry`` raises the same error, so the code does not depend on the host.
"""

from __future__ import annotations

from loom_ref.errors import EffectError

__all__ = [
    "EffectDenied",
    "EffectKilled",
    "EffectRefusal",
    "ModeRefused",
    "OverBudget",
    "RateLimited",
    "UnknownEffectError",
]


class EffectRefusal(EffectError):
    """A stage of the route refused the call; the effect was not invoked by this attempt.

    spec: effects.refusal-never-retried -- "A refusal MUST NOT be retried."
    """

    code = "effect.refused"


class EffectDenied(EffectRefusal):
    """The authorizer (K2) refused the (principal, tool id, mode) triple; the message is the
    authorizer's reason and the details name the triple, loom-ref's choice.
    (spec: effects.refusal-codes, effects.denied-details)
    """

    code = "effect.denied"


class RateLimited(EffectRefusal):
    """The rate-limit middleware found no token in the bucket for this call.
    (spec: effects.refusal-codes)
    """

    code = "effect.rate-limited"


class EffectKilled(EffectRefusal):
    """The kill switch is engaged, globally or for this tool id (spec: effects.refusal-codes)."""

    code = "effect.killed"


class OverBudget(EffectRefusal):
    """Metering admission found that the budget cannot cover the call.
    (spec: effects.refusal-codes)
    """

    code = "effect.over-budget"


class ModeRefused(EffectRefusal):
    """The effect does not allow the mode (durable / transient) the call came through.
    (spec: effects.refusal-codes)
    """

    code = "effect.mode-refused"


class UnknownEffectError(EffectError):
    """No effect is registered under the requested tool id (``effects.unknown-tool``)."""

    code = "effect.unknown-tool"


class AbortedError(EffectRefusal):
    """A call was refused or severed because its signal aborted; ``reason`` is the abort
    reason (ADR 0119 decision 8: "An abort mid-stream rejects the call with the abort
    reason") (spec: effects.refusal-codes)."""

    code = "effect.aborted"

    def __init__(self, reason: object) -> None:
        super().__init__(f"aborted: {reason}", reason=reason)
        self.reason = reason
