"""The agent loop's configuration, checked in full when it is built.

Spec: ``spec/agent.md`` § Configuration.

- ``agent.model-access``: exactly one of ``model_tool_id`` (the model call is a durable step
  through the effect host) and ``router`` (routed access, :mod:`loom_ref.agent.router`) is
  required. None, or both, raises :class:`~loom_ref.agent.errors.ModelAccessError` when the
  config is built -- ADR 0087 D6: *"an absent model access is refused up front rather than
  running zero turns and returning an empty answer."*
- ``agent.max-iterations``: at most ``max_iterations`` turns per run (a routed turn with its
  elevations is one); a run
  that would need another ends with ``agent.max-iterations``.
- ``agent.compaction-guard`` is enforced by :class:`~loom_ref.agent.compaction.Compaction`.
- ``agent.warn-transcript``: ``warn_transcript_bytes`` (default 256 KiB; ``False`` disables)
  -- see :mod:`loom_ref.agent.loop`. ``on_warn`` receives the one-line warning; default:
  Python's ``warnings`` with ``loom_ref.LoomWarning`` (spec: errors.warning-category).
- ``agent.config-guard``: tool names are unique; every bound is an int >= 1; callables are
  callable. A bad value is ``InvalidArgument`` at construction, never a failure inside a run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from loom_ref.agent.approval import APPROVAL_ON
from loom_ref.agent.choices import Recall, Skills
from loom_ref.agent.compaction import Compaction
from loom_ref.agent.errors import ModelAccessError
from loom_ref.agent.identity import approval_gate_id
from loom_ref.agent.router import Router
from loom_ref.agent.tools import AgentTool
from loom_ref.errors import InvalidArgument
from loom_ref.schema import check_schema
from loom_ref.stream.blocks import ToolCallBlock

__all__ = ["DEFAULT_WARN_TRANSCRIPT_BYTES", "AgentLoopConfig", "NeedsApproval"]

#: ADR 0087 amendment 2026-10-31: "warnTranscriptBytes (default 256 KiB; false disables)".
DEFAULT_WARN_TRANSCRIPT_BYTES = 256 * 1024

#: ``needs_approval(tool_call, turn) -> bool`` (ADR 0087 D4).
NeedsApproval = Callable[[ToolCallBlock, int], bool]


def _bound(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{attr.name} must be an int >= 1, got {value!r}")


def _opt_bound(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None:
        _bound(inst, attr, value)


def _opt_callable(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not callable(value):
        raise InvalidArgument(f"{attr.name} must be callable or None")


def _opt_tool_id(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ModelAccessError(f"{attr.name} must be a non-empty string or None, got {value!r}")


def _tools(value: Any) -> tuple[AgentTool, ...]:
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        raise InvalidArgument("tools must be a sequence of AgentTool")
    tools = tuple(value)
    if not all(isinstance(t, AgentTool) for t in tools):
        raise InvalidArgument("tools must be a sequence of AgentTool")
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"tool names must be unique, got {names}")
    return tools


def _warn_bytes(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is False:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"warn_transcript_bytes must be an int >= 1 or False, got {value!r}")


def _instance(kind: type) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    def check(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
        if value is not None and not isinstance(value, kind):
            raise InvalidArgument(f"{attr.name} must be a {kind.__name__} or None")

    return check


def _opt_schema(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None:
        check_schema(value, where=attr.name)  # argument.schema, as ctx.suspend refuses it


def _str(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"{attr.name} must be a string, got {value!r}")


@attrs.frozen(kw_only=True)
class AgentLoopConfig:
    """Everything :func:`~loom_ref.agent.loop.agent_loop` needs (spec: agent.config-guard,
    agent.model-access; see the module rules)."""

    model_tool_id: str | None = attrs.field(default=None, validator=_opt_tool_id)
    router: Router | None = attrs.field(default=None)
    system: str = attrs.field(default="", validator=_str)
    tools: tuple[AgentTool, ...] = attrs.field(default=(), converter=_tools)
    max_iterations: int = attrs.field(default=25, validator=_bound)
    max_tool_calls_per_turn: int = attrs.field(default=16, validator=_bound)
    needs_approval: NeedsApproval | None = attrs.field(default=None, validator=_opt_callable)
    approval_gate: Callable[[str], str] = attrs.field(default=approval_gate_id,
                                                      validator=_opt_callable)
    approval_on: str = attrs.field(default=APPROVAL_ON, validator=_str)
    #: The schema every approval gate carries (``ctx.suspend(..., resume_schema=...)``),
    #: e.g. ``APPROVAL_RESUME_SCHEMA``; ``None``: untyped, read fail-closed
    #: (spec: agent.approval-payload).
    approval_resume_schema: Mapping[str, Any] | None = attrs.field(default=None,
                                                                   validator=_opt_schema)
    compaction: Compaction | None = attrs.field(default=None,
                                                validator=_instance(Compaction))
    warn_transcript_bytes: int | Literal[False] = attrs.field(
        default=DEFAULT_WARN_TRANSCRIPT_BYTES, validator=_warn_bytes)
    on_warn: Callable[[str], None] | None = attrs.field(default=None, validator=_opt_callable)
    skills: Skills | None = attrs.field(default=None, validator=_instance(Skills))
    recall: Recall | None = attrs.field(default=None, validator=_instance(Recall))
    stream_min_chars: int | None = attrs.field(default=None, validator=_opt_bound)

    def __attrs_post_init__(self) -> None:
        # spec: agent.model-access -- refused up front, before any turn runs
        if (self.model_tool_id is None) == (self.router is None):
            which = "neither" if self.router is None else "both"
            raise ModelAccessError(
                f"an agent loop needs exactly one of model_tool_id and router ({which} given)")
        if self.router is not None and not callable(getattr(self.router, "reason", None)):
            raise ModelAccessError("router must have reason(decide, request)")
        if self.approval_gate is None:
            raise InvalidArgument("approval_gate must be callable")

    def tool(self, name: str) -> AgentTool | None:
        """The configured tool called ``name``, if any."""
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None
