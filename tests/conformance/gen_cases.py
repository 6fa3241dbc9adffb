"""Generate the journal.*, kernel.* and agent-loop scenario case files: check loom_ref
against each definition's hand-written claims, then write what loom_ref observed, with
patterns where the spec leaves a value open (the consensus-specs pattern: one script checks
the reference and yields vectors).

    python -m tests.conformance.gen_cases          # check only: files must be up to date
    python -m tests.conformance.gen_cases --write  # rewrite the files

A definition states its claims by hand (per action: the result or the refused code, the calls
made, the event kinds appended, the warnings); the generator refuses to write a case whose
observations contradict them. Open values: the ``message`` of an error that no script wrote
becomes ``{"$type": "string"}``, and a non-determinism error is matched by code and message
and the presence of ``expected`` and ``actual`` (``$partial``).
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from loom_ref.agent.loop import SUMMARY_PREFIX  # agent.summary-message, loom-ref's
from loom_ref.conformance.case import canonical_json
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.match import json_equal
from loom_ref.conformance.provenance import CORE, Provenance
from tests.casefiles import stamp

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "conformance", "cases")
ADAPTER = LoomRefAdapter()
STRING = {"$type": "string"}
OBJECT = {"$type": "object"}


class ClaimError(AssertionError):
    pass


def scenario(case_id: str, anchor: str, description: str, *, body: list[Any],
             actions: list[Any], claims: list[Mapping[str, Any]], effects: Any = None,
             deciders: Any = None, schemas: Any = None, execution_id: str | None = None,
             tier: str = "must", journal: Any = None, exclude: Any = None,
             workflow: str = "w", observe: list[str] | None = None,
             open_values: Any = None) -> dict[str, Any]:
    """A scenario definition (see the module docstring). ``observe`` asks every result for
    more members (INTERPRETING.md section 6); ``open_values(expect)`` replaces values the spec
    leaves open with patterns, after the claims are checked."""
    case: dict[str, Any] = {"id": case_id, "anchor": anchor, "tier": tier,
                            "description": description, "family": "scenario",
                            "workflow": {"name": workflow, "body": body}, "actions": actions}
    if schemas:
        case["workflow"]["resumeSchemas"] = schemas
    if effects:
        case["effects"] = effects
    if deciders:
        case["deciders"] = deciders
    if execution_id:
        case["executionId"] = execution_id
    if exclude:
        case["excludeModes"] = exclude
    if observe:
        case["observe"] = observe
    return {"case": case, "claims": claims, "journal": journal, "open": open_values}


def vector(case_id: str, anchor: str, description: str, *, function: str, input: Any,
           claim: Any, tier: str = "must") -> dict[str, Any]:
    """A vector definition; ``claim(result_or_error) -> bool`` or an exact expected value."""
    case = {"id": case_id, "anchor": anchor, "tier": tier, "description": description,
            "family": "vector", "function": function, "input": input}
    return {"case": case, "claim": claim}


# -- claims ---------------------------------------------------------------------------------
def _check_action(i: int, claim: Mapping[str, Any], obs: Mapping[str, Any]) -> None:
    def fail(what: str, want: Any, got: Any) -> None:
        raise ClaimError(f"action {i}: {what}: claimed {want!r}, observed {got!r}")

    if "result" in claim and not json_equal(claim["result"], obs.get("result")):
        fail("result", claim["result"], obs.get("result", obs))
    if "raised" in claim and obs.get("raised", {}).get("code") != claim["raised"]:
        fail("raised", claim["raised"], obs.get("raised", obs.get("result")))
    for key in ("crashed", "done"):
        if key in claim and obs.get(key) is not True:
            fail(key, True, obs)
    trace = obs["trace"]
    picks = {
        "calls": [e["call"]["stepId"] for e in trace if "call" in e],
        "transients": [e["transient"]["tool"] for e in trace if "transient" in e],
        "deciders": [e["decider"]["decisionId"] for e in trace if "decider" in e],
        "events": [e["event"]["kind"] for e in trace if "event" in e],
    }
    for key, got in picks.items():
        if key in claim and claim[key] != got:
            fail(key, claim[key], got)
    if claim.get("warnings", []) != obs["warnings"]:
        fail("warnings", claim.get("warnings", []), obs["warnings"])


def _scripted_errors(case: Mapping[str, Any]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            raised = value.get("raise")
            if isinstance(raised, Mapping) and "code" in raised:
                found.add((raised["code"], raised["message"]))
            if value.get("op") == "raise":
                found.add((value["code"], value["message"]))
            if "error" in value and isinstance(value["error"], Mapping) and set(
                    value["error"]) == {"code", "message"}:
                found.add((value["error"]["code"], value["error"]["message"]))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(case)
    return found


def _open_values(value: Any, scripted: set[tuple[str, str]]) -> Any:
    if isinstance(value, list):
        return [_open_values(v, scripted) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: _open_values(v, scripted) for k, v in value.items()}
    err = value.get("error")
    if isinstance(err, Mapping) and "message" in err:
        if err.get("code") == "kernel.nondeterminism":
            out["error"] = {"$partial": {
                "code": err["code"], "message": STRING,
                "expected": _pinned(err.get("expected"), ("seq", "command", "id", "toolId")),
                "actual": _pinned(err.get("actual"), ("command", "id", "toolId"))}}
        elif (err["code"], err["message"]) not in scripted:
            out["error"] = {**err, "message": STRING}
    return out


def _pinned(side: Any, members: tuple[str, ...]) -> Any:
    """The members of a non-determinism error's ``expected`` or ``actual`` that
    ``kernel.replay-compare`` names, as a ``$partial``: the others are
    implementation-defined."""
    if not isinstance(side, Mapping):
        return OBJECT
    return {"$partial": {k: side[k] for k in members if k in side}}


def _without_paths(expect: Any) -> Any:
    """``expect`` without the ``paths`` of ``raised`` observations: the problems' JSON
    Pointers are loom-ref's (``kernel.schema-problems``), so a core case does not pin them."""
    for obs in expect.get("actions", ()):
        if isinstance(obs.get("raised"), dict):
            obs["raised"].pop("paths", None)
    return expect


def _without_summary_form(expect: Any) -> Any:
    """``expect`` with the forms of compaction that are loom-ref's left open: the input of a
    ``:compact`` step (``agent.compaction-io``) and the summary message that replaces the
    folded messages (``agent.summary-message``). Each is a ``$capture``, so the same value
    must still appear wherever it appears again (the trace, the journal, a recovery), and a
    core case pins where compaction happens, never loom-ref's words for it."""
    summaries: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            content = value.get("content")
            if (value.get("role") is not None and isinstance(content, list) and content
                    and isinstance(content[0], dict)
                    and str(content[0].get("text", "")).startswith(SUMMARY_PREFIX)):
                name = summaries.setdefault(content[0]["text"], f"summary-{len(summaries)}")
                return {"$capture": name}
            step = value.get("stepId")
            out = {k: walk(v) for k, v in value.items()}
            if isinstance(step, str) and step.endswith(":compact") and "input" in value:
                out["input"] = {"$capture": f"input-{step}"}
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(expect)


def build_scenario(defn: Mapping[str, Any]) -> dict[str, Any]:
    """Run a scenario definition on loom_ref, check its claims, return the case file."""
    case = copy.deepcopy(defn["case"])
    reply = ADAPTER.run(case)
    if "observations" not in reply:
        raise ClaimError(f"{case['id']}: loom_ref did not run it: {reply}")
    obs = reply["observations"]
    if len(defn["claims"]) != len(case["actions"]):
        raise ClaimError(f"{case['id']}: one claim per action")
    try:
        for i, (claim, got) in enumerate(zip(defn["claims"], obs["actions"], strict=True)):
            _check_action(i, claim, got)
        want = defn["journal"]
        if want is not None:
            journal = obs["journal"]
            # a claimed journal lists event kinds, or whole events ``{kind, payload}``
            got_j: Any = ({"error": journal["error"]["code"]} if "error" in journal
                          else [e if isinstance(w, Mapping) else e["kind"]
                                for e, w in zip(journal["events"], want, strict=False)]
                          + [e["kind"] for e in journal["events"][len(want):]])
            if not json_equal(want, got_j):
                raise ClaimError(f"journal: claimed {want!r}, observed {got_j!r}")
        # further hand-written claims: ``(what, check(observations) -> bool)``
        for what, check in defn.get("checks", ()):
            if not check(obs):
                raise ClaimError(f"claim does not hold: {what}")
    except ClaimError as exc:
        raise ClaimError(f"{case['id']}: {exc}") from None
    case["expect"] = _open_values(obs, _scripted_errors(case))
    if Provenance(stamp(case)["provenance"]) in CORE:
        case["expect"] = _without_summary_form(_without_paths(case["expect"]))
    if defn.get("open") is not None:
        case["expect"] = defn["open"](case["expect"])
    return case


def build_vector(defn: Mapping[str, Any]) -> dict[str, Any]:
    case = copy.deepcopy(defn["case"])
    reply = ADAPTER.run(case)
    if "observations" not in reply:
        raise ClaimError(f"{case['id']}: loom_ref did not run it: {reply}")
    obs = reply["observations"]
    claim = defn["claim"]
    ok = claim(obs) if callable(claim) else json_equal(claim, obs)
    if not ok:
        raise ClaimError(f"{case['id']}: claim does not hold for {obs!r}")
    case["expect"] = obs
    return case


def definitions() -> Iterator[dict[str, Any]]:
    from tests.conformance import (
        defs_agent,
        defs_agent_mutation_s4,
        defs_agent_reach,
        defs_agent_truncation,
        defs_edge_kja,
        defs_journal,
        defs_journal_blind,
        defs_journal_blind2,
        defs_journal_blind3,
        defs_journal_blind4,
        defs_journal_blind5,
        defs_journal_blind6,
        defs_journal_blind7,
        defs_journal_blind8,
        defs_journal_cov,
        defs_journal_disk,
        defs_journal_hostile,
        defs_kernel_blind,
        defs_kernel_blind2,
        defs_kernel_blind3,
        defs_kernel_gates,
        defs_kernel_reach,
        defs_kernel_recover,
        defs_kernel_replay,
        defs_kernel_report,
        defs_kernel_schema,
        defs_kernel_steps,
        defs_mutation3,
        defs_mutation_s4s5j,
        defs_mutation_s4s5k,
        defs_mutation_s6a,
        defs_mutation_s6j,
        defs_mutation_s10r,
        defs_mutation_s11j2,
        defs_mutation_s456a,
    )

    for module in (defs_journal, defs_journal_hostile, defs_journal_disk, defs_journal_blind,
                   defs_journal_blind2, defs_journal_cov, defs_journal_blind3,
                   defs_journal_blind4, defs_journal_blind5, defs_journal_blind6,
                   defs_journal_blind7, defs_journal_blind8,
                   defs_kernel_steps,
                   defs_kernel_gates, defs_kernel_replay, defs_kernel_recover,
                   defs_kernel_report, defs_kernel_schema, defs_kernel_blind, defs_kernel_blind2,
                   defs_kernel_blind3,
                   defs_kernel_reach,
                   defs_agent, defs_agent_reach,
                   defs_agent_truncation, defs_edge_kja, defs_mutation3,
                   defs_mutation_s456a, defs_mutation_s4s5j,
                   defs_mutation_s4s5k, defs_agent_mutation_s4, defs_mutation_s6a,
                   defs_mutation_s6j, defs_mutation_s10r,
                   defs_mutation_s11j2):
        yield from module.DEFINITIONS


def build_all() -> dict[str, str]:
    """``{relative path: file text}`` for every definition."""
    files: dict[str, str] = {}
    for defn in definitions():
        case = build_vector(defn) if "claim" in defn else build_scenario(defn)
        group, name = case["id"].split("/", 1)
        path = os.path.join(group, name + ".json")
        if path in files:
            raise ClaimError(f"{case['id']} is defined twice")
        files[path] = canonical_json(stamp(case))
    return files


#: The groups this script owns (the agent.* vector groups belong to tests/agent/gen_vectors.py).
OWN_PREFIXES = ("journal.", "kernel.", "agent.loop", "agent.tools", "agent.approval",
                "agent.choices", "agent.router", "agent.summary", "agent.errors")


def stale(files: Mapping[str, str]) -> list[str]:
    """The files that differ from (or are missing in, or are extra in) conformance/cases."""
    problems = []
    for path, text in files.items():
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            problems.append(f"missing {path}")
            continue
        with open(full, encoding="utf-8") as f:
            if f.read() != text:
                problems.append(f"differs {path}")
    for group in sorted(os.listdir(ROOT)):
        if group.startswith(OWN_PREFIXES):
            for name in sorted(os.listdir(os.path.join(ROOT, group))):
                if os.path.join(group, name) not in files:
                    problems.append(f"extra {group}/{name}")
    return problems


def write(files: Mapping[str, str]) -> None:
    for group in os.listdir(ROOT):
        if group.startswith(OWN_PREFIXES):
            for name in os.listdir(os.path.join(ROOT, group)):
                os.remove(os.path.join(ROOT, group, name))
    for path, text in files.items():
        full = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    for group in os.listdir(ROOT):
        if group.startswith(OWN_PREFIXES) and not os.listdir(os.path.join(ROOT, group)):
            os.rmdir(os.path.join(ROOT, group))


def main(argv: list[str]) -> int:
    files = build_all()
    if "--write" in argv:
        write(files)
        print(f"wrote {len(files)} case files")
        return 0
    problems = stale(files)
    for p in problems:
        print(p)
    print(f"{len(files)} definitions, {len(problems)} stale file(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
