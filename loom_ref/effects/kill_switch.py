"""The kill switch: a fixed route stage that refuses calls globally or per tool.

Spec: ``spec/effects.md`` (``effects.kill-switch``): *while the switch is engaged for a tool
(or globally), every attempt to call that tool MUST be refused with* ``effect.killed`` *before
the effect runs*. It is checked on every attempt (after metering admission, before the
signal), so engaging it between retries stops the next attempt, and the refusal is never
retried (``effects.refusal-never-retried``).

The switch is state shared by whoever operates it: ``kill`` / ``revive`` take effect on the
next attempt of any call, in flight or not. Checking an idle switch is one attribute read.
"""

from __future__ import annotations

from loom_ref.errors import InvalidArgument

__all__ = ["KillSwitch"]


def _check_tool_id(tool_id: object) -> str | None:
    """``tool_id`` if it is None (every tool) or a non-empty string, else InvalidArgument."""
    if tool_id is None or (isinstance(tool_id, str) and tool_id):
        return tool_id
    raise InvalidArgument(f"tool_id must be a non-empty string or None, got {tool_id!r}")


class KillSwitch:
    """Global and per-tool kill state, each with the reason given when it was engaged.
    (spec: effects.kill-switch)
    """

    __slots__ = ("_engaged", "_global", "_tools")

    def __init__(self) -> None:
        self._global: str | None = None
        self._tools: dict[str, str] = {}
        self._engaged = False

    def kill(self, reason: str, *, tool_id: str | None = None) -> None:
        """Engage the switch for ``tool_id``, or for every tool when ``tool_id`` is None."""
        if not isinstance(reason, str) or not reason:
            raise InvalidArgument(f"kill reason must be a non-empty string, got {reason!r}")
        tool = _check_tool_id(tool_id)
        if tool is None:
            self._global = reason
        else:
            self._tools[tool] = reason
        self._engaged = True

    def revive(self, *, tool_id: str | None = None) -> None:
        """Release the switch for ``tool_id``, or the global switch when ``tool_id`` is None
        (per-tool kills stay engaged until revived by name)."""
        tool = _check_tool_id(tool_id)
        if tool is None:
            self._global = None
        else:
            self._tools.pop(tool, None)
        self._engaged = self._global is not None or bool(self._tools)

    def check(self, tool_id: str) -> str | None:
        """The reason ``tool_id`` is killed, or ``None`` if it may run. An idle switch answers
        ``None`` without looking at ``tool_id`` (one attribute read)."""
        if not self._engaged:
            return None
        if not isinstance(tool_id, str):  # spec: errors.invalid-argument (past the idle read)
            raise InvalidArgument(f"tool_id must be a string, got {tool_id!r}")
        if self._global is not None:
            return self._global
        return self._tools.get(tool_id)

    def __repr__(self) -> str:
        return f"KillSwitch(global={self._global!r}, tools={self._tools!r})"
