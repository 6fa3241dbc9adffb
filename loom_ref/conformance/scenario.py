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
- ``observe`` (a list of ``served``, ``ran``, ``torn``) adds those members to every result:
  the ids the drive served from the journal and the ids it ran, in order
  (``kernel.drive-report``), and the torn tail it found (``{line, size}`` or null).
- ``options.store`` names the journal store to run on (:mod:`loom_ref.conformance.stores`;
  default ``memory``): a store that outlives its process is opened afresh for every action,
  after the previous action's store is closed, and a second writer is a second store.
- Raw journal actions work on the stored bytes: ``tear {line, whole?}`` cuts the journal
  inside that 1-based line (the header is line 1), keeping the first half of the line (at
  least one byte), or with ``whole`` all of it but its newline; ``appendBytes {text}``
  appends bytes; ``corrupt {line}`` replaces the 8 crc digits of that
  1-based line (the header is line 1) with ``00000000`` (``ffffffff`` if they were zeros);
  ``holdWriter`` / ``releaseWriter`` open and close a second writer on the journal.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from loom_ref.conformance.agent_config import AGENT_STEP_TOOL_ID, OpaqueAgent, run_agent_loop
from loom_ref.conformance.expressions import ScenarioBug
from loom_ref.conformance.interpreter import compile_body
from loom_ref.conformance.stores import Place
from loom_ref.conformance.world import World
from loom_ref.effects import Effect, EffectCall, EffectContext, Mode
from loom_ref.errors import EffectError, LoomError
from loom_ref.journal import (
    Crash,
    Event,
    EventKind,
    FaultInjectingStore,
    JournalNotFoundError,
    MemoryStore,
    Status,
)
from loom_ref.journal.reader import ParsedJournal
from loom_ref.journal.store import JournalWrapper
from loom_ref.kernel import Choice, EffectRegistry, ExecutionResult, Workflow

__all__ = ["OBSERVABLE", "RuntimeFactory", "ScenarioRun", "error_observation", "outcome_of"]

#: ``factory(store=, effects=, workflows=, on_warn=)`` -> a runtime with loom_ref's API.
RuntimeFactory = Callable[..., Any]

_CRC_END = re.compile(rb',"crc":"[0-9a-f]{8}"\}\Z')  # INTERPRETING.md 6, corrupt
TORN_BYTES = 17  # shorter than any line: the crc suffix alone is 18 bytes
_RAW = frozenset({"tear", "appendBytes", "corrupt", "holdWriter", "releaseWriter"})
_REPLAY_AFTER = frozenset({EventKind.STEP_COMPLETED, EventKind.STEP_FAILED,
                           EventKind.DECISION_RECORDED, EventKind.STREAM_APPENDED,
                           EventKind.EXECUTION_RESUMED})


#: The error details an observation carries (INTERPRETING.md section 6): where a journal
#: is bad, and why; where a pattern is outside its dialect, and which dialect; the chunk a
#: contract violation was raised at (spec: stream.assembler.strict).
ERROR_DETAILS = ("line", "reason", "position", "dialect", "index")


def error_observation(exc: LoomError) -> dict[str, Any]:
    """``{"code", "line"?, "reason"?, "position"?, "dialect"?, "index"?, "paths"?}`` of an
    error (the details cases check: a journal line, a reason, a pattern error's position and
    dialect, a contract violation's chunk index,
    and for a refused resume payload the JSON Pointers of its problems, sorted and distinct:
    ``kernel.schema-problems``)."""
    out: dict[str, Any] = {"code": exc.code}
    for key in ERROR_DETAILS:
        value = exc.details.get(key)
        if isinstance(value, (str, int)):
            out[key] = value
    problems = exc.details.get("problems")
    if isinstance(problems, list) and exc.code == "kernel.invalid-resume":
        out["paths"] = sorted({p["path"] for p in problems})
    return out


#: What a scenario's ``observe`` may ask every result to carry (INTERPRETING.md section 6).
OBSERVABLE = ("served", "ran", "torn")


def outcome_of(result: ExecutionResult, observe: Sequence[str] = ()) -> dict[str, Any]:
    """The ``result`` observation of a runtime call, with the members ``observe`` asks for:
    the ids the drive served from the journal and those it ran (``kernel.drive-report``),
    and the torn tail it found (``journal.torn-tail``)."""
    out: dict[str, Any] = {"status": result.status.value}
    if "served" in observe:
        out["served"] = list(result.served)
    if "ran" in observe:
        out["ran"] = list(result.ran)
    if "torn" in observe:
        torn = result.torn
        out["torn"] = None if torn is None else {"line": torn.line, "size": torn.size}
    if result.status is Status.COMPLETED:
        out["output"] = json.loads(json.dumps(result.output))
    elif result.status is Status.FAILED:
        out["error"] = {"code": result.error["code"]}
    elif result.status is Status.SUSPENDED:
        out["waitingOn"] = result.waiting_on
    elif result.status is Status.IN_DOUBT:
        out["inDoubtStep"] = result.in_doubt_step
    return out


class _TracingJournal(JournalWrapper):
    def __init__(self, inner: Any, run: ScenarioRun) -> None:
        super().__init__(inner)
        self._run = run

    def append(self, kind: EventKind, payload: Mapping[str, Any]) -> Event:
        event = self._inner.append(kind, payload)
        self._run.world.trace.append(
            {"event": {"kind": kind.value, "payload": json.loads(json.dumps(dict(payload)))}})
        if self._run.always_replay and kind in _REPLAY_AFTER:
            self._run.replay_check()
        return event


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
                 store: MemoryStore | None = None, place: Place | None = None) -> None:
        self.case = case
        self.execution_id = str(case.get("executionId", "e1"))
        self.world = World(case.get("effects", {}), case.get("deciders", {}))
        if (store is None) == (place is None):
            raise ValueError("a scenario runs on a store or on a place, one of the two")
        self.place = place
        self.store: Any = store if place is None else place.new()
        self.held_store: Any = None
        self.runtime_factory = runtime_factory
        self.workflow_spec = case["workflow"]
        self.body = compile_body(self.workflow_spec["body"], self)
        self.always_replay = bool(case.get("options", {}).get("alwaysReplay", False))
        self.observe = tuple(case.get("observe", ()))
        unknown = [o for o in self.observe if o not in OBSERVABLE]
        if unknown:
            raise ScenarioBug(f"observe {unknown[0]!r}: not one of {', '.join(OBSERVABLE)}")
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
                                      idempotency_key=ctx.idempotency_key or "",
                                      attempt=ctx.attempt)
                return world.transient(tool, input, attempt=ctx.attempt)
            registry.register(Effect(tool_id=tool, execute=execute,
                                     modes=frozenset(Mode(m) for m in world.modes(tool)),
                                     idempotent=world.is_idempotent(tool)))
        if AGENT_STEP_TOOL_ID not in world.effects:
            self.opaque.host = registry
            registry.register(Effect(tool_id=AGENT_STEP_TOOL_ID, execute=self.opaque.execute))
        return registry

    def _warn(self, message: str) -> None:
        self.warnings.append(message.split(":", 1)[0].strip())

    def build_workflow(self) -> Workflow:
        """The case's workflow, built afresh by each action's process: a ``resumeSchemas``
        entry outside the schema subset is refused here, ``argument.schema``
        (``kernel.resume-schema``), and the action that needed the workflow raises it."""
        spec = self.workflow_spec
        return Workflow(name=spec["name"], body=self.body,
                        resume_schemas=spec.get("resumeSchemas", {}))

    def runtime(self, store: Any, effects: Any) -> Any:
        return self.runtime_factory(store=store, effects=effects,
                                    workflows=[self.build_workflow()], on_warn=self._warn)

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
        persistent = self.place is not None and self.place.persistent
        if persistent:  # the previous action's process has ended: its store is closed
            assert self.place is not None
            self.place.drop(self.store)
            self.store = None
        try:
            if persistent and action["do"] not in _RAW:
                assert self.place is not None
                self.store = self.place.new()  # a new process opens the store
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
        if do in _RAW:
            self._raw(action)
            return {"done": True}
        store: Any = _TracingStore(self.store, self)
        crash = action.get("crash")
        if crash is not None:
            torn = TORN_BYTES if self.place is None else self.place.torn_bytes(eid, TORN_BYTES)
            store = FaultInjectingStore(store, crash_after=crash["afterEvent"],
                                        torn_bytes=torn if crash.get("torn") else 0)
        if do == "replay":
            return {"result": outcome_of(self.runtime(store, _NoEffects(self.world))
                                         .replay(eid), self.observe)}
        rt = self.runtime(store, self.effects())
        if do == "start":
            result = rt.start(action.get("workflow", self.workflow_spec["name"]),
                              action.get("input"),
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
        return {"result": outcome_of(result, self.observe)}

    def _release_held(self) -> None:
        if self.held is not None:
            self.held.close()
            self.held = None
        if self.held_store is not None:
            assert self.place is not None
            self.place.drop(self.held_store)
            self.held_store = None

    def _raw(self, action: Mapping[str, Any]) -> None:
        do = action["do"]
        eid = self.execution_id
        persistent = self.place is not None and self.place.persistent
        if do == "holdWriter":  # a second writer: for a persistent store, a second store
            if persistent:
                assert self.place is not None
                self.held_store = self.place.new()
            self.held = (self.held_store if persistent else self.store).open(eid)
            if self.held.torn is not None:  # a writer that opens truncates a torn tail, and
                # says so (INTERPRETING.md section 6; journal.torn-tail: never silent)
                self._warn(f"journal.torn-tail: {eid!r} line {self.held.torn.line} was torn "
                           f"({self.held.torn.size} bytes); truncated by the second writer")
            return
        if do == "releaseWriter":
            self._release_held()
            return
        if not (os.path.exists(self.place.journal_file(eid))
                if persistent and self.place is not None
                else self.store.exists(eid)):  # nothing to edit (INTERPRETING.md section 6)
            raise JournalNotFoundError(f"no journal for execution {eid!r} to {do}",
                                       execution_id=eid)
        if persistent:  # the bytes of the one-file-per-execution form: the files store's
            assert self.place is not None
            path = self.place.journal_file(eid)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            self._edit(action, data)
            with open(path, "wb") as f:
                f.write(data)
            return
        self._edit(action, self.store.data[eid])

    @staticmethod
    def _edit(action: Mapping[str, Any], data: bytearray) -> None:
        do = action["do"]
        if do != "appendBytes" and action["line"] > bytes(data).count(b"\n") + 1:
            raise ScenarioBug(f"{do} line {action['line']}: the journal has no such line")
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
            if _CRC_END.search(line) is None:  # a torn tail, an empty last line: no crc
                raise ScenarioBug(f"corrupt line {action['line']}: the line has no crc member")
            digits = b"ffffffff" if line[-10:-2] == b"00000000" else b"00000000"
            lines[n] = line[:-10] + digits + line[-2:]
            data[:] = b"\n".join(lines)

    def journal(self) -> dict[str, Any] | None:
        """The final ``journal`` observation."""
        self._release_held()
        try:
            if self.place is not None and self.place.persistent:
                self.place.drop(self.store)
                self.store = self.place.new()  # a reader opens what the last action left
            if not self.store.exists(self.execution_id):
                return None
            parsed = self.store.read(self.execution_id)
        except LoomError as exc:
            return {"error": error_observation(exc)}
        return {"events": [{"kind": e.kind.value, "payload": json.loads(json.dumps(
                    dict(e.payload)))} for e in parsed.events],
                "tornTail": parsed.torn is not None}
