"""Edge mutants: hand-written changes, each breaking one rule of ``spec/`` AT ITS BOUNDARY.

Issue 30's measure of the suite's power at the edges of its rules ("Hand-written edge mutants
written by someone who has not seen the cases are caught by the suite alone at >= 90%"). Each
entry is one plausible mistake of another implementer at the edge of a rule: a threshold off by
one (``<`` for ``<=``, N for N+1), a limit applied one step early or late, two checks in the
other order (which error wins when both problems are present), two spellings or settings with
their precedence reversed, an empty input taken as non-empty (or the reverse), one/two/several
at once confused (only the first handled), the first occurrence kept for the last, an inclusive
range end made exclusive, a default applied to a value that is present.

The table was written from the spec chapters and ``loom_ref/`` alone, by a reader who had not
seen ``conformance/cases/``, ``tests/``, ``spec/TRACE.md``, ``spec/BOUNDARIES.md`` or the
reviewed lists, and it was fixed before it was first scored: an entry is never dropped or
changed after its score is known (only its old text may be mended when the code moves, so
that it still names the same change). Its survivors are the suite's gaps, not the table's.

Each entry names the file, the exact text it replaces (which must occur there exactly once,
so the table cannot drift silently from the code), the new text, and the rule it breaks (a
spec anchor). Score them alone, with the suite alone:

    python -m tools.mutation --edge --no-random --jobs 1 --timeout 90
"""

from __future__ import annotations

from .semantic import table_mutants
from .sites import Mutant

__all__ = ["EDGE", "edge_mutants"]

_K = "loom_ref/kernel/"
_J = "loom_ref/journal/"
_E = "loom_ref/effects/"
_G = "loom_ref/governance/"
_S = "loom_ref/stream/"
_A = "loom_ref/agent/"

#: (file, old text, new text, rule broken). The comment beside each says the edge it moves.
EDGE: list[tuple[str, str, str, str]] = [
    # -- kernel -------------------------------------------------------------------------------
    # derived step ids count from 1: the first derived step of a tool is <tool>#0
    (_K + "context.py",
     "n = self._derived.get(tool_id, 0) + 1",
     "n = self._derived.get(tool_id, -1) + 1",
     "kernel.step-identity"),
    # an explicit step id advances no counter: here it advances its tool's
    (_K + "context.py",
     '        else:\n            _check_id("step_id", step_id)\n',
     '        else:\n            _check_id("step_id", step_id)\n'
     "            self._derived[tool_id] = self._derived.get(tool_id, 0) + 1\n",
     "kernel.derived-counters"),
    # the stream counter moves one step late: the first append is stream#0
    (_K + "context.py",
     'return Stream(stream_id=f"stream#{self._streams}", data=data)',
     'return Stream(stream_id=f"stream#{self._streams - 1}", data=data)',
     "kernel.step-identity"),
    # refusal order: the workflow's name after the journal (an unknown workflow over an
    # existing execution is execution-exists, and an unknown one writes a header)
    (_K + "runtime.py",
     "        wf = self.workflow(workflow)  # spec: kernel.start -- an unknown workflow is "
     "refused\n"
     "        try:\n"
     "            journal = self.store.create(execution_id)\n"
     "        except JournalExistsError:\n"
     "            journal = self._open(execution_id)\n"
     "            if journal.events:  # spec: kernel.start -- an existing execution is refused\n"
     "                journal.close()\n"
     "                raise ExecutionExistsError(f\"execution {execution_id!r} has already "
     "started\",\n"
     "                                           execution_id=execution_id) from None\n"
     "        try:\n",
     "        try:\n"
     "            journal = self.store.create(execution_id)\n"
     "        except JournalExistsError:\n"
     "            journal = self._open(execution_id)\n"
     "            if journal.events:  # spec: kernel.start -- an existing execution is refused\n"
     "                journal.close()\n"
     "                raise ExecutionExistsError(f\"execution {execution_id!r} has already "
     "started\",\n"
     "                                           execution_id=execution_id) from None\n"
     "        wf = self.workflow(workflow)\n"
     "        try:\n",
     "kernel.start"),
    # a journal holding nothing but a torn tail is taken as started
    (_K + "runtime.py",
     "if journal.events:  # spec: kernel.start",
     "if journal.events or journal.torn is not None:  # spec: kernel.start",
     "kernel.start"),
    # the same gate resumed twice (a resume pending) is accepted
    (_K + "runtime.py",
     "if state.status is not Status.SUSPENDED or state.waiting_gate != gate_id or (\n"
     "                state.pending_resume\n"
     "            ):  # spec: kernel.resume-gate",
     "if state.status is not Status.SUSPENDED or state.waiting_gate != gate_id:"
     "  # spec: kernel.resume-gate",
     "kernel.resume-gate"),
    # two schemas: only the first (the gate's own) is checked
    (_K + "runtime.py",
     "problems = [p for schema in schemas for p in validate(payload, schema)]",
     "problems = [p for schema in schemas[:1] for p in validate(payload, schema)]",
     "kernel.resume-schema"),
    # a decision's context journaled only when truthy: an empty context ({}, 0, "") is lost
    (_K + "driver.py",
     "        if cmd.context is not None:\n",
     "        if cmd.context:\n",
     "kernel.decision-record"),
    # a gate's schema journaled only when truthy: the schema false (or {}) is lost
    (_K + "driver.py",
     "if cmd.resume_schema is not None:  # spec: kernel.resume-schema (journaled)",
     "if cmd.resume_schema:  # spec: kernel.resume-schema (journaled)",
     "kernel.gate-record"),
    # a body that ends one recorded command early is not a divergence
    (_K + "driver.py",
     "        if self.cursor < len(self.records):  # spec: kernel.replay-compare\n"
     "            actual = ",
     "        if self.cursor < len(self.records) - 1:  # spec: kernel.replay-compare\n"
     "            actual = ",
     "kernel.replay-compare"),
    # a replayed output compared with Python's == (true equals 1 there)
    (_K + "driver.py",
     "if term.kind is not K.EXECUTION_COMPLETED or not json_equal(\n"
     "                    _copy(output), term.payload[\"output\"]):",
     "if term.kind is not K.EXECUTION_COMPLETED or (\n"
     "                    _copy(output) != term.payload[\"output\"]):",
     "kernel.replay-end"),
    # -- journal ------------------------------------------------------------------------------
    # an execution id of 201 characters is accepted
    (_J + "ids.py",
     "[A-Za-z0-9_.-]{0,199}",
     "[A-Za-z0-9_.-]{0,200}",
     "journal.execution-ids"),
    # COM0 is not reserved (the range read as COM1 to COM9)
    (_J + "ids.py",
     "com[0-9]|lpt[0-9]",
     "com[1-9]|lpt[0-9]",
     "journal.execution-ids"),
    # a reserved name is refused only alone, not before its first dot (CON.x accepted)
    (_J + "ids.py",
     r'lpt[0-9])(?:\.|$)"',
     r'lpt[0-9])$"',
     "journal.execution-ids"),
    # the nesting limit applied one level early: a line of 128 levels is refused
    (_J + "codec.py",
     "        if depth > NESTING_LIMIT:\n",
     "        if depth >= NESTING_LIMIT:\n",
     "journal.nesting-limit"),
    # the crc compared in any case: upper-case hex of the right value accepted
    (_J + "codec.py",
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:',
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2].lower():',
     "journal.checksum"),
    # reason order: the sequence checked before the kind and payload
    (_J + "reader.py",
     '    kind = kind_from_name(obj.get("kind"))\n'
     '    payload = obj.get("payload")\n',
     '    if obj.get("seq") != seq or type(obj.get("seq")) is not int:\n'
     '        raise JournalError(f"expected seq {seq}", code="journal.seq-gap")\n'
     '    kind = kind_from_name(obj.get("kind"))\n'
     '    payload = obj.get("payload")\n',
     "journal.corrupt-line"),
    # the torn tail's line is the count of complete lines, not one past it
    (_J + "reader.py",
     "torn = TornTail(line=len(lines) + 1, size=len(data) - good_size)",
     "torn = TornTail(line=len(lines), size=len(data) - good_size)",
     "journal.parse-vector"),
    # a seq compared by value only: true (or 1.0) is the seq 1
    (_J + "reader.py",
     "if found != seq or type(found) is not int:  # spec: journal.seq",
     "if found != seq:  # spec: journal.seq",
     "journal.seq"),
    # a second RESUME_RECEIVED for the waiting gate (a resume already pending) accepted
    (_J + "fold.py",
     'if p["gateId"] != waiting_gate or pending:',
     'if p["gateId"] != waiting_gate:',
     "journal.transitions"),
    # a content run of count 0 accepted
    (_J + "contentstore.py",
     "run[0] >= 0 and run[1] >= 1):",
     "run[0] >= 0 and run[1] >= 0):",
     "journal.content-errors"),
    # only a run's first item checked against the table (its end may run past it)
    (_J + "contentstore.py",
     "        if first + count > size:\n",
     "        if first >= size:\n",
     "journal.content-errors"),
    # -- effects ------------------------------------------------------------------------------
    # BudgetMeter admits while spent + estimate < budget: the last unit is never spent
    (_E + "metering.py",
     "if self.spent + need <= self.budget:",
     "if self.spent + need < self.budget:",
     "effects.metering-admission"),
    # retry: one attempt more than max_attempts
    (_E + "middleware/retry.py",
     "if attempt >= self.max_attempts or not self.is_retryable(error):",
     "if attempt > self.max_attempts or not self.is_retryable(error):",
     "effects.retry-attempts"),
    # backoff: multiplied n times after attempt n, not n-1
    (_E + "middleware/retry.py",
     "for _ in range(attempt - 1):",
     "for _ in range(attempt):",
     "effects.retry-backoff"),
    # rate limit: exactly one token left is refused
    (_E + "middleware/rate_limit.py",
     "        if tokens < 1.0:\n",
     "        if tokens <= 1.0:\n",
     "effects.rate-limit"),
    # rate limit: the refill is not capped at the capacity
    (_E + "middleware/rate_limit.py",
     "return min(self.capacity, bucket[0] + max(0.0, now - bucket[1]) * self.rate)",
     "return bucket[0] + max(0.0, now - bucket[1]) * self.rate",
     "effects.rate-limit"),
    # stages 5 and 6 swapped: killed and over budget at once is over-budget
    (_E + "runtime.py",
     "            if meter is not None:  # spec: effects.metering-admission (5)\n"
     "                decision = meter.admit(call)\n"
     "                if not decision.allowed:\n"
     "                    raise OverBudget(decision.reason, tool_id=tool_id)\n"
     "            if kill_switch is not None:  # spec: effects.kill-switch (6)\n"
     "                reason = kill_switch.check(tool_id)\n"
     "                if reason is not None:\n"
     "                    raise EffectKilled(reason, tool_id=tool_id)\n",
     "            if kill_switch is not None:  # spec: effects.kill-switch (6)\n"
     "                reason = kill_switch.check(tool_id)\n"
     "                if reason is not None:\n"
     "                    raise EffectKilled(reason, tool_id=tool_id)\n"
     "            if meter is not None:  # spec: effects.metering-admission (5)\n"
     "                decision = meter.admit(call)\n"
     "                if not decision.allowed:\n"
     "                    raise OverBudget(decision.reason, tool_id=tool_id)\n",
     "effects.route-order"),
    # ctx.attempt counted one stage early: an attempt the signal refuses is counted
    (_E + "runtime.py",
     "            signal = ctx.signal\n"
     "            if signal.aborted:  # spec: effects.signal-abort (7)\n"
     "                raise AbortedError(signal.reason)\n"
     "            ctx.attempt += 1  # spec: effects.retry-attempts\n",
     "            ctx.attempt += 1  # spec: effects.retry-attempts\n"
     "            signal = ctx.signal\n"
     "            if signal.aborted:  # spec: effects.signal-abort (7)\n"
     "                raise AbortedError(signal.reason)\n",
     "effects.retry-attempts"),
    # an abort during an attempt that then RETURNED is not a refusal (only a raise is)
    (_E + "runtime.py",
     "            if signal.aborted:\n"
     "                raise AbortedError(signal.reason)\n"
     "            if channel is not None and channel.severed is not None:\n",
     "            if channel is not None and channel.severed is not None:\n",
     "effects.signal-abort"),
    # several hold-back guards: the text the MOST generous one released is delivered
    (_E + "deltas.py",
     "ready = min(self._released) - self._delivered",
     "ready = max(self._released) - self._delivered",
     "deltas.hold-back"),
    # the reset chunk sent from attempt 3, not 2
    (_E + "deltas.py",
     "        if n > 1:\n"
     "            self._deliver(EffectDelta.restart(n, self.origin), both=True)\n",
     "        if n > 2:\n"
     "            self._deliver(EffectDelta.restart(n, self.origin), both=True)\n",
     "deltas.reset"),
    # an empty text delta counts as having streamed (a terminal chunk follows)
    (_E + "deltas.py",
     "        if not what:\n"
     "            return\n"
     "        self.streamed = True\n",
     "        self.streamed = True\n"
     "        if not what:\n"
     "            return\n",
     "deltas.terminal"),
    # guards checked last first: of two guards that both sever, the innermost wins
    (_E + "deltas.py",
     "            for check in self._checks:\n",
     "            for check in reversed(self._checks):\n",
     "deltas.guard-order"),
    # -- governance ---------------------------------------------------------------------------
    # a sum exactly equal to the token budget is severed
    (_G + "budget.py",
     "if self.used + n > self.max_tokens:",
     "if self.used + n >= self.max_tokens:",
     "guards.token-budget"),
    # the token count rounded down, not up
    (_G + "budget.py",
     "return -(-len(delta) // 4)",
     "return len(delta) // 4",
     "guards.token-count"),
    # the running text keeps one character less than the window
    (_G + "guards.py",
     "kept = checked[-self.window :]",
     "kept = checked[-(self.window - 1) :]",
     "guards.running-text"),
    # hold-back holds one character too few (max_width - 2)
    (_G + "holdback.py",
     "self.hold = max(self.max_width - 1, 0)",
     "self.hold = max(self.max_width - 2, 0)",
     "guards.hold-back-width"),
    # a window exactly as wide as the widest pattern refused
    (_G + "holdback.py",
     "if self.max_width > self._guard.window:",
     "if self.max_width >= self._guard.window:",
     "guards.hold-back-width"),
    # 32 nested groups refused (the limit applied one level early)
    (_G + "dialect.py",
     "if self.depth > MAX_DEPTH:",
     "if self.depth >= MAX_DEPTH:",
     "patterns.limits"),
    # of {n,m} only n is held to the count limit: {0,1001} accepted
    (_G + "dialect.py",
     "if lo > MAX_REPEAT or (hi is not None and hi > MAX_REPEAT):",
     "if lo > MAX_REPEAT:",
     "patterns.limits"),
    # a card of 20 digits (the range end one past 19)
    (_G + "pii.py",
     'CARD_REGEX = r"[0-9](?:[ -]?[0-9]){12,18}"',
     'CARD_REGEX = r"[0-9](?:[ -]?[0-9]){12,19}"',
     "validators.pii-card"),
    # the boundary before a card looks one character back only (a digit and a separator
    # before it no longer stop the match)
    (_G + "pii.py",
     "before = _digit(text, start - 1) or (_separator(text, start - 1) and "
     "_digit(text, start - 2))",
     "before = _digit(text, start - 1)",
     "validators.pii-card"),
    # tail scan: a match ending exactly where the delta begins is reported
    (_G + "rules.py",
     "if match.end() > fresh and self._accepts(text, match):",
     "if match.end() >= fresh and self._accepts(text, match):",
     "guards.tail-scan"),
    # rules tried last first: of two rules that match, the later one is reported
    (_G + "validators.py",
     "        for rule in self.rules:\n",
     "        for rule in reversed(self.rules):\n",
     "validators.rule-order"),
    # -- stream -------------------------------------------------------------------------------
    # block index 0 refused (non-negative read as positive)
    (_S + "contract.py",
     "        return index >= 0\n    return isinstance(index, float)",
     "        return index > 0\n    return isinstance(index, float)",
     "stream.index-non-negative-integer"),
    # several blocks open at a stop finish: only one open block is reported
    (_S + "contract.py",
     "        if still_open:\n",
     "        if len(still_open) == 1:\n",
     "stream.open-blocks-at-finish"),
    # a later block-end of an index replaces the first (last close wins)
    (_S + "assembler.py",
     "return None if slot.ended is not None else slot",
     "return slot",
     "stream.assembler.first-block-end-wins"),
    # two usage chunks folded: the first is kept, not the last
    (_S + "assembler.py",
     "                self._usage = chunk.usage\n",
     "                self._usage = self._usage or chunk.usage\n",
     "stream.assembler.folds-everything"),
    # max-tokens drops only the tool calls still open, not the ended ones
    (_S + "assembler.py",
     "if block is None or (drop_calls and isinstance(block, ToolCallBlock)):",
     "if block is None or (drop_calls and isinstance(block, ToolCallBlock)\n"
     "                                     and slot.ended is None):",
     "stream.assembler.max-tokens-drops-tool-calls"),
    # the interrupted prefix keeps a whitespace-only block (empty tested, not blank)
    (_S + "assembler.py",
     "if isinstance(block, (TextBlock, ReasoningBlock)) and not is_blank(block.text):",
     "if isinstance(block, (TextBlock, ReasoningBlock)) and block.text:",
     "stream.assembler.interrupted"),
    # usage whose cached tokens equal the prompt tokens refused as inconsistent
    (_S + "openai_mapping.py",
     "if (cached or 0) > prompt or (reasoning or 0) > completion:",
     "if (cached or 0) >= prompt or (reasoning or 0) > completion:",
     "stream.openai.disjoint-usage"),
    # two spellings of the cache hits: DeepSeek's wins over prompt_tokens_details
    (_S + "openai_mapping.py",
     "    if cached is None:\n"
     '        cached = _count(raw.get("prompt_cache_hit_tokens"))  # DeepSeek\'s spelling\n',
     '    hit = _count(raw.get("prompt_cache_hit_tokens"))  # DeepSeek\'s spelling\n'
     "    if hit is not None:\n"
     "        cached = hit\n",
     "stream.openai.disjoint-usage"),
    # an absent finish_reason with no block: no-finish-reason, not empty-response
    (_S + "openai_mapping.py",
     "                reason is None or reason.kind is FinishKind.STOP):",
     "                reason is not None and reason.kind is FinishKind.STOP):",
     "stream.openai.empty-response"),
    # [DONE] stripped with str.strip (U+0085, U+001C-U+001F ... stripped too)
    (_S + "openai_mapping.py",
     'if event.data.strip(_SSE_WHITESPACE) == "[DONE]":',
     'if event.data.strip() == "[DONE]":',
     "stream.openai.done-whitespace"),
    # SSE: every leading space of a field value removed, not one
    (_S + "sse.py",
     "            value = value[1:]\n",
     '            value = value.lstrip(" ")\n',
     "stream.openai.sse"),
    # -- agent --------------------------------------------------------------------------------
    # compaction at exactly after_messages messages
    (_A + "compaction.py",
     "by_messages = after_messages is not None and n > after_messages",
     "by_messages = after_messages is not None and n >= after_messages",
     "agent.compaction-trigger"),
    # compaction at exactly after_bytes bytes
    (_A + "compaction.py",
     "by_bytes = after_bytes is not None and total_bytes > after_bytes",
     "by_bytes = after_bytes is not None and total_bytes >= after_bytes",
     "agent.compaction-trigger"),
    # the kept suffix's halving exclusive: a suffix of exactly after_bytes / 2 not kept whole
    (_A + "compaction.py",
     "if 2 * (total + size) > after_bytes:  # exact: no float halving",
     "if 2 * (total + size) >= after_bytes:  # exact: no float halving",
     "agent.kept-suffix-bytes"),
    # the byte rule's suffix not floored at 1
    (_A + "compaction.py",
     "return max(1, keep) if sizes else 0",
     "return keep",
     "agent.kept-suffix-bytes"),
    # both thresholds crossed: the count rule decides
    (_A + "compaction.py",
     "    if by_bytes:\n",
     "    if by_bytes and not by_messages:\n",
     "agent.kept-suffix-bytes"),
    # a suffix exactly covering the transcript is not skipped (a step that folds nothing)
    (_A + "compaction.py",
     "if keep >= n:  # spec: agent.compaction-skip",
     "if keep > n:  # spec: agent.compaction-skip",
     "agent.compaction-skip"),
    # the call at position max_tool_calls_per_turn still runs
    (_A + "loop.py",
     "if j >= config.max_tool_calls_per_turn:",
     "if j > config.max_tool_calls_per_turn:",
     "agent.tool-error"),
    # the transcript warning at exactly warn_transcript_bytes
    (_A + "loop.py",
     "if self.done or not self.limit or transcript.bytes <= self.limit:",
     "if self.done or not self.limit or transcript.bytes < self.limit:",
     "agent.warn-transcript"),
    # a max-tokens turn whose message is left empty is pushed all the same (empty list taken
    # as a present message)
    (_A + "loop.py",
     "if message.content or not truncated:",
     "if message.content is not None or not truncated:",
     "agent.max-tokens-turn"),
    # several text blocks joined with a newline, not with nothing
    (_A + "loop.py",
     'return "".join(b.text for b in message.content if isinstance(b, TextBlock))',
     'return "\\n".join(b.text for b in message.content if isinstance(b, TextBlock))',
     "agent.answer"),
    # a batch emitted only once the boundary's prefix is LONGER than min_chars
    (_A + "chunk_deltas.py",
     "if self._cut >= self.min_chars:",
     "if self._cut > self.min_chars:",
     "agent.chunk-min-chars"),
    # at most two closing quotes or brackets after a full stop, not three
    (_A + "chunk_deltas.py",
     "[\\\"'”’)\\]]{0,3}",
     "[\\\"'”’)\\]]{0,2}",
     "agent.chunk-boundary"),
]


def edge_mutants(root: str) -> list[Mutant]:
    """The table as mutants of the files under ``root`` (a stale entry is reported and left
    out, so the others are still scored)."""
    return table_mutants(root, EDGE, "edge")
