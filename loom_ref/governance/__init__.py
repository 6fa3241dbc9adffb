"""The governance layer: taint, safety validators and delta guards (``spec/governance.md``).

Pure and synchronous: nothing here runs an effect. The effect runtime wires these pieces in:

- ``guard_request(request)`` before a call leaves (spec: taint.guard-request); deltas handed to
  sinks are ``taint(text, f"llm:{tool_id}")`` (spec: taint.tainted-value).
- ``validator.check_input`` / ``check_output`` around ``next()`` in a safety middleware.
- ``has_delta_form(validator)`` to decide whether an output-inspecting middleware lets the call
  stream (spec: validators.fail-closed).
- One ``RunningTextGuard`` (plus ``stream_token_budget``) per attempt, chained with
  ``GuardChain``: ``check(delta)`` before delivering each delta, ``reset()`` when attempt n > 1
  begins (spec: guards.before-delivery, guards.reset); the chain severs as a whole
  (spec: guards.chain-sever). ``HoldBackGuard`` is an opt-in extension (spec:
  guards.hold-back); a budget goes in its ``after``.
"""

from loom_ref.governance.budget import (
    StreamTokenBudgetGuard,
    approx_token_count,
    stream_token_budget,
)
from loom_ref.governance.deny import deny_patterns
from loom_ref.governance.errors import (
    DeltaSevered,
    GuardStateError,
    NotTaintedError,
    SafetyViolation,
    StreamTokenBudgetExceeded,
    TaintedRequestError,
)
from loom_ref.governance.guards import (
    DEFAULT_WINDOW,
    DeltaGuard,
    GuardChain,
    RunningTextGuard,
    StagedGuard,
)
from loom_ref.governance.holdback import HoldBackGuard, hold_back_width
from loom_ref.governance.lifecycle import GuardEvent, GuardState
from loom_ref.governance.pii import pii_rules, pii_validator
from loom_ref.governance.rules import PatternRule, compile_rule, luhn_ok
from loom_ref.governance.taint import (
    TaintedValue,
    guard_request,
    is_tainted,
    taint,
    unwrap_tainted,
)
from loom_ref.governance.validators import (
    PatternScan,
    Phase,
    SafetyValidator,
    has_delta_form,
    pattern_validator,
)
from loom_ref.governance.vectors import VECTOR_FUNCTIONS

__all__ = [
    "DEFAULT_WINDOW",
    "VECTOR_FUNCTIONS",
    "DeltaGuard",
    "DeltaSevered",
    "GuardChain",
    "GuardEvent",
    "GuardState",
    "GuardStateError",
    "HoldBackGuard",
    "NotTaintedError",
    "PatternRule",
    "PatternScan",
    "Phase",
    "RunningTextGuard",
    "SafetyValidator",
    "SafetyViolation",
    "StagedGuard",
    "StreamTokenBudgetExceeded",
    "StreamTokenBudgetGuard",
    "TaintedRequestError",
    "TaintedValue",
    "approx_token_count",
    "compile_rule",
    "deny_patterns",
    "guard_request",
    "has_delta_form",
    "hold_back_width",
    "is_tainted",
    "luhn_ok",
    "pattern_validator",
    "pii_rules",
    "pii_validator",
    "stream_token_budget",
    "taint",
    "unwrap_tainted",
]
