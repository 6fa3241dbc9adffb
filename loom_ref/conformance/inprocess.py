"""loom_ref's implementation of the conformance protocol, as a message handler.

Rules (``conformance/INTERPRETING.md`` section 4). :meth:`LoomRefAdapter.handle` takes one
protocol message (a dict) and returns the reply: ``start`` -> name, version, capabilities;
``run`` -> observations, ``skipped`` or ``errored``; ``stop`` -> ``{"ok": true}``. The
subprocess adapter (:mod:`loom_ref.conformance.adapter`) wraps it in JSON lines; the runner's
in-process implementation calls it directly (after a JSON round trip, so both see the same
bytes' worth of data).

The kernel under test is pluggable (``runtime_factory``, ``store_factory``), which is how the
deliberately wrong implementations in ``tests/conformance`` are built. With the default
store, the start reply names loom_ref's four journal stores (``stores``, memory first), and a
scenario with ``options.store`` runs on that one (:mod:`loom_ref.conformance.stores`); a
custom ``store_factory`` is the only store there is.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from loom_ref import __version__
from loom_ref.conformance.derive import BYTE_EDITS
from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.functions import VectorFunction, load_functions
from loom_ref.conformance.portability import (
    PATTERNS_PYTHON_RE,
    TEXT_CODE_POINTS,
    TEXT_LONE_SURROGATES,
)
from loom_ref.conformance.scenario import RuntimeFactory, ScenarioRun, error_observation
from loom_ref.conformance.stores import STORES, place
from loom_ref.errors import LoomError
from loom_ref.journal import MemoryStore
from loom_ref.kernel import Runtime

__all__ = ["PORTABILITY_CAPABILITIES", "PROTOCOL_VERSION", "SCENARIO_CAPABILITIES",
           "LoomRefAdapter"]

PROTOCOL_VERSION = 1

#: What loom_ref's scenario side supports (INTERPRETING.md sections 4, 5a and 8): ``agent``
#: is the ``agent_loop`` instruction.
SCENARIO_CAPABILITIES = ("scenario", "crash", "torn-write", "always-replay", "agent")
#: The readings of INTERPRETING.md section 15 (Portability) loom_ref has: it counts code
#: points, its strings hold a lone surrogate read from JSON, and it has the python-re pattern
#: extension.
PORTABILITY_CAPABILITIES = (TEXT_CODE_POINTS, TEXT_LONE_SURROGATES, PATTERNS_PYTHON_RE)


class LoomRefAdapter:
    """loom_ref behind the conformance protocol."""

    def __init__(
        self, *, name: str = "loom-ref", runtime_factory: RuntimeFactory = Runtime,
        store_factory: Callable[[], MemoryStore] | None = None,
        functions: Mapping[str, VectorFunction] | None = None,
        capabilities: Iterable[str] = (*SCENARIO_CAPABILITIES, *PORTABILITY_CAPABILITIES),
    ) -> None:
        self.name = name
        self.runtime_factory = runtime_factory
        self.store_factory = store_factory
        self.stores = tuple(STORES) if store_factory is None else ()
        if functions is None:
            table, self.unavailable = load_functions()
        else:
            table, self.unavailable = dict(functions), {}
        self.functions = table
        self.capabilities = sorted({*capabilities, *table})

    def handle(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one protocol message."""
        cmd = message.get("cmd")
        if cmd == "start":
            implementation: dict[str, Any] = {"name": self.name, "version": __version__,
                                              "language": "python",
                                              "capabilities": self.capabilities}
            if self.stores:
                implementation["stores"] = list(self.stores)
            return {"protocol": PROTOCOL_VERSION, "implementation": implementation}
        if cmd == "stop":
            return {"ok": True}
        if cmd == "run":
            seq = message.get("seq", 0)
            case = message.get("case")
            if not isinstance(case, Mapping):  # a request it cannot read: say so, carry on
                return {"seq": seq, "errored": {"message": "a run request carries a case "
                                                           "object"}}
            return {"seq": seq, **self.run(case)}
        raise LoomError(f"unknown command {cmd!r}", code="conformance.protocol")

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """Run one case (without its expectations); return the reply body."""
        missing = [c for c in case.get("requires", ()) if c not in self.capabilities]
        if missing:
            return {"skipped": {"reason": f"loom-ref lacks capability {missing[0]!r}"}}
        try:
            if case.get("family") == "vector":
                return self.run_vector(case)
            return self.run_scenario(case)
        except ScenarioBug as bug:
            return {"errored": {"message": f"cannot interpret the case: {bug}"}}
        except Exception as exc:  # an implementation bug: report it with its traceback
            return {"errored": {"message": f"{type(exc).__name__}: {exc}",
                                "context": {"traceback": traceback.format_exc(limit=8)}}}

    def run_vector(self, case: Mapping[str, Any]) -> dict[str, Any]:
        fn = self.functions.get(case["function"])
        if fn is None:
            why = "; ".join(f"{m}: {r}" for m, r in self.unavailable.items()) or "not built"
            return {"skipped": {"reason": f"no function {case['function']!r} ({why})"}}
        try:
            result = fn(case.get("input"))
        except LoomError as exc:
            return {"observations": {"error": error_observation(exc)}}
        return {"observations": {"result": json.loads(json.dumps(result))}}

    def run_scenario(self, case: Mapping[str, Any]) -> dict[str, Any]:
        name = case.get("options", {}).get("store", "memory")
        if self.store_factory is not None:
            if name != "memory":
                return {"skipped": {"reason": f"{self.name} has no store {name!r}"}}
            run = ScenarioRun(case, runtime_factory=self.runtime_factory,
                              store=self.store_factory())
            actions = [run.act(action) for action in case["actions"]]
            return {"observations": {"actions": actions, "journal": run.journal()}}
        if name not in self.stores:
            raise ScenarioBug(f"no store {name!r} (loom-ref's: {', '.join(self.stores)})")
        where = place(name)
        if not where.file_form and any(a.get("do") in BYTE_EDITS for a in case["actions"]):
            where.close()
            return {"skipped": {"reason": f"the {name} store does not keep a journal as one "
                                          "file of lines, whose bytes the case edits"}}
        try:
            run = ScenarioRun(case, runtime_factory=self.runtime_factory, place=where)
            actions = [run.act(action) for action in case["actions"]]
            return {"observations": {"actions": actions, "journal": run.journal()}}
        finally:
            where.close()
