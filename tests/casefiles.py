"""What every writer of case files adds to a case before it writes it: its ``provenance``
(``loom_ref.conformance.provenance``, ``conformance/INTERPRETING.md`` section 9a).

A case's provenance is its anchor's, the class beside the rule in ``spec/``, unless the case
is *weaker* than its rule: the rule comes from a seed, the upstream source or a convention,
but the case can only be observed through something loom-ref chose (a canonical form, a
default text, a Python-style refusal of a malformed argument, a name of loom-ref's, how it
counts characters or tokens). Such a case is ``loom-ref`` and counts in the loom-ref profile
only, so a faithful Loom port is never failed for it. :data:`WEAKER` lists each one with the
reason, in one reviewed place; a test checks that every id in it is a case.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from loom_ref.conformance.provenance import CORE, Provenance, spec_provenance, stamped

SPEC = Path(__file__).resolve().parents[1] / "spec"
PROVENANCE = spec_provenance(str(SPEC))

_SCHEMA_SUBSET = ("which schemas the kernel's subset accepts, and a gate's own schema, are "
                  "loom-ref's")
_WINDOW_BEFORE = ("the window is the text before the delta, loom-ref's reading of the seed's "
                  "\"the last deltaWindow chars\" (guards.running-text); read with the delta "
                  "in it, the edge moves by the delta's length")
_STRICT = "a refusal of a malformed argument is loom-ref's strictness, not the seed's behaviour"
_PII = "the PII validator's patterns and its rule names are loom-ref's"
_CANONICAL = "the exact text is loom-ref's canonical JSON (sorted keys) or a sha256 of it"
_BUDGET_METER = "BudgetMeter's admission arithmetic is loom-ref's meter, not K8.4's (not public)"
_KILL_SWITCH = "the kill switch's global and per-tool forms and their messages are loom-ref's"
_GRANTS = "GrantAuthorizer's grants and wildcards are loom-ref's authorizer (K2 is not public)"
_RETRY = "the retry middleware's retry_on and max_attempts are loom-ref's (R9 is not public)"
_TOKENS = "the token counter ceil(len / 4) is loom-ref's (K8.4's counting rule is not public)"
_WIRE = "stream.decode's refusals and their codes are loom-ref's strict decoder"
_REPLAY = "read-only replay and the non-determinism error are loom-ref's"
_LEFT_OPEN = ("the exact chunk list leaves the blocks open at an error finish, loom-ref's "
              "(stream.openai.block-layout); the finish itself is pinned by a fold case")
_GATE_ID = ("the approval gate's id <step id>:approval (which a resume names and a workflow's "
            "resume schemas key) and its on are loom-ref's names (agent.approval-gate-id); "
            "agent.approval/parks-any-gate pins the parking with the gate left open")
_CLOSE_ORDER = ("the exact chunk list closes the reasoning block when the text starts, "
                "loom-ref's (stream.openai.block-layout); the fold case pins the meaning")

#: Cases weaker than their rule: ``{case id: why the case rests on a loom-ref choice}``.
WEAKER: dict[str, str] = {
    "agent.approval/approved-one-refuses":
        "refusing an untyped payload that is not approved: true is loom-ref's fail-closed "
        "reading, and the default reason's text is loom-ref's",
    "agent.approval/config-schema-refused": _SCHEMA_SUBSET,
    "agent.approval/default-reason": "the default refusal reason's text is loom-ref's",
    "agent.approval/empty-reason": "the default refusal reason's text is loom-ref's",
    "agent.approval/fail-closed": "refusing an untyped payload that is not approved: true is "
                                  "loom-ref's fail-closed reading",
    "agent.approval/only-named-tools": _GATE_ID,
    "agent.approval/parks-before-effect": _GATE_ID,
    "agent.approval/refusal-is-data": _GATE_ID,
    "agent.approval/schema-checks-payload": _GATE_ID,
    "agent.approval/payload-not-an-object":
        "refusing an untyped payload that is not approved: true is loom-ref's fail-closed "
        "reading, and the default reason's text is loom-ref's",
    "agent.approval/two-gates-one-turn":
        "handling a turn's calls one at a time (checks, gate, step) is loom-ref's order",
    "agent.approval/unusable-call-not-parked": "error results without a step are loom-ref's",
    "agent.choices/query-newest-user": "how the recall query is built is loom-ref's",
    "agent.choices/query-newest-user-message":
        "how the recall query is built is loom-ref's, and with the system prompt's words "
        "(agent.system-prompt, loom-ref's) left open nothing of the seed's recall is left "
        "that agent.choices/recall-bounded does not pin",
    "agent.choices/query-without-user-message":
        "how the recall query is built is loom-ref's (the seed names no query): the empty "
        "query of a run with no user message is its reading",
    "agent.choices/query-newest-user-without-text":
        "how the recall query is built is loom-ref's",
    "agent.choices/recall-a-string": _STRICT,
    "agent.choices/recall-not-strings": _STRICT,
    "agent.choices/recall-null": _STRICT,
    "agent.choices/served-on-replay": _GATE_ID,
    "agent.choices/skills-chosen-twice": "using a repeated skill choice as recorded is loom-ref's",
    "agent.choices/skills-not-a-list": _STRICT,
    "agent.choices/skills-null": _STRICT,
    "agent.choices/unknown-skill": "failing the run on an unknown skill is loom-ref's",
    "agent.claim-check/bare-ref": _CANONICAL,
    "agent.claim-check/default-preview": _CANONICAL,
    "agent.claim-check/malformed-taint-encoding": _STRICT,
    "agent.claim-check/preview-truncated": _CANONICAL,
    "agent.claim-check/tainted-fenced": "the tainted envelope's members are loom-ref's",
    "agent.claim-check/tainted-nested-origins": "the tainted envelope's members are loom-ref's",
    "agent.claim-check/tainted-origins-sorted": "the tainted envelope's members are loom-ref's",
    "agent.claim-check/tainted-preview-false": "the tainted envelope's members are loom-ref's",
    "agent.compaction/at-thresholds-is-not-crossed": "reading 'crossed' as strictly greater "
                                                     "is loom-ref's",
    "agent.compaction/guard-keep-recent-not-below": "keepRecent's bounds are loom-ref's",
    "agent.compaction/guard-keep-recent-zero": "keepRecent's bounds are loom-ref's",
    "agent.compaction/guard-zero-threshold": "a threshold's lower bound is loom-ref's",
    "agent.errors/compaction-keep-recent-zero": "keepRecent's bounds are loom-ref's",
    "agent.errors/compaction-threshold-zero": "a threshold's lower bound is loom-ref's",
    "agent.errors/compaction-tool-id-empty": "refusing an empty compaction tool id is loom-ref's",
    "agent.errors/model-tool-id-empty":
        "reading an empty modelToolId as no model access is loom-ref's",
    "agent.errors/other-failure-passes": "which failures pass through unchanged is loom-ref's",
    "agent.loop/opaque-bad-input":
        "the input's code and reading it inside the step are loom-ref's",
    "agent.loop/opaque-config-checked-first": "refusing these options on agent_step is loom-ref's",
    "agent.loop/opaque-no-gate": "refusing these options on agent_step is loom-ref's",
    "agent.loop/opaque-no-stream": "refusing these options on agent_step is loom-ref's",
    "agent.loop/transcript-wire-json": "the tool message's exact form is loom-ref's",
    "agent.loop/warning-from-the-input": "when the transcript warning is checked is loom-ref's",
    "agent.router/elevate-choice": "recording a predicate's Choice as it is is loom-ref's",
    "agent.router/elevate-truthy": "recording a predicate's truthiness is loom-ref's",
    "agent.router/unknown-route": "failing the run on an unknown route is loom-ref's",
    "agent.summary/default-keep-recent": "the default keep_recent (8) is loom-ref's",
    "agent.summary/default-keep-recent-lowered":
        "the default keepRecent and its lowering are loom-ref's",
    "agent.summary/failed-summary-call": "a failed :compact step's turn error is loom-ref's",
    "agent.transcript/tool-result": _CANONICAL,
    "agent.transcript/tool-result-envelope": _CANONICAL,
    "deltas.failclosed/redaction-rule-order": "pattern_redactor is loom-ref's",
    "deltas.failclosed/refused-call-warns": "when the warning is given is loom-ref's",
    "deltas.guards/no-sinks-still-guarded": "guarding with no sink at all is loom-ref's",
    "deltas.guards/pii-split": _PII,
    "deltas.guards/input-only-validator-not-guarding": "a validator's phases encoding and the "
    "PII validator's patterns are loom-ref's",
    "deltas.llm/on-reset-fail-closed-warns": "that on_reset declares a configured sink is "
    "loom-ref's",
    "deltas.failclosed/no-budget-sever": _TOKENS,
    "deltas.failclosed/redaction-keys-kept": "pattern_redactor and the PII patterns are "
                                             "loom-ref's",
    "deltas.phases/output-violation-retried": _RETRY,
    "deltas.guards/token-budget": _TOKENS,
    "deltas.record/attempt-string": _STRICT,
    "deltas.record/input-not-object": _STRICT,
    "deltas.record/unknown-member": _STRICT,
    "deltas.record/usage-malformed": _STRICT,
    "deltas.failclosed/nothing-to-refuse-guarded": "when the warning is given is loom-ref's",
    "deltas.llm/output-only-validator-warns": "when the warning is given is loom-ref's",
    "deltas.failclosed/redaction-non-strings-kept": "pattern_redactor is loom-ref's",
    "deltas.record/attempt-on-text": _STRICT,
    "deltas.record/delta-not-text": _STRICT,
    "deltas.record/empty-text": _STRICT,
    "deltas.record/reset-and-done": _STRICT,
    "deltas.record/reset-attempt-one": _STRICT,
    "deltas.record/reset-with-text": _STRICT,
    "deltas.record/reset-without-attempt": _STRICT,
    "deltas.record/terminal-with-text": _STRICT,
    "deltas.record/usage-on-text": _STRICT,
    "deltas.record/delta-not-a-string": _STRICT,
    "deltas.record/delta-absent": _STRICT,
    "deltas.record/origin-absent": _STRICT,
    "deltas.record/attempt-on-terminal": _STRICT,
    "deltas.record/usage-on-reset": _STRICT,
    "effects.context/fields": "the context's field set is loom-ref's",
    "effects.metering/budget-exhausted": _BUDGET_METER,
    "effects.metering/budget-last-unit": _BUDGET_METER + " (admitting spent + estimate equal "
    "to the budget is that arithmetic)",
    "effects.metering/estimate": _BUDGET_METER,
    "effects.metering/over-budget-between-retries": _BUDGET_METER,
    "effects.refusals/denied-by-mode": _GRANTS,
    "effects.refusals/no-grants-deny-all": _GRANTS,
    "effects.refusals/wildcard-grant": _GRANTS,
    "effects.refusals/kill-global-and-tool": _KILL_SWITCH,
    "effects.refusals/kill-revive": _KILL_SWITCH,
    "effects.refusals/tool-revive-keeps-global": _KILL_SWITCH,
    "effects.refusals/kill-reason-replaced": _KILL_SWITCH,
    "effects.refusals/killed-global": _KILL_SWITCH,
    "effects.refusals/killed-other-tool": _KILL_SWITCH,
    "effects.retry/crash-not-caught": _RETRY,
    "effects.retry/exhausted": _RETRY,
    "effects.retry/max-attempts-one": _RETRY + "; so is that no sleep follows the last attempt "
    "(effects.retry-backoff)",
    "effects.retry/exhausted-last-error": _RETRY + "; what a retry that gives up raises, and "
    "that no sleep follows its last attempt, are its behaviour (effects.retry-backoff), not "
    "the seed's attempt count",
    "effects.retry/not-retryable": _RETRY,
    "effects.retry/retry-on-match": _RETRY,
    "guards.budget/exactly-at-budget": _TOKENS,
    "guards.budget/sever-before-breach": _TOKENS,
    "guards.delta/card-split-across-deltas": _PII,
    "guards.delta/default-window-exactly-4096": _WINDOW_BEFORE,
    "guards.delta/default-window-one-past": _WINDOW_BEFORE,
    "guards.delta/first-delta": _PII,
    "guards.delta/no-redaction": _PII,
    "guards.delta/output-only-validator-refused": _STRICT,
    "guards.delta/output-only-validator-refused-no-deltas": _STRICT,
    "guards.delta/prefix-delivered": _PII,
    "guards.delta/ssn-char-by-char": _PII,
    "guards.delta/window-one": "a window is an int of at least 1 (0 refused): loom-ref's choice "
                               "(guards.window), the seed names only the default",
    "guards.holdback/max-width-ignored-for-bounded": "hold-back is an extension",
    "guards.steps/reset-clears-running-text": _PII,
    "guards.steps/sever-span-absolute": "a sever's span, absolute in the attempt's text, is "
                                        "loom-ref's detail (validators.violation)",
    "guards.steps/empty-delta-counts": "counting an empty delta in delta_index is loom-ref's "
                                       "(the seed names no index), and so are the PII rules",
    "kernel.decide/decider-hole-diverges": _REPLAY,
    "kernel.decide/decider-throws-replay": _REPLAY,
    "kernel.gates/bad-gate-schema": _SCHEMA_SUBSET,
    "kernel.gates/bad-workflow-schema": _SCHEMA_SUBSET,
    "kernel.gates/pending-resume-not-waiting": "a pending resume (RESUME_RECEIVED before "
                                               "EXECUTION_RESUMED) and the order of a resume's "
                                               "checks are loom-ref's",
    "kernel.recover/pending-resume": "the crash falls between RESUME_RECEIVED and "
    "EXECUTION_RESUMED: a resume journaled as two events, so a pending resume, is loom-ref's "
    "(as in kernel.gates/pending-resume-not-waiting); a port that journals a resume as one "
    "event has no such point",
    "kernel.gates/gate-and-workflow-schema": _SCHEMA_SUBSET,
    "kernel.gates/gate-schema": _SCHEMA_SUBSET,
    "kernel.gates/bad-workflow-schema-first": _SCHEMA_SUBSET + ", and so is refusing the "
    "workflow before the action's other checks",
    "kernel.gates/schema-min-length-zero": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-unknown-keyword": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-type-unknown": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-type-empty-list": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-properties-not-object": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-nested": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-any-of-empty": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-minimum-not-number": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-required-not-strings": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-enum-not-array": _SCHEMA_SUBSET,
    "kernel.gates/schema-refused-pattern-not-string": _SCHEMA_SUBSET,
    "agent.approval/config-schema-on-gate": "the approval gate carrying its own schema "
    "(approvalResumeSchema, journaled as the gate's resumeSchema) is loom-ref's choice "
    "(agent.approval-payload, issue 22); the seed pairs the gate with the workflow's "
    "resumeSchemas",
    "kernel.steps/yield-non-command-caught": "refusing a yielded plain value is loom-ref's "
                                             "(a generator body has no typed commands)",
    "kernel.steps/yield-non-command-fails": "refusing a yielded plain value is loom-ref's "
                                            "(a generator body has no typed commands)",
    "stream.checker/block-end-wrong-type": "reporting the finish after a first violation, and "
                                           "a wrong-type block-end leaving its block open, are "
                                           "loom-ref's (stream.checker.every-violation)",
    "stream.openai/trailing-cr-ends-line": "a CR as the body's last character ending its "
    "line is loom-ref's reading; dsh-llm's SSE reader drops that event (upstream run)",
    "stream.openai/content-filter-is-error": _LEFT_OPEN,
    "stream.openai/deepseek-reasoner-usage": _CLOSE_ORDER,
    "stream.openai/in-band-error": _LEFT_OPEN + "; the error itself is seed 001's: "
                                   "stream.openai/fold-in-band-error",
    "stream.openai/parallel-tool-calls": "call-<protocol index> for a call without an id and "
                                         "the name on its first delta alone are loom-ref's "
                                         "(stream.openai.call-id, stream.openai.payload)",
    "stream.openai/unknown-finish-reason-is-error": _LEFT_OPEN,
    "stream.wire/aborted-needs-failure": _WIRE,
    "stream.wire/block-chunk-needs-index": _WIRE,
    "stream.wire/error-needs-failure": _WIRE,
    "stream.wire/failure-code-kept": "a failure's optional code is loom-ref's",
    "stream.wire/null-is-not-absent": _WIRE,
    "stream.wire/snake-case-field": _WIRE,
    "stream.wire/snake-case-kind": _WIRE,
    "stream.wire/stop-carries-no-failure": _WIRE,
    "stream.wire/tool-call-delta-needs-id": _WIRE,
    "stream.wire/unknown-block": _WIRE,
    "stream.wire/unknown-block-type": _WIRE,
    "stream.wire/unknown-kind": _WIRE,
    "stream.wire/unknown-variant": _WIRE,
    "stream.wire/usage-has-no-index": _WIRE,
    "taint.guard/empty-origin": _STRICT,
    "taint.guard/whitespace-origin": "what counts as an empty origin is loom-ref's reading",
    "taint.unwrap/container-of-tainted": "refusing to unwrap an untainted value is loom-ref's",
    "taint.unwrap/plain-value": "refusing to unwrap an untainted value is loom-ref's",
    "validators.check/missing-delta-form-refused": _STRICT,
    "validators.check/three-phases": _PII,
    "validators.deny/duplicate-regex-refused": _STRICT,
    "validators.deny/empty-rule-name": _STRICT,
    "validators.deny/max-width-not-integer": _STRICT,
    "validators.deny/list-names-by-regex": "naming a listed rule by its regex, and the "
    "violation's details, are loom-ref's (validators.violation)",
    "validators.deny/patterns-empty-list-refused": _STRICT,
    "validators.deny/patterns-empty-object-refused": _STRICT,
    "validators.deny/patterns-string-refused": _STRICT,
    "validators.deny/regex-not-string-refused": _STRICT,
    "agent.approval/needs-approval-by-name":
        "a needsApproval list is the case format's form of the predicate, loom-ref's",
    "agent.choices/recall-choice-refused": _STRICT,
    "agent.choices/skills-choice-not-a-list": _STRICT,
    "agent.choices/skills-query-messages": "how the skills query is built is loom-ref's",
    "agent.errors/compaction-after-messages-one": "keepRecent's bounds and default are loom-ref's",
    "agent.errors/claim-check-flag-one":
        "what counts as an envelope (the JSON true) is loom-ref's test",
    "agent.errors/claim-check-flag-without-ref":
        "what counts as an envelope (the flag alone, no ref needed) is loom-ref's test",
    "agent.loop/opaque-crash-reruns-everything":
        "a crashed step's in-doubt state, its warning and the resolve action that retries it "
        "are loom-ref's (kernel.in-doubt; K9's text is not public, INTERPRETING.md 9a)",
    "agent.loop/opaque-durable-only-tool":
        "error results for calls that did not run are loom-ref's",
    "agent.loop/opaque-needs-approval-empty": "refusing these options on agent_step is loom-ref's",
    "agent.loop/opaque-needs-approval-false": "refusing these options on agent_step is loom-ref's",
    "agent.loop/opaque-unregistered-tool":
        "error results for calls that did not run are loom-ref's",
    "agent.loop/opaque-warning": "warning inside agent_step is loom-ref's reading of 'per run'",
    "agent.router/elevated-message-not-read":
        "which message of a routed turn is read is loom-ref's",
    "agent.router/no-in-doubt-torn-tail-warned":
        "the torn-tail warning and the truncation of the torn tail are loom-ref's "
        "(journal.torn-tail, INTERPRETING.md 9a)",
    "agent.router/route-choice": "recording a selector's Choice as it is is loom-ref's",
    "agent.summary/compaction-before-route": "compacting before the route decision is loom-ref's",
    "guards.steps/reset-restarts-budget-delta-index":
        "the sever's delta_index, counted from the last reset, is loom-ref's detail (the seed "
        "resets the running text; ADR 0119 #11), and the counter ceil(len / 4) is loom-ref's",
    "stream.openai/resent-other-name-keeps-the-first":
        "keeping a call's first name is loom-ref's (stream.tool-call-identity-stable); "
        "dsh-llm's translate.ts assigns block.name from every fragment that names the call, "
        "so there the last name wins",
}

#: Readings of text that are loom-ref's (INTERPRETING.md section 15): a case that needs one
#: counts in the loom-ref profile. Loom is TypeScript: its strings count UTF-16 code units.
_READINGS = {"text.code-points": Provenance.LOOM_REF, "text.lone-surrogates": Provenance.LOOM_REF,
             "patterns.python-re": Provenance.EXTENSION}


def provenance_of(case: Mapping[str, Any]) -> Provenance | None:
    """The provenance ``case`` is weaker than its rule by, or ``None`` (its rule's)."""
    rule = PROVENANCE.get(str(case.get("anchor")))
    if rule is not None and rule not in CORE:
        return None
    for capability in case.get("requires", ()):
        if capability in _READINGS:
            return _READINGS[capability]
    return Provenance.LOOM_REF if case.get("id") in WEAKER else None


def stamp(case: Mapping[str, Any]) -> dict[str, Any]:
    """``case`` with its ``provenance`` member (as given, else as :func:`provenance_of`
    says, else its anchor's)."""
    weaker = provenance_of(case)
    if weaker is not None and "provenance" not in case:
        case = {**case, "provenance": weaker.value}
    return stamped(case, PROVENANCE)
