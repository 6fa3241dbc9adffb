"""Generated checks: variants the runner derives from each case, with derived expectations.

Rules (``conformance/INTERPRETING.md`` section 8). Every implementation gets these for free:
they are ordinary cases sent over the protocol, and their expectations are computed from the
base case's expectation alone (never from an implementation's answers).

- ``crash`` (anchor ``kernel.recover``; ``kernel.in-doubt`` where it applies): for every
  event that a writing action (start, resume, recover, resolve) appends, the same case with
  ``crash: {afterEvent: j}`` on that action, followed by ``recover``. Expected: the crashed
  action traced up to and including that event; the recovery makes only the rest of the
  action's trace (the remaining calls, nothing twice) and ends with the action's outcome; the
  journal equals the base journal. If the last event written is the ``STEP_STARTED`` of a
  step whose effect is not idempotent, the in-doubt rule applies instead: recovery appends
  ``STEP_IN_DOUBT``, parks in doubt and warns ``kernel.in-doubt``; then ``resolve {retry}``
  makes the rest of the trace, and the journal is the base one with that ``STEP_IN_DOUBT``
  inserted.
- ``torn`` (anchor ``journal.torn-tail``): the same with ``crash: {afterEvent: j, torn:
  true}``: event j is cut short, so recovery warns ``journal.torn-tail`` and redoes the
  trace from event j on. Recovery is ``recover``, or the same action again if event j was
  its first. Left out: an event written right after an invocation (the call happened, so a
  redo would call again), and a step outcome whose STEP_STARTED is already written (the
  in-doubt rule applies to it); the crash variants cover both.
- ``replay`` (anchor ``kernel.replay-readonly``): the case followed by ``replay``, expected
  to end where the execution stands, with an empty trace (no effect, transient or decider
  invocation).
- ``always-replay`` (anchor ``kernel.replay-serve``; needs capability ``always-replay``):
  the case with ``options.alwaysReplay`` and a ``replay`` after every action that returned a
  result.
- ``prefix`` (anchor ``journal.torn-tail``): for a ``journal.parse`` vector whose text
  parses whole, the text cut at every byte offset (on a character boundary): the complete
  lines parse, the rest is the torn tail.
- ``store`` (anchor ``journal.stores-agree``): for an implementation whose start reply names
  more than one journal store (``stores``), every scenario once more on each store but the
  first, with ``options.store``: the expectation is the base case's. A case that edits a
  journal's bytes (``tear``, ``appendBytes``, ``corrupt``) is written for the
  one-file-per-execution form of ``spec/journal.md`` section 1.1: an implementation answers
  it *skipped* on a store that keeps journals in another form.

A case's ``observe`` (extra result members) is left out of its variants, with those members.
A case opts out of a mode with ``excludeModes: {mode: reason}``. Some cases are left out
automatically, because their expectation cannot be carried over: raw journal actions,
``$drift``, a decider that may raise (itself, or through a transient call to a tool whose
script raises: the kernel.decider-throws hole re-runs it), a
non-determinism error, an action already carrying ``crash`` (no crash or torn variants).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from loom_ref.conformance.case import Case, Family
from loom_ref.conformance.expressions import uses_drift

__all__ = ["BYTE_EDITS", "MODES", "auto_exclusions", "derive"]

MODES = ("crash", "torn", "replay", "always-replay", "prefix", "store")
_WRITERS = frozenset({"start", "resume", "recover", "resolve"})
_RAW = frozenset({"tear", "appendBytes", "corrupt", "holdWriter", "releaseWriter"})
#: the raw actions that edit a journal's bytes (the store mode leaves their cases out)
BYTE_EDITS = frozenset({"tear", "appendBytes", "corrupt"})
_ANY = {"$any": None}
_OUTCOMES = frozenset({"STEP_COMPLETED", "STEP_FAILED"})


def _variant(case: Case, suffix: str, mode: str, anchor: str, changes: Mapping[str, Any]
             ) -> Case:
    data = dict(case.data)
    data.update(changes)
    data["id"] = f"{case.id}#{suffix}"
    data["anchor"] = anchor
    data.pop("excludeModes", None)
    return Case(data=data, path=case.path, mode=mode, base_id=case.id)


def _decider_may_raise(data: Mapping[str, Any]) -> bool:
    """Whether some decider raises, itself or through a transient call to a failing tool."""
    effects = data.get("effects", {})
    failing = {t for t, spec in effects.items() if any("raise" in e for e in spec["script"])}
    for decider in data.get("deciders", {}).values():
        for entry in decider["script"]:
            if "raise" in entry:
                return True
            call = entry.get("invokeTransient")
            if call is not None and (call["tool"] in failing or call["tool"] not in effects):
                return True
    return False


def auto_exclusions(case: Case) -> dict[str, str]:
    """The modes a scenario cannot have, with the reason (see the module rules)."""
    data = case.data
    actions = data["actions"]
    expect = data["expect"]
    reasons: dict[str, str] = {}

    def all_modes(reason: str) -> None:
        for mode in ("crash", "torn", "replay", "always-replay"):
            reasons.setdefault(mode, reason)

    if any(a["do"] in _RAW for a in actions):
        all_modes("raw journal actions")
    if uses_drift(data["workflow"]):
        all_modes("$drift")
    if _decider_may_raise(data):
        all_modes("a decider that raises is re-run on replay (kernel.decider-throws)")
    for obs in expect["actions"]:
        err = obs.get("result", {}).get("error", {}) if isinstance(obs, Mapping) else {}
        if isinstance(err, Mapping) and err.get("code") == "kernel.nondeterminism":
            all_modes("a non-determinism error")
    if any("crash" in a for a in actions):
        reasons.setdefault("crash", "the case crashes already")
        reasons.setdefault("torn", "the case crashes already")
    journal = expect.get("journal")
    if not (isinstance(journal, Mapping) and isinstance(journal.get("events"), list)):
        reasons.setdefault("crash", "no journal expectation")
        reasons.setdefault("torn", "no journal expectation")
    return reasons


def _unobserved(case: Case) -> Case:
    """``case`` without ``observe`` and the result members it asks for: the generated modes
    carry over what every case observes (a recovery serves what the uncrashed run ran, so
    those members would not carry over)."""
    if "observe" not in case.data:
        return case
    data = copy.deepcopy(dict(case.data))
    asked = data.pop("observe")
    for obs in data["expect"]["actions"]:
        result = obs.get("result") if isinstance(obs, Mapping) else None
        if isinstance(result, dict):
            for name in asked:
                result.pop(name, None)
    return attrs.evolve(case, data=data)


def derive(case: Case, stores: Sequence[str] = ()) -> list[Case]:
    """Every variant of ``case`` (none for a variant: variants are not derived again);
    ``stores`` are the journal stores the implementation named (the first is the default)."""
    if case.mode != "base":
        return []
    if case.family is Family.VECTOR:
        if case.data["function"] == "journal.parse" and "prefix" not in case.data.get(
                "excludeModes", {}):
            return _prefixes(case)
        return []
    excluded = {**auto_exclusions(case), **case.data.get("excludeModes", {})}
    plain = _unobserved(case)
    out: list[Case] = []
    if "crash" not in excluded or "torn" not in excluded:
        out += _crashes(plain, crash="crash" not in excluded, torn="torn" not in excluded)
    if "replay" not in excluded:
        out += _replay(plain)
    if "always-replay" not in excluded:
        out += _always_replay(plain)
    if "store" not in excluded:  # the same case on another store: it observes the same
        out += [_variant(case, f"store@{name}", "store", "journal.stores-agree",
                         {"options": {**case.data.get("options", {}), "store": name}})
                for name in stores[1:]]
    return out


# -- crash and torn ------------------------------------------------------------------------
def _event_positions(trace: Sequence[Any]) -> list[int]:
    return [i for i, entry in enumerate(trace) if isinstance(entry, Mapping) and "event" in entry]


def _crashes(case: Case, *, crash: bool, torn: bool) -> list[Case]:
    data = case.data
    actions = data["actions"]
    expect = data["expect"]
    effects = data.get("effects", {})
    base_events = list(expect["journal"]["events"])
    out: list[Case] = []
    seen = 0  # events appended by the actions before this one
    for i, (action, obs) in enumerate(zip(actions, expect["actions"], strict=True)):
        trace = obs.get("trace", [])
        positions = _event_positions(trace)
        if action["do"] in _WRITERS and "result" in obs:
            for j, pos in enumerate(positions, start=1):
                g = seen + j
                event = trace[pos]["event"]
                if crash:
                    out.append(_crash_variant(case, i, j, g, pos, event, effects, base_events))
                after_call = pos > 0 and "event" not in trace[pos - 1]
                outcome = j > 1 and event["kind"] in _OUTCOMES
                if torn and not after_call and not outcome:
                    out.append(_torn_variant(case, i, j, g, pos))
        seen += len(positions)
    return out


def _splice(case: Case, i: int, replace_action: list[Any], replace_obs: list[Any],
            journal: Any | None = None) -> dict[str, Any]:
    actions = list(case.data["actions"])
    expect = copy.deepcopy(dict(case.data["expect"]))
    actions[i:i + 1] = replace_action
    expect["actions"][i:i + 1] = replace_obs
    if journal is not None:
        expect["journal"] = journal
    return {"actions": actions, "expect": expect}


def _crash_variant(case: Case, i: int, j: int, g: int, pos: int, event: Mapping[str, Any],
                   effects: Mapping[str, Any], base_events: list[Any]) -> Case:
    action = dict(case.data["actions"][i])
    obs = case.data["expect"]["actions"][i]
    trace = obs["trace"]
    crashed = {**action, "crash": {"afterEvent": j}}
    crashed_obs = {"crashed": True, "trace": trace[: pos + 1], "warnings": _ANY}
    rest = trace[pos + 1:]
    tool = event["payload"].get("toolId") if event["kind"] == "STEP_STARTED" else None
    if tool is not None and not effects.get(tool, {}).get("idempotent", False):
        step = event["payload"]["stepId"]
        in_doubt = {"kind": "STEP_IN_DOUBT", "payload": {"stepId": step}}
        recover_obs = {"result": {"status": "in-doubt", "inDoubtStep": step},
                       "trace": [{"event": in_doubt}],
                       "warnings": {"$includes": ["kernel.in-doubt"]}}
        resolve_obs = {"result": obs["result"], "trace": rest, "warnings": _ANY}
        journal = {**case.data["expect"]["journal"],
                   "events": [*base_events[:g], in_doubt, *base_events[g:]]}
        changes = _splice(case, i, [crashed, {"do": "recover"},
                                    {"do": "resolve", "step": step, "retry": True}],
                          [crashed_obs, recover_obs, resolve_obs], journal)
        return _variant(case, f"crash@{g}", "crash", "kernel.in-doubt",
                        {**changes, "requires": [*case.data.get("requires", ()), "crash"]})
    recover_obs = {"result": obs["result"], "trace": rest, "warnings": _ANY}
    changes = _splice(case, i, [crashed, {"do": "recover"}], [crashed_obs, recover_obs])
    return _variant(case, f"crash@{g}", "crash", "kernel.recover",
                    {**changes, "requires": [*case.data.get("requires", ()), "crash"]})


def _torn_variant(case: Case, i: int, j: int, g: int, pos: int) -> Case:
    action = dict(case.data["actions"][i])
    obs = case.data["expect"]["actions"][i]
    trace = obs["trace"]
    crashed = {**action, "crash": {"afterEvent": j, "torn": True}}
    crashed_obs = {"crashed": True, "trace": trace[:pos], "warnings": _ANY}
    again = {"do": "recover"} if j > 1 else dict(action)
    again_obs = {"result": obs["result"], "trace": trace[pos:],
                 "warnings": {"$includes": ["journal.torn-tail"]}}
    changes = _splice(case, i, [crashed, again], [crashed_obs, again_obs])
    return _variant(case, f"torn@{g}", "torn", "journal.torn-tail",
                    {**changes, "requires": [*case.data.get("requires", ()), "torn-write"]})


# -- replay --------------------------------------------------------------------------------
def _replay_obs(result: Any) -> dict[str, Any]:
    return {"result": result, "trace": [], "warnings": []}


def _replay(case: Case) -> list[Case]:
    results = [o["result"] for o in case.data["expect"]["actions"] if "result" in o]
    if not results:
        return []
    expect = copy.deepcopy(dict(case.data["expect"]))
    expect["actions"].append(_replay_obs(results[-1]))
    return [_variant(case, "replay", "replay", "kernel.replay-readonly",
                     {"actions": [*case.data["actions"], {"do": "replay"}], "expect": expect})]


def _always_replay(case: Case) -> list[Case]:
    actions: list[Any] = []
    observed: list[Any] = []
    for action, obs in zip(case.data["actions"], case.data["expect"]["actions"], strict=True):
        actions.append(action)
        observed.append(obs)
        if "result" in obs:
            actions.append({"do": "replay"})
            observed.append(_replay_obs(obs["result"]))
    expect = {**case.data["expect"], "actions": observed}
    return [_variant(case, "always-replay", "always-replay", "kernel.replay-serve",
                     {"actions": actions, "expect": expect,
                      "options": {**case.data.get("options", {}), "alwaysReplay": True},
                      "requires": [*case.data.get("requires", ()), "always-replay"]})]


# -- prefixes of a journal text ------------------------------------------------------------
def _prefixes(case: Case) -> list[Case]:
    expect = case.data["expect"]
    result = expect.get("result")
    text = case.data["input"].get("text") if isinstance(case.data["input"], Mapping) else None
    if not (isinstance(result, Mapping) and result.get("torn") is None
            and isinstance(text, str) and text.endswith("\n")):
        return []
    raw = text.encode("utf-8")
    events = list(result["events"])
    out: list[Case] = []
    for cut in range(len(raw)):
        try:
            prefix = raw[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        newlines = raw[:cut].count(b"\n")
        good = raw[:cut].rfind(b"\n") + 1
        torn = None if good == cut else {"line": newlines + 1, "size": cut - good}
        want = {"executionId": result["executionId"] if newlines else None,
                "events": events[: max(0, newlines - 1)], "torn": torn}
        out.append(_variant(case, f"prefix@{cut}", "prefix", "journal.torn-tail",
                            {"input": {"text": prefix}, "expect": {"result": want}}))
    return out
