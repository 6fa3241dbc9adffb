"""R9 middleware for the governed effect route (see ``spec/effects.md``)."""

from loom_ref.effects.middleware.base import (
    DeltaGuardFactory,
    Middleware,
    Next,
    delta_guard_of,
    inspects_output,
)
from loom_ref.effects.middleware.envelope import EnvelopeMiddleware
from loom_ref.effects.middleware.rate_limit import RateLimitMiddleware
from loom_ref.effects.middleware.redaction import (
    RedactionMiddleware,
    pattern_redactor,
    redaction_middleware,
)
from loom_ref.effects.middleware.retry import (
    NEVER_RETRIED,
    RetryMiddleware,
    backoff_delay,
    jitter_fraction,
)
from loom_ref.effects.middleware.safety import (
    SafetyMiddleware,
    StreamBudgetMiddleware,
    output_texts,
    safety_middleware,
    stream_budget_middleware,
)

__all__ = [
    "NEVER_RETRIED",
    "DeltaGuardFactory",
    "EnvelopeMiddleware",
    "Middleware",
    "Next",
    "RateLimitMiddleware",
    "RedactionMiddleware",
    "RetryMiddleware",
    "SafetyMiddleware",
    "StreamBudgetMiddleware",
    "backoff_delay",
    "delta_guard_of",
    "inspects_output",
    "jitter_fraction",
    "output_texts",
    "pattern_redactor",
    "redaction_middleware",
    "safety_middleware",
    "stream_budget_middleware",
]
