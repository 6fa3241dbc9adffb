"""The scenario body language: a closed instruction set, compiled to a runner body.

Rules (``conformance/INTERPRETING.md`` section 5). A body is a list of instructions, run in
order; each is an object whose ``op`` is one of :data:`OPS`:

- ``execute {tool, input?, stepId?, as?}`` -- ``ctx.execute(tool, input)`` (an explicit step
  id if given), the output bound to ``as``;
- ``decide {id, decider?, context?, alternatives?, as?}`` -- ``ctx.decide(id, d)`` where
  ``d`` is the case's scripted decider named ``decider`` (default: ``id``);
- ``suspend {gate, on?, correlationKey?, resumeSchema?, as?}`` -- ``ctx.suspend(gate)``, the
  resume payload bound to ``as``;
- ``stream {data}`` -- ``ctx.stream(data)``;
- ``set {var, value}``; ``if {cond, then, else?}`` (JSON truthiness: ``false``, ``null``,
  ``0``, ``""``, ``[]`` and ``{}`` are false); ``repeat {times, as?, body}`` (``as`` is the
  0-based index);
- ``try {body, catch {as?, body}}`` -- runs ``body``; an error raised into it (a failed step,
  a decider that threw, a duplicate id, a yielded non-command) runs ``catch.body`` with
  ``as`` bound to ``{"code": <the error's code>}`` (``null`` for a scripted error without a code);
- ``return {value?}`` -- ends the body with ``value`` (default ``null``); falling off the end
  returns ``null``;
- ``raise {code, message}`` -- the body raises an error with that code and message;
- ``yield {value?}`` -- the body yields the JSON value of ``value`` itself (default
  ``null``), which is no command: the kernel raises ``argument.command`` into the body
  (spec: kernel.commands);
- ``agent_loop {config, input?, opaque?, as?}`` -- ``answer = yield from agent_loop(ctx,
  config, input)`` (``spec/agent.md``; with ``opaque: true``, ``agent_step``), ``config`` a
  literal JSON config that the runner's hooks turn into the implementation's loop
  configuration (:mod:`loom_ref.conformance.agent_config`, INTERPRETING.md section 5a); the
  answer is bound to ``as``. Needs capability ``agent``.

Variables are one flat scope per drive of the body. The compiled body only *builds* commands
through ``ctx`` and yields them, so the same compiled body runs on loom_ref's kernel (the
in-process adapter) and on the linear model (:mod:`loom_ref.conformance.model`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, Protocol

from loom_ref.conformance.expressions import Env, check_expr, evaluate
from loom_ref.conformance.world import ScriptedError, ScriptedFailure
from loom_ref.errors import LoomError

__all__ = ["OPS", "Hooks", "check_body", "compile_body"]

OPS = frozenset({"execute", "decide", "suspend", "stream", "set", "if", "repeat", "try",
                 "return", "raise", "yield", "agent_loop"})

BodyFn = Callable[[Any, Any], Generator[Any, Any, Any]]


class Hooks(Protocol):
    """What a compiled body needs from whoever runs it."""

    def decider(self, name: str, decision_id: str) -> Callable[[Any], Any]:
        """The callable to pass to ``ctx.decide`` for scripted decider ``name``."""
        ...

    def drift(self, name: str, values: list[Any]) -> Any:
        """The next value of ``$drift`` source ``name``."""
        ...

    def agent_loop(self, ctx: Any, config: Mapping[str, Any], input: Any, *, opaque: bool
                   ) -> Generator[Any, Any, Any]:
        """The agent loop of an ``agent_loop`` instruction, over ``ctx`` (``opaque``: the
        one-frame ``agent_step`` form)."""
        ...


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__("return")
        self.value = value


def _block(ctx: Any, body: Sequence[Mapping[str, Any]], env: Env, hooks: Hooks
           ) -> Generator[Any, Any, None]:
    for ins in body:
        op = ins["op"]
        result: Any = None
        if op == "execute":
            kwargs = {"step_id": ins["stepId"]} if "stepId" in ins else {}
            result = yield ctx.execute(ins["tool"], evaluate(ins.get("input"), env), **kwargs)
        elif op == "decide":
            extra = {k: evaluate(ins[k], env) for k in ("context", "alternatives") if k in ins}
            decider = hooks.decider(ins.get("decider", ins["id"]), ins["id"])
            result = yield ctx.decide(ins["id"], decider, **extra)
        elif op == "suspend":
            result = yield ctx.suspend(ins["gate"], on=ins.get("on"),
                                       correlation_key=ins.get("correlationKey"),
                                       resume_schema=ins.get("resumeSchema"))
        elif op == "stream":
            yield ctx.stream(evaluate(ins["data"], env))
        elif op == "set":
            env.vars[ins["var"]] = evaluate(ins["value"], env)
        elif op == "if":
            branch = ins["then"] if evaluate(ins["cond"], env) else ins.get("else", [])
            yield from _block(ctx, branch, env, hooks)
        elif op == "repeat":
            for i in range(ins["times"]):
                if "as" in ins:
                    env.vars[ins["as"]] = i
                yield from _block(ctx, ins["body"], env, hooks)
        elif op == "try":
            try:
                yield from _block(ctx, ins["body"], env, hooks)
            except (LoomError, ScriptedFailure) as exc:
                handler = ins["catch"]
                if "as" in handler:  # an error that carries no code is caught with code null
                    env.vars[handler["as"]] = {
                        "code": exc.code if isinstance(exc, LoomError) else None}
                yield from _block(ctx, handler["body"], env, hooks)
        elif op == "return":
            raise _Return(evaluate(ins.get("value"), env))
        elif op == "raise":
            raise ScriptedError(ins["message"], code=ins["code"])
        elif op == "yield":  # a plain JSON value, no command (spec: kernel.commands)
            yield evaluate(ins.get("value"), env)
        elif op == "agent_loop":
            result = yield from hooks.agent_loop(ctx, ins["config"],
                                                 evaluate(ins.get("input"), env),
                                                 opaque=bool(ins.get("opaque", False)))
        if "as" in ins and op in ("execute", "decide", "suspend", "agent_loop"):
            env.vars[ins["as"]] = result


def compile_body(body: Sequence[Mapping[str, Any]], hooks: Hooks) -> BodyFn:
    """A generator function ``body(ctx, input)`` running the instructions."""

    def run(ctx: Any, input: Any) -> Generator[Any, Any, Any]:
        env = Env(input, hooks.drift)
        try:
            yield from _block(ctx, body, env, hooks)
        except _Return as ret:
            return ret.value
        return None

    return run


def check_body(body: Any, path: str = "body") -> list[str]:
    """Static problems of a body beyond its schema: expressions with unknown operators."""
    problems: list[str] = []
    if not isinstance(body, list):
        return [f"{path}: a body is an array of instructions"]
    for i, ins in enumerate(body):
        where = f"{path}[{i}]"
        if not isinstance(ins, Mapping) or ins.get("op") not in OPS:
            problems.append(f"{where}: not an instruction")
            continue
        for key in ("input", "context", "alternatives", "data", "value", "cond"):
            if key in ins:
                problems += check_expr(ins[key], f"{where}.{key}")
        for key in ("then", "else", "body"):
            if key in ins:
                problems += check_body(ins[key], f"{where}.{key}")
        if ins["op"] == "try" and isinstance(ins.get("catch"), Mapping):
            problems += check_body(ins["catch"].get("body"), f"{where}.catch.body")
    return problems
