"""The effect runtime: the governed route every effect call takes (``spec/effects.md``).

Public names only; each lives in its own module.
"""

from loom_ref.effects.authorizer import AllowAll, Authorizer, Grant, GrantAuthorizer
from loom_ref.effects.call import DeltaSink, EffectCall, Mode
from loom_ref.effects.clock import Clock, ManualClock
from loom_ref.effects.collect import LLM_ABORTED, LLM_ERROR, LlmStreamFailed, collect_stream
from loom_ref.effects.context import DeltaWriter, EffectContext
from loom_ref.effects.decision import ALLOW, Decision
from loom_ref.effects.deltas import (
    SILENT,
    SINK_RAISED,
    DeltaChannel,
    DirectWriter,
    EffectDelta,
    SilentChannel,
    delta_origin,
    delta_to_json,
)
from loom_ref.effects.effect import ALL_MODES, Effect, ExecuteFn
from loom_ref.effects.errors import (
    AbortedError,
    EffectDenied,
    EffectKilled,
    EffectRefusal,
    ModeRefused,
    OverBudget,
    RateLimited,
    UnknownEffectError,
)
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.llm_effect import (
    create_llm_effect,
    llm_output_from_json,
    llm_output_to_json,
    llm_request,
)
from loom_ref.effects.metering import BudgetMeter, Meter, MeterRecord
from loom_ref.effects.middleware import (
    NEVER_RETRIED,
    DeltaGuardFactory,
    EnvelopeMiddleware,
    Middleware,
    Next,
    RateLimitMiddleware,
    RedactionMiddleware,
    RetryMiddleware,
    SafetyMiddleware,
    StreamBudgetMiddleware,
    backoff_delay,
    jitter_fraction,
    output_texts,
    pattern_redactor,
    redaction_middleware,
    safety_middleware,
    stream_budget_middleware,
)
from loom_ref.effects.recorder import DeltaRecorder, TapeKind, TapeRecord
from loom_ref.effects.runtime import STREAMING_DISABLED, EffectRuntime
from loom_ref.effects.scope import SCOPE_CLOSED, DecideScope, TransientHost
from loom_ref.effects.vectors import VECTOR_FUNCTIONS
from loom_ref.signals import NEVER, CompositeSignal, Signal, any_of

__all__ = [
    "ALLOW",
    "ALL_MODES",
    "LLM_ABORTED",
    "LLM_ERROR",
    "NEVER",
    "NEVER_RETRIED",
    "SCOPE_CLOSED",
    "SILENT",
    "SINK_RAISED",
    "STREAMING_DISABLED",
    "VECTOR_FUNCTIONS",
    "AbortedError",
    "AllowAll",
    "Authorizer",
    "BudgetMeter",
    "Clock",
    "CompositeSignal",
    "DecideScope",
    "Decision",
    "DeltaChannel",
    "DeltaGuardFactory",
    "DeltaRecorder",
    "DeltaSink",
    "DeltaWriter",
    "DirectWriter",
    "Effect",
    "EffectCall",
    "EffectContext",
    "EffectDelta",
    "EffectDenied",
    "EffectKilled",
    "EffectRefusal",
    "EffectRuntime",
    "EnvelopeMiddleware",
    "ExecuteFn",
    "Grant",
    "GrantAuthorizer",
    "KillSwitch",
    "LlmStreamFailed",
    "ManualClock",
    "Meter",
    "MeterRecord",
    "Middleware",
    "Mode",
    "ModeRefused",
    "Next",
    "OverBudget",
    "RateLimitMiddleware",
    "RateLimited",
    "RedactionMiddleware",
    "RetryMiddleware",
    "SafetyMiddleware",
    "Signal",
    "SilentChannel",
    "StreamBudgetMiddleware",
    "TapeKind",
    "TapeRecord",
    "TransientHost",
    "UnknownEffectError",
    "any_of",
    "backoff_delay",
    "collect_stream",
    "create_llm_effect",
    "delta_origin",
    "delta_to_json",
    "jitter_fraction",
    "llm_output_from_json",
    "llm_output_to_json",
    "llm_request",
    "output_texts",
    "pattern_redactor",
    "redaction_middleware",
    "safety_middleware",
    "stream_budget_middleware",
]
