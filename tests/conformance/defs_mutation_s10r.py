"""Agent scenarios that close the agent survivors of the fresh mutation samples 252125, 13564
and 97256 left to branch s10r (issue 30).

- ``agent.loop/default-max-iterations`` and ``agent.loop/answer-at-default-max-iterations``:
  a config with no ``maxIterations`` takes the default, 25 (``agent.max-iterations``: "At
  most ``max_iterations`` (default 25) turns per run"): a model that never stops calling
  tools fails after its 25th call, with no 26th; one that answers on its 25th call completes.

``gen_cases.definitions()`` reads ``DEFINITIONS``.
"""

from __future__ import annotations

from typing import Any

from .defs_agent import BASE, PRICE, START, agent, answer, calling, done, failed, said, scripted

__all__ = ["DEFINITIONS"]

#: the bound a config without maxIterations takes (spec: agent.max-iterations)
DEFAULT_MAX_ITERATIONS = 25
_CALL = calling(("c0", "lookup", {"item": "tea"}))


def _calls(turns: int, *, tools: int) -> list[str]:
    """The step ids of ``turns`` model calls, the first ``tools`` of them each with one tool
    call (agent.identity)."""
    ids: list[str] = []
    for i in range(turns):
        ids.append(f"#turn:{i}")
        if i < tools:
            ids.append(f"#turn:{i}:tool:0")
    return ids


DEFINITIONS: list[dict[str, Any]] = [
    agent("agent.loop/default-max-iterations", "agent.max-iterations",
          "A config with no maxIterations takes the default, 25: a model that never stops "
          "calling tools fails with agent.max-iterations after its 25th call, and no 26th "
          "turn is started.",
          config=BASE,
          effects={"llm": scripted(_CALL), "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": failed("agent.max-iterations"),
                   "calls": _calls(DEFAULT_MAX_ITERATIONS, tools=DEFAULT_MAX_ITERATIONS)}]),
    agent("agent.loop/answer-at-default-max-iterations", "agent.max-iterations",
          "The default bound's accept side: with no maxIterations, a run whose answer comes "
          "on the 25th model call completes.",
          config=BASE,
          effects={"llm": scripted(*[_CALL] * (DEFAULT_MAX_ITERATIONS - 1),
                                   said("Tea costs 10.")),
                   "lookup": scripted(PRICE)},
          actions=[START],
          claims=[{"result": done(answer("Tea costs 10.", DEFAULT_MAX_ITERATIONS)),
                   "calls": _calls(DEFAULT_MAX_ITERATIONS, tools=DEFAULT_MAX_ITERATIONS - 1)}]),
]
