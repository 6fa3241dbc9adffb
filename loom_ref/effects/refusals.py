"""Which refusals a streaming vector input deserves, when it has more than one problem.

Spec: ``spec/deltas.md`` § 3a.9 (``deltas.vector-run``): "An input with several problems is
refused for one of them, and which one is **implementation-defined** ... a differential
comparison MUST NOT count two such refusals of one input as a disagreement"; ``deltas.llm``
reads its validators "as in ``deltas.run``". The validators are read by chapter 4's encoding,
so the two codes that compete are chapter 4's: ``argument.pattern`` and ``argument.invalid``.
The oracle is chapter 4's (:func:`loom_ref.governance.refusals.input_refusals`), run on these
functions; the differential fuzzer asks :data:`VECTOR_REFUSALS` (INTERPRETING.md section 14).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.effects.vectors import VECTOR_FUNCTIONS as _RUN
from loom_ref.effects.vectors_llm import VECTOR_FUNCTIONS_LLM as _LLM
from loom_ref.governance.refusals import input_refusals

__all__ = ["VECTOR_REFUSALS"]

_CALLS: Mapping[str, Callable[[Any], Any]] = {"deltas.run": _RUN["deltas.run"],
                                              "deltas.llm": _LLM["deltas.llm"]}


def _for(function: str) -> Callable[[Any], frozenset[str]]:
    return lambda data: input_refusals(function, data, _CALLS[function])


VECTOR_REFUSALS: Mapping[str, Callable[[Any], frozenset[str]]] = {
    name: _for(name) for name in _CALLS}
"""Case ``function`` name -> the refusal codes an input of it deserves."""
