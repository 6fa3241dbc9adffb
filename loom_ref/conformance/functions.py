"""The pure functions that vector cases call, by name: loom_ref's side of the vector family.

Rules (``conformance/INTERPRETING.md`` section 3): a vector names a ``function``; the
implementation calls it with the case's ``input`` and answers ``{"result": <JSON>}`` or, when
the function raises, ``{"error": {"code": <stable code>, ...details}}``.

The table is built from providers: each module in :data:`PROVIDERS` exposes
``VECTOR_FUNCTIONS`` (imported lazily, one per layer, each beside the code it exercises). A
function no provider registers is not declared as a capability, so its cases are reported as
*skipped* with the reason, never as passed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["PROVIDERS", "REFUSAL_PROVIDERS", "VectorFunction", "load_functions",
           "load_refusals"]

VectorFunction = Callable[[Any], Any]

#: Modules that may expose ``VECTOR_FUNCTIONS: dict[str, VectorFunction]``.
PROVIDERS = ("loom_ref.journal.vectors", "loom_ref.journal.vectors_disk",
             "loom_ref.journal.vectors_content", "loom_ref.journal.vectors_sqlite",
             "loom_ref.stream.vectors", "loom_ref.governance.vectors",
             "loom_ref.effects.vectors", "loom_ref.kernel.vectors",
             "loom_ref.agent.vectors")


#: Modules that may expose ``VECTOR_REFUSALS: dict[str, Callable[[input], frozenset[str]]]``:
#: for a function whose spec lets an input with several problems be refused for any of them,
#: every refusal code an input deserves (``conformance/INTERPRETING.md`` section 14).
REFUSAL_PROVIDERS = ("loom_ref.governance.refusals", "loom_ref.effects.refusals")


def load_functions(providers: tuple[str, ...] = PROVIDERS
                   ) -> tuple[dict[str, VectorFunction], dict[str, str]]:
    """The function table, and for each provider that could not be imported, why."""
    table: dict[str, VectorFunction] = {}
    missing: dict[str, str] = {}
    for name in providers:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # a layer under construction may fail to import at all
            missing[name] = f"{type(exc).__name__}: {exc}"
            continue
        functions = getattr(module, "VECTOR_FUNCTIONS", None)
        if not isinstance(functions, Mapping):
            missing[name] = "module has no VECTOR_FUNCTIONS table"
            continue
        for fname, fn in functions.items():
            table.setdefault(str(fname), fn)
    return table, missing


def load_refusals(providers: tuple[str, ...] = REFUSAL_PROVIDERS
                  ) -> dict[str, Callable[[Any], frozenset[str]]]:
    """Per function, the oracle of the refusal codes an input deserves (a provider that
    cannot be imported gives none: its functions' refusals must then agree exactly)."""
    table: dict[str, Callable[[Any], frozenset[str]]] = {}
    for name in providers:
        try:
            module = importlib.import_module(name)
        except Exception:  # as load_functions: a layer under construction
            continue
        oracles = getattr(module, "VECTOR_REFUSALS", None)
        if isinstance(oracles, Mapping):
            for fname, oracle in oracles.items():
                table.setdefault(str(fname), oracle)
    return table
