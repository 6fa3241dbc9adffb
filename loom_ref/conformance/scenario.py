"""Running one scenario on loom_ref's kernel: the actions, and the observations they leave.

Rules (``conformance/INTERPRETING.md`` section 6). For each action the adapter reports the
outcome (``result``, ``raised``, ``crashed`` or ``done``), the ``trace`` of the action (every
event appended and every effect, transient and decider invocation, in the order they
happened) and the ``warnings`` reported (by code). After the last action it reports the
journal as stored (``{"events", "tornTail"}``, or the ``error`` reading it raised, or null).

- Every action runs on a fresh ``Runtime`` with fresh effect instances over the same store
  and the same scripted world, as if each action were a new process.
- ``crash: {afterEvent: k, torn?}`` makes the store crash after the action's k-th append
  (with ``torn``, that append writes only a strict prefix of its line) -- loom_ref's
  :class:`~loom_ref.journal.faults.FaultInjectingStore` (spec: journal.crash-model).
- ``replay`` runs with effects that fail if called: any call shows in the trace.
- ``agent_loop`` instructions run loom_ref's agent loop over the scripted world
  (:mod:`loom_ref.conformance.agent_config`); its warnings join the action's, by code.
- ``options.alwaysReplay``: after every step outcome, decision, stream append and resume, a
  read-only replay of the journal so far is run; a replay that raises or calls anything is
  reported as the warning ``conformance.always-replay-diverged``.
- Raw journal actions work on the stored bytes: ``tear {line, whole?}`` cuts the journal
  inside that 1-based line (the header is line 1), keeping the first half of the line (at
  least one byte), or with ``whole`` all of it but its newline; ``appendBytes {text}``
  appends bytes; ``corrupt {line}`` replaces the 8 crc digits of that
  1-based line (the header is line 1) with ``00000000`` (``ffffffff`` if they were zeros);
  ``holdWriter`` / ``releaseWriter`` open and close a second writer on the journal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from loom_ref.conformance.agent_config import AGENT_STEP_TOOL_ID, OpaqueAgent, run_agent_loop
from loom_ref.conformance.interpreter import compile_body
from loom_ref.conformance.world import World
from loom_ref.effects import Effect, EffectCall, EffectContext, Mode
from loom_ref.errors import EffectError, LoomError
from loom_ref.journal import Crash, Event, EventKind, FaultInjectingStore, MemoryStore, Status
from loom_ref.journal.reader import ParsedJournal, TornTail
from loom_ref.kernel import Choice, EffectRegistry, ExecutionResult, Workflow

__all__ = ["RuntimeFactory", "ScenarioRun", "error_observation", "outcome_of"]

#: ``factory(store=, effects=, workflows=, on_warn=)`` -> a runtime with loom_ref's API.
RuntimeFactory = Callable[..., Any]

TORN_BYTES = 17  # shorter than any line: the crc suffix alone is 18 bytes
_REPLAY_AFTER = frozenset({EventKind.STEP_COMPLETED, EventKind.STEP_FAILED,
                           EventKind.DECISION_RECORDED, EventKind.STREAM_APPENDED,
                           EventKind.EXECUTION_RESUMED})


#: The error details an observation carries (INTERPRETING.md section 6): where a journal
#: is bad, and why.
ERROR_DETAILS = ("line", "reason")


def error_observation(exc: LoomError) -> dict[str, Any]:
    """``{"code", "line"?, "reason"?}`` of an error."""
    out: dict[str, Any] = {"code": exc.code}
    for key in ERROR_DETAILS:
        value = exc.details.get(key)
        if isinstance(value, (str, int)):
            out[key] = value
    return out


def outcome_of(result: ExecutionResult) -> dict[str, Any]:
    """The ``result`` observation of a runtime call."""
    out: dict[str, Any] = {"status": result.status.value}
    if result.status is Status.COMPLETED:
        out["output"] = json.loads(json.dumps(result.output))
    elif result.status is Status.FAILED:
        out["error"] = {"code": result.error["code"]}
    elif result.status is Status.SUSPENDED:
        out["waitingOn"] = result.waiting_on
    elif result.status is Status.IN_DOUBT:
        out["inDoubtStep"] = result.in_doubt_step
    return out


class _TracingJournal:
    def __init__(self, inner: Any, run: ScenarioRun) -> None:
        self._inner = inner
        self._run = run

    @property
    def execution_id(self) -> str:
        return str(self._inner.execution_id)

    @property
    def events(self) -> Sequence[Event]:
        return self._inner.events  # type: ignore[no-any-return]

    @property
    def torn(self) -> TornTail | None:
        return self._inner.torn  # type: ignore[no-any-return]

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        event = self._inner.append(kind, payload)
        self._run.world.trace.append(
            {"event": {"kind": kind.value, "payload": json.loads(json.dumps(dict(payload)))}})
        if self._run.always_replay and kind in _REPLAY_AFTER:
            self._run.replay_check()
        return event  # type: ignore[no-any-return]

    def write_torn(self, kind: EventKind, payload: Mapping[str, Any], nbytes: int) -> None:
        self._inner.write_torn(kind, payload, nbytes)

    def close(self) -> None:
        self._inner.close()


class _TracingStore:
    def __init__(self, inner: Any, run: ScenarioRun) -> None:
        self._inner = inner
        self._run = run

    def exists(self, execution_id: str) -> bool:
        return bool(self._inner.exists(execution_id))

    def read(self, execution_id: str) -> ParsedJournal:
        return self._inner.read(execution_id)  # type: ignore[no-any-return]

    def create(self, execution_id: str) -> _TracingJournal:
        return _TracingJournal(self._inner.create(execution_id), self._run)

    def open(self, execution_id: str) -> _TracingJournal:
        return _TracingJournal(self._inner.open(execution_id), self._run)


class _NoEffects:
    """The effect host of a replay: every call is recorded, then refused."""

    def __init__(self, world: World) -> None:
        self.world = world

    def invoke(self, call: EffectCall) -> Any:
        self.world.trace.append({"call": {"tool": call.tool_id, "stepId": call.step_id or "",
                                          "idempotencyKey": call.idempotency_key or "",
                                          "input": call.input}})
        raise EffectError("a replay called an effect", code="conformance.called-on-replay")

    def invoke_transient_call(self, call: EffectCall) -> Any:
        self.world.trace.append({"transient": {"tool": call.tool_id, "input": call.input}})
        raise EffectError("a replay called an effect", code="conformance.called-on-replay")

    def is_idempotent(self, tool_id: str) -> bool:
        return False


class ScenarioRun:
    """One scenario case, run action by action on loom_ref."""

    def __init__(self, case: Mapping[str, Any], *, runtime_factory: RuntimeFactory,
                 store: MemoryStore) -> None:
        self.case = case
        self.execution_id = str(case.get("executionId", "e1"))
        self.world = World(case.get("effects", {}), case.get("deciders", {}))
        self.store = store
        self.runtime_factory = runtime_factory
        spec = case["workflow"]
        self.workflow = Workflow(name=spec["name"], body=compile_body(spec["body"], self),
                                 resume_schemas=spec.get("resumeSchemas", {}))
        self.always_replay = bool(case.get("options", {}).get("alwaysReplay", False))
        self.held: Any = None
        self.warnings: list[str] = []
        self.opaque = OpaqueAgent(self.world)

    # -- hooks of the compiled body ----------------------------------------------------------
    def decider(self, name: str, decision_id: str) -> Callable[[Any], Any]:
        def run(scope: Any) -> Any:
            answer = self.world.decide(name, decision_id,
                                       lambda tool, value: scope.invoke_transient(tool, value))
            if answer.policy is None:
                return answer.value
            return Choice(value=answer.value, policy_id=answer.policy,
                          propensity=answer.propensity)
        return run

    def drift(self, name: str, values: list[Any]) -> Any:
        return self.world.drift(name, values)

    def agent_loop(self, ctx: Any, config: Mapping[str, Any], input: Any, *, opaque: bool
                   ) -> Generator[Any, Any, Any]:
        return run_agent_loop(ctx, config, input, self.world, self._warn,
                              opaque=self.opaque if opaque else None)

    # -- runtimes ------------------------------------------------------------------------------
    def effects(self) -> EffectRegistry:
        registry = EffectRegistry()
        world = self.world
        for tool in world.effects:
            def execute(ctx: EffectContext, input: Any, tool: str = tool) -> Any:
                if ctx.mode is Mode.DURABLE:
                    return world.call(tool, input, step_id=ctx.call.step_id or "",
                                      idempotency_key=ctx.idempotency_key or "")
                return world.transient(tool, input)
            registry.register(Effect(tool_id=tool, execute=execute,
                                     idempotent=world.is_idempotent(tool)))
        if AGENT_STEP_TOOL_ID not in world.effects:
            self.opaque.host = registry
            registry.register(Effect(tool_id=AGENT_STEP_TOOL_ID, execute=self.opaque.execute))
        return registry

    def _warn(self, message: str) -> None:
        self.warnings.append(message.split(":", 1)[0].strip())

    def runtime(self, store: Any, effects: Any) -> Any:
        return self.runtime_factory(store=store, effects=effects, workflows=[self.workflow],
                                    on_warn=self._warn)

    def replay_check(self) -> None:
        """The always-replay check: replay the journal so far, read-only."""
        saved, self.world.trace = self.world.trace, []
        try:
            self.runtime(self.store, _NoEffects(self.world)).replay(self.execution_id)
            diverged = bool(self.world.trace)
        except LoomError:
            diverged = True
        finally:
            self.world.trace = saved
        if diverged:
            self.warnings.append("conformance.always-replay-diverged")

    # -- actions -------------------------------------------------------------------------------
    def act(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """Run one action; return its observation."""
        self.world.trace = []
        self.warnings = []
        obs: dict[str, Any]
        try:
            obs = self._dispatch(action)
        except Crash:
            obs = {"crashed": True}
        except LoomError as exc:
            obs = {"raised": error_observation(exc)}
        obs["trace"] = self.world.trace
        obs["warnings"] = self.warnings
        return obs

    def _dispatch(self, action: Mapping[str, Any]) -> dict[str, Any]:
        do = action["do"]
        eid = self.execution_id
        if do in ("tear", "appendBytes", "corrupt", "holdWriter", "releaseWriter"):
            self._raw(action)
            return {"done": True}
        store: Any = _TracingStore(self.store, self)
        crash = action.get("crash")
        if crash is not None:
            store = FaultInjectingStore(store, crash_after=crash["afterEvent"],
                                        torn_bytes=TORN_BYTES if crash.get("torn") else 0)
        if do == "replay":
            return {"result": outcome_of(self.runtime(store, _NoEffects(self.world))
                                         .replay(eid))}
        rt = self.runtime(store, self.effects())
        if do == "start":
            result = rt.start(action.get("workflow", self.workflow.name), action.get("input"),
                              execution_id=eid)
        elif do == "resume":
            result = rt.resume(eid, action["gate"], action.get("payload"))
        elif do == "recover":
            result = rt.recover(eid)
        elif do == "resolve":
            kwargs: dict[str, Any] = {k: action[k] for k in ("output", "error", "retry")
                                      if k in action}
            result = rt.resolve(eid, action["step"], **kwargs)
        else:
            raise LoomError(f"unknown action {do!r}", code="conformance.bad-case")
        return {"result": outcome_of(result)}

    def _raw(self, action: Mapping[str, Any]) -> None:
        do = action["do"]
        eid = self.execution_id
        if do == "holdWriter":
            self.held = self.store.open(eid)
            return
        if do == "releaseWriter":
            if self.held is not None:
                self.held.close()
                self.held = None
            return
        data = self.store.data[eid]
        if do == "tear":
            lines = bytes(data).split(b"\n")
            n = action["line"] - 1
            keep = len(lines[n]) if action.get("whole") else max(1, len(lines[n]) // 2)
            data[:] = b"\n".join(lines[:n]) + (b"\n" if n else b"") + lines[n][:keep]
        elif do == "appendBytes":
            data += action["text"].encode("utf-8")
        else:
            lines = bytes(data).split(b"\n")
            n = action["line"] - 1
            line = lines[n]
            digits = b"ffffffff" if line[-10:-2] == b"00000000" else b"00000000"
            lines[n] = line[:-10] + digits + line[-2:]
            data[:] = b"\n".join(lines)

    def journal(self) -> dict[str, Any] | None:
        """The final ``journal`` observation."""
        if self.held is not None:
            self.held.close()
            self.held = None
        if not self.store.exists(self.execution_id):
            return None
        try:
            parsed = self.store.read(self.execution_id)
        except LoomError as exc:
            return {"error": error_observation(exc)}
        return {"events": [{"kind": e.kind.value, "payload": json.loads(json.dumps(
                    dict(e.payload)))} for e in parsed.events],
                "tornTail": parsed.torn is not None}
