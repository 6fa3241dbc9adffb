"""The property-testing kit: hypothesis strategies, checkers and pytest fixtures for custom
validators and implementations (``docs/validator-kit.md``), and the store kit: the journal
store contract as a pytest suite, the power-loss matrix and real process kills
(``docs/store-kit.md``).

Rules:

- ``import loom_ref`` never imports this kit, hypothesis or pytest (the runtime dependency is
  attrs only). This package itself imports nothing at import time: each name below is loaded
  on first use (PEP 562), so the pytest plugin (:mod:`loom_ref.testing.plugin`, loaded by every
  pytest run where loom_ref is installed) stays free of hypothesis.
- The hypothesis-based names (strategies and checkers) need hypothesis; without it their first
  use raises ``ImportError`` naming ``pip install hypothesis pytest``. The reconstruction
  helpers (``RecordingSink``, ``reconstruct``, ``check_reconstruction``) need neither.
- The store kit (``StoreContract``, ``StoreUnderTest``, ``check_power_loss``) needs pytest;
  the power-loss matrix and the kill test (``run_power_loss``, ``check_policy``,
  ``run_kills``) need neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loom_ref.testing.checkers import (
        GuardFactory,
        HoldBackFactory,
        SplitCase,
        SplitStrategy,
        ValidatorSource,
        check_delta_form,
        check_guard_never_leaks,
        check_hold_back_split,
        check_split,
        split_cases,
    )
    from loom_ref.testing.kills import KillReport, run_kills
    from loom_ref.testing.powerloss import (
        Action,
        PowerLossReport,
        PowerLossViolation,
        Scenario,
        StoreMaker,
        World,
        check_policy,
        run_power_loss,
    )
    from loom_ref.testing.reconstruction import (
        DeltaEvent,
        RecordingSink,
        check_reconstruction,
        normalize,
        reconstruct,
    )
    from loom_ref.testing.storekit import StoreContract, StoreUnderTest, check_power_loss
    from loom_ref.testing.strategies import (
        MUTATIONS,
        AttemptScript,
        GeneratedStream,
        PlantedText,
        RetrySchedule,
        ViolatingStream,
        crash_points,
        delta_splits,
        every_cut,
        finish_reasons,
        json_values,
        one_char_splits,
        planted_texts,
        retry_policies,
        retry_schedules,
        scenario_cases,
        split_at,
        split_deltas,
        splits,
        splits_around,
        strip_blocks,
        texts_from_pieces,
        token_usages,
        valid_streams,
        violating_streams,
    )
    from loom_ref.testing.workloads import KIT_SCENARIOS, KitScenario, kit_runtime

_CHECKERS = (
    "GuardFactory",
    "HoldBackFactory",
    "SplitCase",
    "SplitStrategy",
    "ValidatorSource",
    "check_delta_form",
    "check_guard_never_leaks",
    "check_hold_back_split",
    "check_split",
    "split_cases",
)
_RECONSTRUCTION = (
    "DeltaEvent",
    "RecordingSink",
    "check_reconstruction",
    "normalize",
    "reconstruct",
)
_STRATEGIES = (
    "MUTATIONS",
    "AttemptScript",
    "GeneratedStream",
    "PlantedText",
    "RetrySchedule",
    "ViolatingStream",
    "crash_points",
    "delta_splits",
    "every_cut",
    "finish_reasons",
    "json_values",
    "one_char_splits",
    "planted_texts",
    "retry_policies",
    "retry_schedules",
    "scenario_cases",
    "split_at",
    "split_deltas",
    "splits",
    "splits_around",
    "strip_blocks",
    "texts_from_pieces",
    "token_usages",
    "valid_streams",
    "violating_streams",
)
_STORES = {
    "KillReport": "loom_ref.testing.kills",
    "run_kills": "loom_ref.testing.kills",
    "Action": "loom_ref.testing.powerloss",
    "PowerLossReport": "loom_ref.testing.powerloss",
    "Scenario": "loom_ref.testing.powerloss",
    "StoreMaker": "loom_ref.testing.powerloss",
    "PowerLossViolation": "loom_ref.testing.powerloss",
    "World": "loom_ref.testing.powerloss",
    "check_policy": "loom_ref.testing.powerloss",
    "run_power_loss": "loom_ref.testing.powerloss",
    "StoreContract": "loom_ref.testing.storekit",
    "StoreUnderTest": "loom_ref.testing.storekit",
    "check_power_loss": "loom_ref.testing.storekit",
    "KIT_SCENARIOS": "loom_ref.testing.workloads",
    "KitScenario": "loom_ref.testing.workloads",
    "kit_runtime": "loom_ref.testing.workloads",
}
_HOME: dict[str, str] = {
    **_STORES,
    **dict.fromkeys(_CHECKERS, "loom_ref.testing.checkers"),
    **dict.fromkeys(_RECONSTRUCTION, "loom_ref.testing.reconstruction"),
    **dict.fromkeys(_STRATEGIES, "loom_ref.testing.strategies"),
}

__all__ = [
    "KIT_SCENARIOS",
    "MUTATIONS",
    "Action",
    "AttemptScript",
    "DeltaEvent",
    "GeneratedStream",
    "GuardFactory",
    "HoldBackFactory",
    "KillReport",
    "KitScenario",
    "PlantedText",
    "PowerLossReport",
    "PowerLossViolation",
    "RecordingSink",
    "RetrySchedule",
    "Scenario",
    "SplitCase",
    "SplitStrategy",
    "StoreContract",
    "StoreMaker",
    "StoreUnderTest",
    "ValidatorSource",
    "ViolatingStream",
    "World",
    "check_delta_form",
    "check_guard_never_leaks",
    "check_hold_back_split",
    "check_policy",
    "check_power_loss",
    "check_reconstruction",
    "check_split",
    "crash_points",
    "delta_splits",
    "every_cut",
    "finish_reasons",
    "json_values",
    "kit_runtime",
    "normalize",
    "one_char_splits",
    "planted_texts",
    "reconstruct",
    "retry_policies",
    "retry_schedules",
    "run_kills",
    "run_power_loss",
    "scenario_cases",
    "split_at",
    "split_cases",
    "split_deltas",
    "splits",
    "splits_around",
    "strip_blocks",
    "texts_from_pieces",
    "token_usages",
    "valid_streams",
    "violating_streams",
]


def __getattr__(name: str) -> Any:
    """Load a kit name on first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'loom_ref.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
