"""Semantic mutants: small hand-written changes, each breaking one rule of the seeds.

Each entry names the file, the exact text it replaces (which must occur there exactly once,
so the table cannot drift silently from the code), the new text, and the rule it breaks
(a spec anchor, with the seed decision it comes from).
"""

from __future__ import annotations

import os
import sys

from .sites import Mutant

__all__ = ["SEMANTIC", "semantic_mutants", "table_mutants"]

#: (file, old text, new text, rule broken). Each entry is one plausible mistake of another
#: implementer; the comment beside it quotes the seed decision the rule comes from (seed 000:
#: ADR 0119, seed 001: dsh-llm "LLM Streaming", seed 002: ADR 0087).
SEMANTIC: list[tuple[str, str, str, str]] = [
    # -- kernel -------------------------------------------------------------------------------
    # ADR 0087 D2 / 0061: "every completed task is served from the log" -- by its id, not by
    # its position: a body that now asks for another step id diverged.
    ("loom_ref/kernel/driver.py",
     "if rec.kind == kind and rec.id == cid and (",
     "if rec.kind == kind and (",
     "kernel.replay-compare"),
    # ADR 0087 D3 (K9 in-doubt): a started step with no outcome is re-run only if its effect
    # is idempotent; a non-idempotent one parks in doubt.
    ("loom_ref/kernel/driver.py",
     'if rec.id == self.retry_step or self.effects.is_idempotent(rec.tool_id or ""):',
     "if rec.id == self.retry_step or rec.tool_id is not None:",
     "kernel.in-doubt"),
    # ADR 0087 D3 (idempotencyKey, K9): an idempotent in-doubt step is invoked again with the
    # SAME idempotency key, the journaled one, not a fresh one.
    ("loom_ref/kernel/driver.py",
     'return self.invoke(cmd, start["input"], start["idempotencyKey"])',
     'return self.invoke(cmd, start["input"], start["idempotencyKey"] + "#again")',
     "kernel.in-doubt"),
    # ADR 0087 D2: a recorded task output is served from the log; a failed step's error is
    # raised again on replay, the effect is not re-invoked.
    ("loom_ref/kernel/driver.py",
     'return None, StepFailedError(step_id=rec.id, error=dict(p["error"]))',
     'return self.invoke(cmd, rec.start.payload["input"], rec.start.payload["idempotencyKey"])'
     ' if self.journal is not None and rec.start is not None else (None, StepFailedError('
     'step_id=rec.id, error=dict(p["error"])))',
     "kernel.replay-serve"),
    # ADR 0119 decision 8: "nothing is recorded because the decider threw".
    ("loom_ref/kernel/driver.py",
     "            except Exception as exc:  # spec: kernel.decider-throws, kernel.decider-errors\n"
     "                return None, exc  # (as raised: an error without a code stays without one)\n",
     "            except Exception as exc:  # spec: kernel.decider-throws, kernel.decider-errors\n"
     '                self.append(K.DECISION_RECORDED, {"decisionId": cmd.decision_id,'
     ' "choice": None})\n'
     "                return None, exc  # (as raised: an error without a code stays without one)\n",
     "kernel.decider-throws"),
    # ADR 0087 D2: the id sequence is a pure function of logged inputs; a body that ends while
    # its journal still holds commands diverged.
    ("loom_ref/kernel/driver.py",
     "if self.cursor < len(self.records):  # spec: kernel.replay-compare",
     "if False:  # spec: kernel.replay-compare",
     "kernel.replay-compare"),
    # -- journal ------------------------------------------------------------------------------
    # ADR 0087 D2 (the crash matrix: "the durable prefix of a run that died mid-loop"): the
    # bytes after the last newline are a torn tail, not a line.
    ("loom_ref/journal/reader.py",
     'lines = data.split(b"\\n")[:-1]',
     'lines = [line for line in data.split(b"\\n") if line]',
     "journal.torn-tail"),
    # the recovery of ADR 0087 D2 trusts a line only once its checksum, in its one spelling
    # (8 lowercase hex digits), matches.
    ("loom_ref/journal/codec.py",
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:',
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2].lower():',
     "journal.checksum"),
    # ADR 0087 D2: the turn index comes "from the number of completed turns" -- counted from
    # a journal whose events are numbered 1, 2, 3, ... with no gap.
    ("loom_ref/journal/reader.py",
     "if found != seq or type(found) is not int:  # spec: journal.seq",
     "if type(found) is not int or found < seq:  # spec: journal.seq",
     "journal.seq"),
    # K9 in-doubt (ADR 0087 D3): an in-doubt execution waits for its step to be resolved; it
    # cannot complete past it.
    ("loom_ref/journal/fold.py",
     "    S.IN_DOUBT: {\n        K.STEP_COMPLETED: S.RUNNING,\n",
     "    S.IN_DOUBT: {\n        K.EXECUTION_COMPLETED: S.COMPLETED,\n"
     "        K.STEP_COMPLETED: S.RUNNING,\n",
     "journal.transitions"),
    # ADR 0087 D5 (the kernel journals the whole call as JSON): a line holds JSON values
    # only; NaN is not one.
    ("loom_ref/journal/codec.py",
     "_decoder = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)",
     "_decoder = json.JSONDecoder(parse_float=_finite)",
     "journal.json-values"),
    # -- effects ------------------------------------------------------------------------------
    # ADR 0119 decisions 7, 10, 12: guards run BEFORE delivery, "the breaching delta is never
    # handed to a sink".
    ("loom_ref/effects/deltas.py",
     "        self.streamed = True\n"
     "        try:  # spec: deltas.guard-before-delivery, deltas.guard-order (first raise wins)\n",
     "        self.streamed = True\n"
     "        if not self._holds:\n"
     "            self._deliver(_text_chunk(what, self.origin), both=True)\n"
     "            for check in self._checks:\n"
     "                try:\n"
     "                    check(what)\n"
     "                except BaseException as sever:\n"
     "                    self.severed = sever\n"
     "                    raise\n"
     "            return\n"
     "        try:  # spec: deltas.guard-before-delivery, deltas.guard-order (first raise wins)\n",
     "deltas.guard-before-delivery"),
    # ADR 0119 decision 12: "Reset/attempt semantics apply to the configured sink too".
    ("loom_ref/effects/deltas.py",
     "self._deliver(EffectDelta.restart(n, self.origin), both=True)",
     "self._deliver(EffectDelta.restart(n, self.origin), both=False)",
     "deltas.reset"),
    # ADR 0119 decision 11: at attempt n > 1 the runtime "resets the delta guards' running
    # text": the attempt starts afresh (no sever, no held end chunk carried over).
    ("loom_ref/effects/deltas.py",
     "        self.attempt = n = ctx.attempt\n        self._reset_attempt_state()\n",
     "        self.attempt = n = ctx.attempt\n",
     "deltas.reset"),
    # ADR 0119 decisions 3, 6: "the terminal chunk is { delta: "", done: true, usage? }",
    # sent by the runtime after the call has succeeded.
    ("loom_ref/effects/deltas.py",
     "if self.streamed and self.per_call is not None:",
     "if False:",
     "deltas.terminal"),
    # ADR 0119 decision 6: "delivers nothing once the call has settled or its signal has
    # aborted" -- "an un-awaited provider writing late cannot reach a caller who has moved on"
    # (the abort half is checked again at delivery, so forgetting it is not observable).
    ("loom_ref/effects/deltas.py",
     "            self._tape_write(tape, what)\n"
     "        if self.settled or self.signal.aborted:",
     "            self._tape_write(tape, what)\n"
     "        if self.signal.aborted:",
     "deltas.live-window"),
    # ADR 0119 decision 12 (round 1's bug): under an uncovered inspectsOutput middleware
    # "NEITHER sink receives anything" -- not only the per-call sink is refused.
    ("loom_ref/effects/runtime.py",
     "            if tape is None:\n                ctx.on_delta = SILENT\n",
     "            if tape is None:\n"
     "                ctx.on_delta = SILENT if configured is None else DeltaChannel(\n"
     "                tool_id=call.tool_id, signal=signal, per_call=None,"
     " configured=configured,\n"
     "                factories=(), on_warn=self.on_warn)\n",
     "deltas.fail-closed"),
    # ADR 0119 decision 10: "Fail-closed: a middleware marked inspectsOutput (an output
    # validator with NO delta form) makes the runtime REFUSE the per-call sink".
    ("loom_ref/effects/middleware/safety.py",
     "self.delta_guard = self._guard if covered and delta_validators else None",
     "self.delta_guard = self._guard if delta_validators else None",
     "deltas.fail-closed"),
    # ADR 0119 decision 2: "A refused call never reaches the effect" -- and a retry must not
    # re-enter it: a refusal is never retried.
    ("loom_ref/effects/middleware/retry.py",
     "NEVER_RETRIED: tuple[type[Exception], ...] = (EffectRefusal, InvalidArgument,",
     "NEVER_RETRIED: tuple[type[Exception], ...] = (InvalidArgument,",
     "effects.refusal-never-retried"),
    # ADR 0119 decision 9: "EffectDelta.delta is a TaintedValue<string> (origin llm:<toolId>)",
    # so guardRequest can tell where a delta came from: the origin is not the bare tool id.
    ("loom_ref/effects/deltas.py",
     "        self.origin = delta_origin(tool_id)\n        self.signal = signal\n",
     "        self.origin = tool_id\n        self.signal = signal\n",
     "deltas.taint"),
    # ADR 0119 decision 6: "A sink cannot hurt the call": its throw is swallowed and reported
    # through onWarn.
    ("loom_ref/effects/deltas.py",
     '                self.on_warn(f"{SINK_RAISED}: {type(error).__name__}: {error}")\n',
     '                self.on_warn(f"{SINK_RAISED}: {type(error).__name__}: {error}")\n'
     "                raise\n",
     "deltas.sink-isolated"),
    # -- governance ---------------------------------------------------------------------------
    # ADR 0119 decision 10: the guard checks "the RUNNING text ... so a pattern split across
    # deltas is seen whole", not each delta alone.
    ("loom_ref/governance/guards.py",
     "checked = self._text + delta  # spec: guards.running-text",
     "checked = delta  # spec: guards.running-text",
     "guards.running-text"),
    # ADR 0119 decision 10: "the last deltaWindow chars" -- all of them, not one fewer.
    ("loom_ref/governance/guards.py",
     "kept = checked[-self.window :]",
     'kept = checked[-self.window + 1 :] if self.window > 1 else ""',
     "guards.window"),
    # ADR 0119 decision 7 (streamTokenBudget, K8.4): the delta that would take the sum ABOVE
    # the budget is severed; a sum equal to the budget is allowed.
    ("loom_ref/governance/budget.py",
     "if self.used + n > self.max_tokens:",
     "if self.used + n >= self.max_tokens:",
     "guards.token-budget"),
    # ADR 0119 decision 10: fail-closed -- a validator with no delta form cannot guard a
    # stream; dropping it silently would stream unvalidated text.
    ("loom_ref/governance/guards.py",
     'self.validators = _items(validators, "validators")\n        for v in self.validators:\n'
     "            if not isinstance(v, SafetyValidator):\n"
     '                raise InvalidArgument(f"expected SafetyValidator',
     'self.validators = tuple(v for v in _items(validators, "validators")\n'
     '                                if getattr(v, "delta_form", 0) is not None)\n'
     "        for v in self.validators:\n"
     "            if not isinstance(v, SafetyValidator):\n"
     '                raise InvalidArgument(f"expected SafetyValidator',
     "validators.fail-closed"),
    # ADR 0119 decision 10 ("piiValidator() ... a card number is severed at its last digit"):
    # a card is a Luhn-valid digit run; doubling the wrong digits flags the wrong numbers.
    ("loom_ref/governance/rules.py",
     "if position % 2 == 1:",
     "if position % 2 == 0:",
     "validators.pii-card"),
    # ADR 0119 decision 9: guardRequest REFUSES a tainted value anywhere in a request, and
    # reports the first one met in document order.
    ("loom_ref/governance/walk.py",
     "stack.extend(reversed(children))",
     "stack.extend(children)",
     "taint.guard-details"),
    # -- stream -------------------------------------------------------------------------------
    # seed 001 (BlockAssembler, "a trailing usage-only chunk"): the fold keeps the LAST usage.
    ("loom_ref/stream/assembler.py",
     "self._usage = chunk.usage",
     "self._usage = chunk.usage if self._usage is None else self._usage",
     "stream.assembler.folds-everything"),
    # seed 001: "block-end carries the fully-assembled ContentBlock" -- the first block-end of
    # an index is the block; later chunks for it are stragglers.
    ("loom_ref/stream/assembler.py",
     "return None if slot.ended is not None else slot",
     "return slot",
     "stream.assembler.first-block-end-wins"),
    # seed 001: a tool call's arguments "may be cut mid-JSON" at max-tokens (loom-ref's
    # assembler drops the tool calls of a max-tokens finish).
    ("loom_ref/stream/assembler.py",
     "drop_calls = self._finish is not None and self._finish.kind is FinishKind.MAX_TOKENS",
     "drop_calls = False",
     "stream.assembler.max-tokens-drops-tool-calls"),
    # seed 001: "end the stream with finish {kind:'error'|'aborted'}": blocks may be open at
    # a failed finish, of either kind.
    ("loom_ref/stream/contract.py",
     "        if chunk.reason.failed:\n            return\n",
     '        if chunk.reason.kind.value == "error":\n            return\n',
     "stream.open-blocks-at-finish"),
    # seed 001 TokenUsage: "Counts are disjoint ... Adapters whose providers fold cache hits
    # into a single prompt total (DeepSeek's prompt_tokens) subtract them back out."
    ("loom_ref/stream/openai_mapping.py",
     "input_tokens=prompt - (cached or 0),",
     "input_tokens=prompt,",
     "stream.openai.disjoint-usage"),
    # -- agent --------------------------------------------------------------------------------
    # ADR 0087 D2: "#turn:<i>:tool:<j>", j the tool call's 0-based position in the response.
    ("loom_ref/agent/loop.py",
     "step_id = tool_step_id(turn, j)  # spec: agent.identity",
     "step_id = tool_step_id(turn, j + 1)  # spec: agent.identity",
     "agent.identity"),
    # ADR 0087 D4: "A resume carrying { approved: false } feeds a refusal back to the model as
    # a tool result rather than throwing" -- data, not an error.
    ("loom_ref/agent/loop.py",
     "return ToolResultBlock(call_id=call.id, content=refusal_content(name, reason))",
     'return error("agent.tool-refused", reason)',
     "agent.tool-refusal"),
    # ADR 0087 D6 / amendment 2026-09-27: the transcript folds "once the threshold is
    # crossed": more messages than afterMessages, not as many.
    ("loom_ref/agent/compaction.py",
     "by_messages = after_messages is not None and n > after_messages",
     "by_messages = after_messages is not None and n >= after_messages",
     "agent.compaction-trigger"),
    # ADR 0087 amendment 2026-09-27: the byte rule's kept suffix is "floored at 1 (the newest
    # message always reaches the model)".
    ("loom_ref/agent/compaction.py",
     "return max(1, keep) if sizes else 0",
     "return keep",
     "agent.kept-suffix-bytes"),
    # seed 001: "The agent loop translates a finish-error/aborted into a turn error".
    ("loom_ref/agent/loop.py",
     "_TURN_CODES = {LLM_ERROR: TURN_ERROR, LLM_ABORTED: TURN_ABORTED}",
     "_TURN_CODES = {LLM_ERROR: TURN_ERROR}",
     "agent.turn-error"),
    # ADR 0087 amendment 2026-10-31: the default preview digest is "never for tainted
    # content" -- checking the preview before the taint leaks tainted text to the model.
    ("loom_ref/agent/claim_check.py",
     "    if origins:  # spec: agent.claim-check-taint -- never a digest of tainted content\n"
     "        envelope[\"tainted\"] = True\n"
     "        envelope[\"origins\"] = origins\n"
     "    elif digest is not None:\n",
     "    if digest is None and preview:\n"
     "        envelope[\"digest\"] = {\"preview\": text[:PREVIEW_CHARS],\n"
     "                              \"truncated\": len(text) > PREVIEW_CHARS}\n"
     "    elif origins:\n"
     "        envelope[\"tainted\"] = True\n"
     "        envelope[\"origins\"] = origins\n"
     "    elif digest is not None:\n",
     "agent.claim-check-taint"),
    # ADR 0087 D2: the turn index is "the number of completed turns"; the answer reports them.
    ("loom_ref/agent/loop.py",
     '"turns": turn + 1}',
     '"turns": turn}',
     "agent.answer"),
]


def _locate(source: str, old: str, rel: str) -> tuple[int, int, int, int]:
    count = source.count(old)
    if count != 1:
        raise ValueError(f"semantic mutant of {rel}: {old!r} occurs {count} times (expected 1)")
    begin = source.index(old)
    before = source[:begin].encode("utf-8")
    line = before.count(b"\n") + 1
    col = len(before) - (before.rfind(b"\n") + 1)
    after = (source[:begin] + old).encode("utf-8")
    end_line = after.count(b"\n") + 1
    end_col = len(after) - (after.rfind(b"\n") + 1)
    return line, col, end_line, end_col


def table_mutants(root: str, table: list[tuple[str, str, str, str]], op: str) -> list[Mutant]:
    """A hand-written table ((file, old text, new text, rule) entries) as mutants of the files
    under ``root``, with the operator ``op``; an entry whose old text no longer occurs exactly
    once is reported and left out, so the others are still scored."""
    out = []
    for rel, old, new, rule in table:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            source = f.read()
        try:
            line, col, end_line, end_col = _locate(source, old, rel)
        except ValueError as exc:  # the code moved on: report it, score the others
            print(f"warning: stale {op} entry: {exc}", file=sys.stderr)
            continue
        first = old.strip().splitlines()[0] if old.strip() else old
        out.append(Mutant(file=rel, line=line, col=col, end_line=end_line, end_col=end_col,
                          op=op, change=f"{rule}: {first[:50]!r} -> {new.strip()[:40]!r}",
                          function=f"<{op}>",
                          source_line=source.splitlines()[line - 1].strip(),
                          replacement=new, rule=rule))
    return out


def semantic_mutants(root: str) -> list[Mutant]:
    """The table as mutants of the files under ``root``."""
    return table_mutants(root, SEMANTIC, "semantic")
