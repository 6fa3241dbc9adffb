"""Token accounting for one model call.

Rules (``spec/stream.md`` § TokenUsage):

- Counts are **disjoint** (seed 001: "``inputTokens`` is uncached input only; cached input is
  reported separately, and billed input is the sum of the three"). (spec: stream.usage.disjoint)
- ``output_tokens`` is every output token, reasoning included; ``reasoning_tokens`` is a
  breakdown of it, never an addition, as dsh-llm's DeepSeek adapter reports it
  (spec: stream.usage.reasoning-breakdown).
- Every count is a non-negative integer; an optional count that the provider did not report
  is ``None``, never ``0`` ("missing is absent, never zero"). (spec: stream.usage.absent-not-zero)
"""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.errors import InvalidArgument

__all__ = ["TokenUsage"]


def _count(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None and attribute.default is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(
            f"TokenUsage.{attribute.name} must be a non-negative int, got {value!r}"
        )


@attrs.frozen(kw_only=True)
class TokenUsage:
    """Per-call token counts (seed 001 ``TokenUsage``), disjoint by construction.

    spec: stream.usage.disjoint — ``input_tokens`` is uncached input only; cache reads and
    writes are separate; :attr:`billed_input_tokens` is the sum of the three.
    """

    input_tokens: int = attrs.field(validator=_count)
    output_tokens: int = attrs.field(validator=_count)
    cache_read_tokens: int | None = attrs.field(default=None, validator=_count)
    cache_write_tokens: int | None = attrs.field(default=None, validator=_count)
    reasoning_tokens: int | None = attrs.field(default=None, validator=_count)

    @property
    def billed_input_tokens(self) -> int:
        """Uncached input plus cache reads plus cache writes (seed 001)."""
        return self.input_tokens + (self.cache_read_tokens or 0) + (self.cache_write_tokens or 0)

    @property
    def billed_output_tokens(self) -> int:
        """Every output token: ``output_tokens``, which already holds the reasoning
        (spec: stream.usage.reasoning-breakdown)."""
        return self.output_tokens

    @property
    def billed_tokens(self) -> int:
        """What the call spent, each token once: billed input plus billed output
        (spec: stream.usage.disjoint)."""
        return self.billed_input_tokens + self.output_tokens
