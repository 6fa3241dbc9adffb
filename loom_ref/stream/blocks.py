"""Content blocks and messages: what a model's reply is made of once the stream is folded.

Rules (``spec/stream.md`` § Content blocks):

- A block is one of four closed variants, keyed by ``BlockType``: text, reasoning, tool-call,
  tool-result (seed 001, ``ContentBlockMap``). (spec: stream.blocks.closed)
- A tool call's ``arguments`` is the raw JSON *string* the model produced; nothing here parses
  it ("Tool-call ``arguments`` stay raw JSON strings end-to-end").
  (spec: stream.tool-arguments-raw-json)
  The field is deliberately not validated at construction, so that the contract checker can
  name the rule when an adapter hands back a parsed object.
- A ``Message`` is a role and an ordered tuple of blocks.

Every other field is validated at construction: a wrong type raises ``InvalidArgument``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.errors import InvalidArgument

__all__ = [
    "BLOCK_CLASSES",
    "BlockType",
    "ContentBlock",
    "Message",
    "ReasoningBlock",
    "Role",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
]


class BlockType(LoomEnum):
    """The closed set of content block kinds (seed 001 ``ContentBlockType``).
    (spec: stream.blocks.closed)
    """

    TEXT = "text"
    REASONING = "reasoning"
    TOOL_CALL = "tool-call"
    TOOL_RESULT = "tool-result"


class Role(LoomEnum):
    """Who a message is from (spec: stream.blocks.closed)."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


def _str_field(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{type(instance).__name__}.{attribute.name} must be a str, got {type(value).__name__}"
        )


def _bool_field(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(
            f"{type(instance).__name__}.{attribute.name} must be a bool, got {type(value).__name__}"
        )


@attrs.frozen(kw_only=True)
class TextBlock:
    """Visible text the model wrote (spec: stream.blocks.closed)."""

    type: ClassVar[BlockType] = BlockType.TEXT
    text: str = attrs.field(validator=_str_field)


@attrs.frozen(kw_only=True)
class ReasoningBlock:
    """The model's reasoning ("thinking") text, kept apart from the visible answer.
    (spec: stream.blocks.closed)
    """

    type: ClassVar[BlockType] = BlockType.REASONING
    text: str = attrs.field(validator=_str_field)


@attrs.frozen(kw_only=True)
class ToolCallBlock:
    """A request to call tool ``name`` with ``arguments``, a raw JSON string.

    spec: stream.tool-arguments-raw-json — "Tool-call ``arguments`` stay raw JSON strings
    end-to-end." ``arguments`` is not validated here; :func:`loom_ref.stream.check` reports a
    non-string as a violation of that rule.
    """

    type: ClassVar[BlockType] = BlockType.TOOL_CALL
    id: str = attrs.field(validator=_str_field)
    name: str = attrs.field(validator=_str_field)
    arguments: str


@attrs.frozen(kw_only=True)
class ToolResultBlock:
    """The result of tool call ``call_id``; ``is_error`` marks a failed call.
    (spec: stream.blocks.closed)
    """

    type: ClassVar[BlockType] = BlockType.TOOL_RESULT
    call_id: str = attrs.field(validator=_str_field)
    content: str = attrs.field(validator=_str_field)
    is_error: bool = attrs.field(default=False, validator=_bool_field)


ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock
"""The closed union of content blocks (seed 001 ``ContentBlockMap``)."""

BLOCK_CLASSES: tuple[type, ...] = (TextBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock)
"""The four block classes, for ``isinstance`` checks."""


def _content_field(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    for position, block in enumerate(value):
        if not isinstance(block, BLOCK_CLASSES):
            raise InvalidArgument(
                f"Message.content[{position}] must be a content block, got {type(block).__name__}"
            )


def _role_field(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, Role):
        raise InvalidArgument(f"Message.role must be a Role, got {type(value).__name__}")


def _to_tuple(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    raise InvalidArgument(
        f"Message.content must be a list or tuple of blocks, got {type(value).__name__}"
    )


@attrs.frozen(kw_only=True)
class Message:
    """One conversational turn: a ``role`` and its ordered ``content`` blocks.
    (spec: stream.blocks.closed)
    """

    role: Role = attrs.field(validator=_role_field)
    content: tuple[ContentBlock, ...] = attrs.field(converter=_to_tuple, validator=_content_field)
