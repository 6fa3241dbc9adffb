"""Hypothesis strategies of the kit, split by area (each module opens with its rules):

- :mod:`.text` -- texts with planted matches, and the ways a stream splits a text into deltas;
- :mod:`.streams` -- stream chunk sequences valid by the protocol grammar, and single-rule
  violations of the adapter contract;
- :mod:`.runtime` -- retry schedules, crash points, retry policies and kernel scenarios in the
  conformance case format.

Importing this package imports hypothesis; without it, an ``ImportError`` names
``pip install hypothesis pytest``.
"""

from loom_ref.testing._deps import require_hypothesis

require_hypothesis()

from loom_ref.testing.strategies.runtime import (  # noqa: E402
    AttemptScript,
    RetrySchedule,
    crash_points,
    json_values,
    retry_policies,
    retry_schedules,
    scenario_cases,
)
from loom_ref.testing.strategies.streams import (  # noqa: E402
    MUTATIONS,
    GeneratedStream,
    ViolatingStream,
    finish_reasons,
    split_deltas,
    strip_blocks,
    token_usages,
    valid_streams,
    violating_streams,
)
from loom_ref.testing.strategies.text import (  # noqa: E402
    PlantedText,
    delta_splits,
    every_cut,
    one_char_splits,
    planted_texts,
    split_at,
    splits,
    splits_around,
    texts_from_pieces,
)

__all__ = [
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
]
