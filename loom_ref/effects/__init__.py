"""The effect runtime: the governed route every effect call takes (``spec/effects.md``).

Public names only; each lives in its own module.
"""

from loom_ref.effects.authorizer import AllowAll, Authorizer, Grant, GrantAuthorizer
from loom_ref.effects.call import DeltaSink, EffectCall, Mode
from loom_ref.effects.clock import Clock, ManualClock
from loom_ref.effects.context import EffectContext
from loom_ref.effects.decision import ALLOW, Decision
from loom_ref.effects.effect import ALL_MODES, Effect, Execute
from loom_ref.effects.errors import (
    EffectDenied,
    EffectKilled,
    EffectRefusal,
    ModeRefused,
    OverBudget,
    RateLimited,
    UnknownEffectError,
)
from loom_ref.effects.kill_switch import KillSwitch
from loom_ref.effects.metering import BudgetMeter, Meter, MeterRecord
from loom_ref.effects.middleware import (
    NEVER_RETRIED,
    DeltaGuard,
    DeltaGuardFactory,
    EnvelopeMiddleware,
    Middleware,
    Next,
    RateLimitMiddleware,
    RetryMiddleware,
    backoff_delay,
    jitter_fraction,
)
from loom_ref.effects.runtime import STREAMING_DISABLED, EffectRuntime
from loom_ref.effects.scope import SCOPE_CLOSED, DecideScope, TransientHost
from loom_ref.effects.signal import NEVER, AbortedError, CompositeSignal, Signal, any_of

__all__ = [
    "ALLOW",
    "ALL_MODES",
    "NEVER",
    "NEVER_RETRIED",
    "SCOPE_CLOSED",
    "STREAMING_DISABLED",
    "AbortedError",
    "AllowAll",
    "Authorizer",
    "BudgetMeter",
    "Clock",
    "CompositeSignal",
    "DecideScope",
    "Decision",
    "DeltaGuard",
    "DeltaGuardFactory",
    "DeltaSink",
    "Effect",
    "EffectCall",
    "EffectContext",
    "EffectDenied",
    "EffectKilled",
    "EffectRefusal",
    "EffectRuntime",
    "EnvelopeMiddleware",
    "Execute",
    "Grant",
    "GrantAuthorizer",
    "KillSwitch",
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
    "RetryMiddleware",
    "Signal",
    "TransientHost",
    "UnknownEffectError",
    "any_of",
    "backoff_delay",
    "jitter_fraction",
]
