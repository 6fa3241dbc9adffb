"""The adapter-contract rules, as data: one row per rule, its id equal to its spec anchor.

Rules (``spec/stream.md`` § The contract checker): every rule the checker enforces has a stable
id, and that id is the rule's anchor in the spec chapter, so a violation names the exact
sentence it breaks. A test keeps this table and the chapter's anchors in step.
"""

from __future__ import annotations

from loom_ref.enums import LoomEnum

__all__ = ["RULE_SUMMARIES", "Rule"]


class Rule(LoomEnum):
    """A contract rule; ``value`` is its id and spec anchor (spec: stream.errors.rule-codes)."""

    USAGE_BEFORE_FINISH = "stream.usage-before-finish"
    SINGLE_USAGE = "stream.single-usage"
    SINGLE_FINISH = "stream.single-finish"
    NOTHING_AFTER_FINISH = "stream.nothing-after-finish"
    INDEX_NON_NEGATIVE_INTEGER = "stream.index-non-negative-integer"
    BLOCK_START_UNIQUE = "stream.block-start-unique"
    BLOCK_START_AFTER_END = "stream.block-start-after-end"
    DELTA_TARGETS_OPEN_BLOCK = "stream.delta-targets-open-block"
    BLOCK_END_CLOSES_OPEN_BLOCK = "stream.block-end-closes-open-block"
    OPEN_BLOCKS_AT_FINISH = "stream.open-blocks-at-finish"
    TOOL_ARGUMENTS_RAW_JSON = "stream.tool-arguments-raw-json"
    TOOL_CALL_IDENTITY_STABLE = "stream.tool-call-identity-stable"


RULE_SUMMARIES: dict[Rule, str] = {
    Rule.USAGE_BEFORE_FINISH: "a usage chunk MUST come before the finish chunk",
    Rule.SINGLE_USAGE: "a stream MUST carry at most one usage chunk",
    Rule.SINGLE_FINISH: "a stream MUST end with exactly one finish chunk",
    Rule.NOTHING_AFTER_FINISH: "no chunk MAY follow the finish chunk",
    Rule.INDEX_NON_NEGATIVE_INTEGER: "a block index MUST be a non-negative integer",
    Rule.BLOCK_START_UNIQUE: "a block index MUST NOT be started again while it is open",
    Rule.BLOCK_START_AFTER_END: "a block index MUST NOT be started again after its block-end",
    Rule.DELTA_TARGETS_OPEN_BLOCK: "a delta MUST target an open block of its own type",
    Rule.BLOCK_END_CLOSES_OPEN_BLOCK: "a block-end MUST close an open block of the same type",
    Rule.OPEN_BLOCKS_AT_FINISH: "blocks MAY be open at finish only for error or aborted",
    Rule.TOOL_ARGUMENTS_RAW_JSON: "tool-call arguments MUST stay raw JSON strings",
    Rule.TOOL_CALL_IDENTITY_STABLE: "a tool-call block's id and name MUST NOT change",
}
