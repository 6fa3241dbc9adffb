"""The tools an agent may call, and what a tool call puts back into the transcript.

Spec: ``spec/agent.md`` § Tool calls.

- ``agent.tool-spec``: each tool is offered to the model as ``{"name", "description",
  "parameters"}`` (its JSON Schema), in the order configured; a tool runs as the effect
  ``tool_id`` (default: its name).
- ``agent.tool-result``: a tool's result reaches the model JSON-stringified as ``{"tool":
  <name>, "result": <result>}`` (ADR 0087 amendment 2026-09-27: ``{"tool":…,"result":…}``):
  ``"tool"`` first, then ``"result"``, each value in canonical JSON (``agent.canonical-json``:
  compact, sorted keys, non-ASCII as is). **loom-ref choice:** sorted keys instead of
  ``JSON.stringify``'s insertion order, so any implementation produces the same bytes from
  the journaled value. A claim-check envelope is stringified as-is (canonically).
- ``agent.tool-refusal``: a declined approval reaches the model as an ordinary (not error)
  tool result ``{"tool": <name>, "result": {"refused": true, "reason": <reason>}}`` (ADR 0087
  D4: "a refusal is data").
- ``agent.tool-error``: a tool call that cannot or did not run to a result -- an unknown tool
  name (``agent.unknown-tool``), arguments that are not a JSON object
  (``agent.tool-arguments``), a call beyond ``max_tool_calls_per_turn``
  (``agent.tool-call-limit``), or a step that failed (its journaled code) -- reaches the model
  as an *error* tool result ``{"tool": <name>, "error": {"code", "message"}}`` with
  ``isError: true``, and the loop carries on (**loom-ref choice**: the seed does not say; a
  model can recover from a failed tool, and a crash is still a crash).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from loom_ref.agent.canonical import canonical_bytes, canonical_json
from loom_ref.errors import InvalidArgument

__all__ = [
    "TOOL_ARGUMENTS",
    "TOOL_CALL_LIMIT",
    "UNKNOWN_TOOL",
    "AgentTool",
    "refusal_content",
    "tool_error_content",
    "tool_result_content",
]

UNKNOWN_TOOL = "agent.unknown-tool"
TOOL_ARGUMENTS = "agent.tool-arguments"
TOOL_CALL_LIMIT = "agent.tool-call-limit"

def _name(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"AgentTool.{attr.name} must be a non-empty string, got {value!r}")


def _tool_id_default(inst: Any) -> str:
    return str(inst.name)


def _description(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"AgentTool.description must be a string, got {value!r}")


def _parameters(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, Mapping):
        raise InvalidArgument("AgentTool.parameters must be a JSON Schema object")


@attrs.frozen(kw_only=True)
class AgentTool:
    """A tool the model may call (spec: agent.tool-spec)."""

    name: str = attrs.field(validator=_name)
    tool_id: str = attrs.field(default=attrs.Factory(_tool_id_default, takes_self=True),
                               validator=_name)
    description: str = attrs.field(default="", validator=_description)
    parameters: Mapping[str, Any] = attrs.field(factory=dict, validator=_parameters)

    def to_json(self) -> dict[str, Any]:
        """What the model is offered."""
        return {"name": self.name, "description": self.description,
                "parameters": dict(self.parameters)}


def tool_result_content(name: str, result: Any) -> str:
    """``{"tool": name, "result": result}``, stringified with no whitespace: ``{"tool":`` +
    canonical(name) + ``,"result":`` + canonical(result) + ``}`` (spec: agent.tool-result).
    The content is UTF-8 text, so a value with no canonical JSON (a string holding a lone
    surrogate) is ``argument.invalid`` (spec: agent.canonical-json)."""
    return (b'{"tool":' + canonical_bytes(name) + b',"result":' + canonical_bytes(result)
            + b"}").decode("utf-8")



def refusal_content(name: str, reason: str) -> str:
    """A declined approval as a tool result (spec: agent.tool-refusal)."""
    return tool_result_content(name, {"refused": True, "reason": reason})


def tool_error_content(name: str, code: str, message: str) -> str:
    """An error tool result (spec: agent.tool-error)."""
    error = canonical_json({"code": code, "message": message})
    return f'{{"tool":{canonical_json(name)},"error":{error}}}'
