"""Skill selection and memory recall, recorded through ``ctx.decide`` so replay serves them.

Spec: ``spec/agent.md`` § Skills and recall; ADR 0087 D6: *"Skill selection now runs through
ctx.decide, so replay serves the set that ran"* -- an unrecorded selection "means a replayed
run can rebuild a different prompt than the one whose answer is in the log"; and *"Memory
recall likewise, via TieredMemory.recall({ decide }) and bounded by recallLimit"*.

- ``agent.skills``: once per run, before turn 0, the selector runs as the decider of decision
  ``#skills`` (context ``{"query"}``, alternatives: the library's names, sorted). Its choice
  is a list of skill names (or a ``Choice`` whose value is one, to record a policy and
  propensity); a name the library lacks is ``agent.unknown-skill``. The chosen skills'
  instructions are added to the system prompt in the chosen order.
- ``agent.recall``: once per run, before turn 0, ``memory.search(scope, query, limit)`` runs
  as the decider of decision ``#recall`` (context ``{"query", "recallLimit"}``); the decider
  keeps at most ``recall_limit`` items (strings), so the recorded set is bounded whatever the
  memory returns. The recalled items are added to the system prompt.
- ``agent.choices-replay``: on replay both decisions are served from the journal and the
  selector and the memory are not called (``kernel.replay-serve``).
- The query is the text of the newest user message of the loop's input.
- ``agent.system-prompt``: the system prompt is ``system``, then ``"\\n\\n## Skills"`` with
  ``"\\n\\n### <name>\\n<instructions>"`` per chosen skill, then ``"\\n\\n## Relevant
  memory"`` with ``"\\n- <item>"`` per item; a section with nothing in it is omitted, and a
  prompt that would begin with the separator begins with the heading instead.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from loom_ref.agent.errors import UnknownSkillError
from loom_ref.agent.identity import RECALL_DECISION_ID, SKILLS_DECISION_ID
from loom_ref.effects.scope import DecideScope
from loom_ref.errors import InvalidArgument
from loom_ref.kernel.commands import Choice, Decide

__all__ = [
    "DecideFn",
    "ListMemory",
    "Memory",
    "Recall",
    "Skills",
    "compose_system",
    "recall",
    "select_skills",
]

#: ``ctx.decide``'s shape: builds the Decide command the body yields.
DecideFn = Callable[..., Decide]
#: A skill selector: ``select(scope, query) -> [names]`` or ``Choice(value=[names], ...)``.
SkillSelector = Callable[[DecideScope, str], Any]


@runtime_checkable
class Memory(Protocol):
    """What recall reads: at most ``limit`` items relevant to ``query``. ``scope`` is the
    decision's scope: a memory that asks a model does it with ``scope.invoke_transient``.
    (spec: agent.recall)"""

    def search(self, scope: DecideScope, query: str, limit: int) -> Sequence[str]: ...


def _library(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and k and isinstance(v, str) for k, v in value.items()
    ):
        raise InvalidArgument("Skills.library must map skill names to instruction strings")


def _callable(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not callable(value):
        raise InvalidArgument(f"{attr.name} must be callable")


@attrs.frozen(kw_only=True)
class Skills:
    """A skill library and the selector that picks from it (spec: agent.skills)."""

    library: Mapping[str, str] = attrs.field(validator=_library)
    select: SkillSelector = attrs.field(validator=_callable)


def _limit(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"recall_limit must be an int >= 1, got {value!r}")


def _memory(inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not callable(getattr(value, "search", None)):
        raise InvalidArgument("Recall.memory must have search(scope, query, limit)")


@attrs.frozen(kw_only=True)
class Recall:
    """Memory recall, bounded by ``recall_limit`` (spec: agent.recall)."""

    memory: Memory = attrs.field(validator=_memory)
    recall_limit: int = attrs.field(default=5, validator=_limit)


class ListMemory:
    """A small deterministic memory: items ranked by how many query words they share
    (ties: newest first); items sharing no word are not recalled (spec: agent.recall)."""

    def __init__(self, items: Sequence[str]) -> None:
        if (isinstance(items, str | bytes) or not isinstance(items, Iterable)
                or not all(isinstance(i, str) for i in items)):
            raise InvalidArgument("ListMemory takes a list of strings")
        self.items = list(items)
        self.searches = 0

    def search(self, scope: DecideScope, query: str, limit: int) -> list[str]:
        _check_query(query)
        _check_limit(limit)
        self.searches += 1
        words = set(query.lower().split())
        scored = [(len(words & set(item.lower().split())), pos, item)
                  for pos, item in enumerate(self.items)]
        return [item for score, _, item in sorted(scored, reverse=True) if score > 0][:limit]


def _check_query(query: object) -> None:
    if not isinstance(query, str):
        raise InvalidArgument(f"query must be a str, got {type(query).__name__}")


def _check_limit(limit: object) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidArgument(f"recall_limit must be an int >= 1, got {limit!r}")


def _check_decide(decide: object) -> None:
    if not callable(decide):
        raise InvalidArgument("decide must be callable (ctx.decide)")


def select_skills(decide: DecideFn, skills: Skills, query: str
                  ) -> Generator[Any, Any, list[str]]:
    """Yield the ``#skills`` decision; return the chosen names (spec: agent.skills)."""
    # spec: errors.invalid-argument -- checked before the decision is yielded
    _check_decide(decide)
    if not isinstance(skills, Skills):
        raise InvalidArgument(f"skills must be a Skills, got {type(skills).__name__}")
    _check_query(query)

    def as_list(value: Any) -> Any:
        # a list or tuple is recorded as a list; anything else is recorded as it is, and the
        # check below fails the run (a string is not split into its characters)
        return list(value) if isinstance(value, (list, tuple)) else value

    def decider(scope: DecideScope) -> Any:
        choice = skills.select(scope, query)
        if isinstance(choice, Choice):
            return Choice(value=as_list(choice.value), policy_id=choice.policy_id,
                          propensity=choice.propensity)
        return as_list(choice)

    chosen = yield decide(SKILLS_DECISION_ID, decider, context={"query": query},
                          alternatives=sorted(skills.library))
    if not isinstance(chosen, list) or not all(isinstance(n, str) for n in chosen):
        raise UnknownSkillError(f"a skill selection must be a list of names, got {chosen!r}")
    unknown = [n for n in chosen if n not in skills.library]
    if unknown:
        raise UnknownSkillError(f"selected skills {unknown} are not in the library",
                                unknown=unknown)
    return chosen


def recall(*, decide: DecideFn, memory: Memory, query: str, recall_limit: int
           ) -> Generator[Any, Any, list[str]]:
    """Yield the ``#recall`` decision; return the recalled items, at most ``recall_limit``
    (spec: agent.recall). Use as ``items = yield from recall(decide=ctx.decide, ...)``."""
    # spec: errors.invalid-argument -- checked before the decision is yielded
    _check_decide(decide)
    if not callable(getattr(memory, "search", None)):
        raise InvalidArgument("memory must have search(scope, query, limit)")
    _check_query(query)
    _check_limit(recall_limit)

    def decider(scope: DecideScope) -> list[str]:
        found = memory.search(scope, query, recall_limit)
        if not isinstance(found, (list, tuple)) or not all(isinstance(i, str) for i in found):
            raise InvalidArgument(  # spec: agent.recall -- raised inside the decider
                f"a memory's search must return a list of strings, got {found!r}")
        return list(found[:recall_limit])

    items = yield decide(RECALL_DECISION_ID, decider,
                         context={"query": query, "recallLimit": recall_limit})
    return list(items)


def compose_system(system: str, skills: Sequence[tuple[str, str]], memories: Sequence[str]
                   ) -> str:
    """The system prompt of a run (spec: agent.system-prompt): ``system`` a str, ``skills``
    ``(name, instructions)`` pairs of str, ``memories`` str items."""
    if not isinstance(system, str):  # spec: errors.invalid-argument
        raise InvalidArgument(f"system must be a str, got {type(system).__name__}")
    if not isinstance(skills, list | tuple) or not all(
            isinstance(s, list | tuple) and len(s) == 2 and all(isinstance(t, str) for t in s)
            for s in skills):
        raise InvalidArgument("skills must be a list of (name, instructions) string pairs")
    if not isinstance(memories, list | tuple) or not all(isinstance(m, str) for m in memories):
        raise InvalidArgument("memories must be a list of strings")
    parts = [system] if system else []
    if skills:
        parts.append("## Skills" + "".join(f"\n\n### {n}\n{text}" for n, text in skills))
    if memories:
        parts.append("## Relevant memory" + "".join(f"\n- {m}" for m in memories))
    return "\n\n".join(parts)
