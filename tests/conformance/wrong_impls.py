"""Deliberately wrong implementations: the suite must fail each, naming the broken rule.

Each is loom_ref's adapter with one rule broken (or, for the echo, with no kernel at all):

- ``echo``: answers plausibly without running anything (every vector's result is its input,
  every action "completed" with the input as output, nothing traced or journaled);
- ``reinvoke``: on recovery, completed steps are invoked again (their journaled outputs are
  still served, so only the calls give it away) -- breaks kernel.recover;
- ``decider-on-replay``: recorded decisions are served by running the decider again --
  breaks kernel.replay-serve / kernel.replay-readonly;
- ``torn-ignored``: a writer neither reports nor truncates a torn tail, and appends after
  it -- breaks journal.torn-tail;
- ``bad-resume``: resume payloads are journaled without checking the gate's schema --
  breaks kernel.resume-schema.

And vector functions with one rule broken (:data:`WRONG_VECTORS`), for the mutant classes
``tools/mutation`` found the suite weak on (issue 21):

- ``finish-fails-open``: OpenAI's finish_reason mapping reads content_filter and any value it
  does not know as ``stop`` -- breaks stream.openai (fail closed);
- ``lenient-input``: guards.run and guards.steps drop input members they do not list instead
  of refusing them -- breaks guards.vector-run;
- ``billed-without-writes``: billed input is uncached input plus cache reads only, cache
  writes forgotten -- breaks stream.usage.disjoint;
- ``billed-reasoning-twice``: billed output adds reasoning to output -- breaks
  stream.usage.reasoning-breakdown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.effects.call import EffectCall, Mode
from loom_ref.journal import EventKind, LineJournal, MemoryStore
from loom_ref.journal.fold import fold
from loom_ref.journal.reader import parse_journal
from loom_ref.kernel import Choice, ExecutionResult, Runtime, Workflow
from loom_ref.kernel.driver import _Drive
from loom_ref.kernel.history import Recorded


class EchoAdapter(LoomRefAdapter):
    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        if case.get("family") == "vector":
            return {"observations": {"result": case.get("input")}}
        actions = [{"result": {"status": "completed", "output": a.get("input")},
                    "trace": [], "warnings": []} for a in case["actions"]]
        return {"observations": {"actions": actions,
                                 "journal": {"events": [], "tornTail": False}}}


class _DriveClassRuntime(Runtime):
    """A Runtime whose drives use ``drive_class`` (a subclass of the kernel's driver)."""

    drive_class: type[_Drive] = _Drive

    def _make(self, events: Any, journal: Any, started: Mapping[str, Any],
              retry_step: str | None) -> _Drive:
        return self.drive_class(
            workflow=self.workflow(started["workflow"]), events=events, journal=journal,
            effects=self.effects, execution_id=started["executionId"], input=started["input"],
            retry_step=retry_step, on_warn=self.on_warn)

    def _drive(self, journal: Any, started: Mapping[str, Any], *,
               retry_step: str | None = None) -> ExecutionResult:
        return self._make(journal.events, journal, started, retry_step).run()

    def replay(self, execution_id: str) -> ExecutionResult:
        events = self.store.read(execution_id).events
        fold(events)
        return self._make(events, None, events[0].payload, None).run()


class _ReinvokingDrive(_Drive):
    recovering = False

    def serve(self, rec: Recorded, cmd: Any) -> tuple[Any, BaseException | None]:
        if (self.recovering and rec.kind == "execute" and rec.outcome is not None
                and rec.outcome.kind is EventKind.STEP_COMPLETED and self.effects is not None):
            assert rec.start is not None
            start = rec.start.payload
            self.effects.invoke(EffectCall(
                tool_id=cmd.tool_id, input=start["input"], mode=Mode.DURABLE,
                principal=self.execution_id, execution_id=self.execution_id,
                step_id=cmd.step_id, idempotency_key=start["idempotencyKey"]))
        return super().serve(rec, cmd)


class ReinvokingRuntime(_DriveClassRuntime):
    drive_class = _ReinvokingDrive

    def recover(self, execution_id: str) -> ExecutionResult:
        _ReinvokingDrive.recovering = True
        try:
            return super().recover(execution_id)
        finally:
            _ReinvokingDrive.recovering = False


class _DeciderOnReplayDrive(_Drive):
    def serve(self, rec: Recorded, cmd: Any) -> tuple[Any, BaseException | None]:
        if rec.kind == "decide":
            self.served.append(rec.id)
            choice = self.run_decider(cmd)
            return (choice.value if isinstance(choice, Choice) else choice), None
        return super().serve(rec, cmd)


class DeciderOnReplayRuntime(_DriveClassRuntime):
    drive_class = _DeciderOnReplayDrive


class TornIgnoringStore(MemoryStore):
    def open(self, execution_id: str) -> LineJournal:
        parsed = parse_journal(bytes(self.data[execution_id]), source=execution_id)
        return LineJournal(execution_id=execution_id, backend=self._claim(execution_id),
                           events=parsed.events, torn=None)


class SchemalessRuntime(Runtime):
    def workflow(self, name: str) -> Workflow:
        return attrs.evolve(super().workflow(name), resume_schemas={})


WRONG: Mapping[str, Callable[[], LoomRefAdapter]] = {
    "echo": lambda: EchoAdapter(name="echo"),
    "reinvoke": lambda: LoomRefAdapter(name="reinvoke", runtime_factory=ReinvokingRuntime),
    "decider-on-replay": lambda: LoomRefAdapter(name="decider-on-replay",
                                                runtime_factory=DeciderOnReplayRuntime),
    "torn-ignored": lambda: LoomRefAdapter(name="torn-ignored",
                                           store_factory=TornIgnoringStore),
    "bad-resume": lambda: LoomRefAdapter(name="bad-resume", runtime_factory=SchemalessRuntime),
}


# -- vector functions with one rule broken (the mutant classes tools/mutation found the suite
# weak on, issue 21) ---------------------------------------------------------------------------
def _functions() -> dict[str, Any]:
    from loom_ref.conformance.functions import load_functions
    table, _ = load_functions()
    return dict(table)


def _fail_open_openai_map(real: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``stream.openai_map`` whose finish_reason mapping fails open: anything it does not know
    (content_filter included) is ``stop`` -- breaks stream.openai's fail-closed mapping."""
    from unittest import mock

    from loom_ref.stream import openai_mapping
    from loom_ref.stream.chunks import FinishReason

    known = openai_mapping.map_finish_reason

    def lenient(value: str) -> FinishReason:
        if value in ("stop", "tool_calls", "function_call", "length"):
            return known(value)
        return FinishReason.stop()

    def run(data: Any) -> Any:
        with mock.patch.object(openai_mapping, "map_finish_reason", lenient):
            return real(data)
    return run


def _ignoring_unknown_members(real: Callable[[Any], Any],
                              allowed: frozenset[str]) -> Callable[[Any], Any]:
    """A vector function that drops the input members it does not list instead of refusing
    them -- breaks guards.vector-run (malformed input is argument.invalid, never ignored)."""
    def run(data: Any) -> Any:
        if isinstance(data, Mapping):
            data = {k: v for k, v in data.items() if k in allowed}
        return real(data)
    return run


def _fail_open_adapter() -> LoomRefAdapter:
    table = _functions()
    table["stream.openai_map"] = _fail_open_openai_map(table["stream.openai_map"])
    return LoomRefAdapter(name="finish-fails-open", functions=table)


def _lenient_input_adapter() -> LoomRefAdapter:
    table = _functions()
    table["guards.steps"] = _ignoring_unknown_members(
        table["guards.steps"], frozenset({"validators", "window", "steps", "holdBack",
                                          "maxTokens"}))
    table["guards.run"] = _ignoring_unknown_members(
        table["guards.run"], frozenset({"validators", "window", "deltas", "holdBack",
                                        "maxTokens"}))
    return LoomRefAdapter(name="lenient-input", functions=table)


def _wrong_billing(name: str, *, writes: bool, reasoning_added: bool) -> LoomRefAdapter:
    """``stream.usage_billed`` with one of its two sums wrong."""
    table = _functions()
    real = table["stream.usage_billed"]

    def run(data: Any) -> Any:
        out = dict(real(data))
        usage = data["usage"]
        if not writes:
            out["billedInputTokens"] -= usage.get("cacheWriteTokens", 0)
        if reasoning_added:
            out["billedOutputTokens"] += usage.get("reasoningTokens", 0)
        return out
    table["stream.usage_billed"] = run
    return LoomRefAdapter(name=name, functions=table)


#: name -> (adapter, the groups to run it on)
WRONG_VECTORS: Mapping[str, tuple[Callable[[], LoomRefAdapter], tuple[str, ...]]] = {
    "finish-fails-open": (_fail_open_adapter, ("stream.openai",)),
    "lenient-input": (_lenient_input_adapter, ("guards.steps", "guards.delta")),
    "billed-without-writes": (lambda: _wrong_billing("billed-without-writes", writes=False,
                                                     reasoning_added=False), ("stream.usage",)),
    "billed-reasoning-twice": (lambda: _wrong_billing("billed-reasoning-twice", writes=True,
                                                      reasoning_added=True), ("stream.usage",)),
}
