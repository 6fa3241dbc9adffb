"""Compaction: when a transcript folds, and how much of it is kept. Pure decision functions.

Spec: ``spec/agent.md`` § Compaction; ADR 0087 D6 and the amendments of 2026-09-27 and
2026-10-31. The rules, in the order :func:`compaction_plan` applies them:

- ``agent.compaction-guard``: a compaction block needs ``after_messages``, ``after_bytes`` or
  both (*"At least one of afterMessages / afterBytes is required; the constructor throws if
  neither is set"*), and ``keep_recent >= 1``; with ``after_messages``, ``keep_recent`` must
  be below it (else the count rule could never fold anything). The default ``keep_recent``
  is 8, lowered to ``after_messages - 1`` when that is smaller (**loom-ref choice**: the seed
  does not give a number).
- ``agent.compaction-trigger``: before turn ``i``'s model call, the transcript is compacted
  when its message count exceeds ``after_messages`` or its byte count
  (``agent.byte-count``) exceeds ``after_bytes``. Neither crossed: nothing happens.
- ``agent.kept-suffix-bytes``: when ``after_bytes`` is crossed, the kept suffix is *"the
  longest run of the newest messages whose bytes total at most afterBytes / 2, floored at 1
  (the newest message always reaches the model) and capped at keepRecent"*. This rule wins
  when both thresholds are crossed: its suffix is never longer than ``keep_recent``, so it
  folds at least as much as the count rule would.
- ``agent.kept-suffix-messages``: when only ``after_messages`` is crossed, the newest
  ``keep_recent`` messages are kept.
- ``agent.compaction-skip``: *"If that suffix already covers the whole transcript -- one
  message alone is over the threshold -- compaction is skipped for that turn rather than
  paying a summary call that folds nothing."*
- ``agent.compaction-pure``: the plan is a function of the message sizes and the config
  only, never of a clock or the process: *"it recomputes identically on replay"*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from loom_ref.agent.errors import CompactionConfigError
from loom_ref.errors import InvalidArgument

__all__ = ["DEFAULT_KEEP_RECENT", "Compaction", "CompactionPlan", "compaction_plan",
           "kept_suffix_for_bytes"]

#: loom-ref's default ``keep_recent`` (the seed leaves the number open).
DEFAULT_KEEP_RECENT = 8


def _positive_or_none(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise CompactionConfigError(f"{attr.name} must be an int >= 1 or None, got {value!r}")


def _tool_id(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise CompactionConfigError(f"compaction tool_id must be a non-empty string, got "
                                    f"{value!r}")


def _default_keep(inst: Any) -> int:
    """``DEFAULT_KEEP_RECENT``, lowered to ``after_messages - 1`` when that is smaller."""
    after = inst.after_messages
    if not isinstance(after, int):  # None, or a bad value its validator refuses
        return DEFAULT_KEEP_RECENT
    return min(DEFAULT_KEEP_RECENT, after - 1)


@attrs.frozen(kw_only=True)
class Compaction:
    """The compaction block of an agent loop config: the recorded summary step runs
    ``tool_id`` (ADR 0087 D6: *"the per-turn summarize pass runs through ctx.execute against a
    compaction.toolId"*) (spec: agent.compaction-guard)."""

    tool_id: str = attrs.field(validator=_tool_id)
    after_messages: int | None = attrs.field(default=None, validator=_positive_or_none)
    after_bytes: int | None = attrs.field(default=None, validator=_positive_or_none)
    keep_recent: int = attrs.field(default=attrs.Factory(_default_keep, takes_self=True))

    def __attrs_post_init__(self) -> None:
        # spec: agent.compaction-guard
        if self.after_messages is None and self.after_bytes is None:
            raise CompactionConfigError(
                "compaction needs after_messages, after_bytes or both (neither is set)")
        keep = self.keep_recent
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise CompactionConfigError(f"keep_recent must be an int >= 1, got {keep!r}")
        if self.after_messages is not None and keep >= self.after_messages:
            raise CompactionConfigError(
                f"keep_recent ({keep}) must be below after_messages ({self.after_messages})")


@attrs.frozen(kw_only=True)
class CompactionPlan:
    """What to do before a turn: ``compact`` (fold the oldest ``fold`` messages, keep the
    newest ``keep``), the ``reason`` (``"bytes"``, ``"messages"`` or ``None`` when no
    threshold was crossed), and ``skipped`` when a threshold was crossed but the kept suffix
    covers the whole transcript (spec: agent.compaction-trigger)."""

    compact: bool
    reason: str | None
    keep: int
    fold: int
    skipped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"compact": self.compact, "reason": self.reason, "keep": self.keep,
                "fold": self.fold, "skipped": self.skipped}


def _count(value: object, name: str, least: int) -> None:
    """spec: errors.invalid-argument -- ``value`` is an int (not a bool) >= ``least``."""
    if type(value) is not int or value < least:
        raise InvalidArgument(f"{name} must be an int >= {least}, got {value!r}")


def _sizes(sizes: object) -> None:
    if isinstance(sizes, str | bytes) or not isinstance(sizes, Sequence):
        raise InvalidArgument(f"sizes must be a sequence of ints, got {type(sizes).__name__}")


def kept_suffix_for_bytes(sizes: Sequence[int], after_bytes: int, keep_recent: int) -> int:
    """The byte rule's kept suffix (spec: agent.kept-suffix-bytes): the longest run of the
    newest messages whose sizes total at most ``after_bytes / 2``, floored at 1 and capped at
    ``keep_recent``. Reads at most ``keep_recent`` sizes (and checks only those it reads)."""
    _sizes(sizes)
    _count(after_bytes, "after_bytes", 1)
    _count(keep_recent, "keep_recent", 1)
    total = 0
    keep = 0
    for size in reversed(sizes):
        if keep >= keep_recent:
            break
        _count(size, "a size", 0)
        if 2 * (total + size) > after_bytes:  # exact: no float halving
            break
        total += size
        keep += 1
    return max(1, keep) if sizes else 0


def compaction_plan(sizes: Sequence[int], total_bytes: int, *, after_messages: int | None,
                    after_bytes: int | None, keep_recent: int) -> CompactionPlan:
    """Decide whether the transcript of message ``sizes`` (total ``total_bytes``) folds now
    (see the module rules; spec: agent.compaction-trigger, agent.compaction-skip)."""
    _sizes(sizes)
    _count(total_bytes, "total_bytes", 0)
    if after_messages is not None:
        _count(after_messages, "after_messages", 1)
    if after_bytes is not None:
        _count(after_bytes, "after_bytes", 1)
    _count(keep_recent, "keep_recent", 1)
    n = len(sizes)
    by_messages = after_messages is not None and n > after_messages
    by_bytes = after_bytes is not None and total_bytes > after_bytes
    if not (by_messages or by_bytes):
        return CompactionPlan(compact=False, reason=None, keep=n, fold=0)
    if by_bytes:
        assert after_bytes is not None
        reason = "bytes"
        keep = kept_suffix_for_bytes(sizes, after_bytes, keep_recent)
    else:
        reason = "messages"
        keep = min(keep_recent, n)
    if keep >= n:  # spec: agent.compaction-skip
        return CompactionPlan(compact=False, reason=reason, keep=n, fold=0, skipped=True)
    return CompactionPlan(compact=True, reason=reason, keep=keep, fold=n - keep)
