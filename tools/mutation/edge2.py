"""A second set of edge mutants: hand-written changes, each breaking one rule of ``spec/`` AT ITS
BOUNDARY, written by a second reader who has seen neither the suite's cases nor the first set.

Issue 30's measure ("Hand-written edge mutants written by someone who has not seen the cases
are caught by the suite alone at >= 90%"). The first set (``tools/mutation/edge.py``) no
longer measures anything: the cases were strengthened against it. This table is independent
of it: it was written from the spec chapters (kernel, journal, effects, deltas, governance,
stream, agent, errors), ``conformance/INTERPRETING.md`` and ``loom_ref/`` alone, by a reader
who had not seen ``conformance/cases/``, ``tests/``, ``spec/TRACE.md``,
``spec/BOUNDARIES.md``, ``spec/SEEDS.md``, ``conformance/boundaries.json``, ``spec/blind/``,
the reviewed lists, nor ``edge.py``'s table; and it was fixed before it was first scored: an
entry is never dropped or changed after its score is known (only its old text may be mended
when the code moves, so that it still names the same change). Its survivors are the suite's
gaps, not the table's.

Each entry is one plausible mistake of another implementer at the edge of a rule: a threshold
off by one, a limit applied one step early or late, two checks in the other order (which
error wins when both problems are present), two spellings or settings with their precedence
reversed, an empty input taken as non-empty (or the reverse), one/two/several at once confused
(only the first, or only the last, handled), the first occurrence kept for the last, an
inclusive range end made exclusive, a value present but null (or empty) taken as absent. The
set looks past the first numeric constant of each module on purpose: the places a first
reader most obviously picks are measured by ``edge.py`` already.

Independent is not disjoint: once the table was fixed (and committed, before any score), a
comparison by program of the two tables (which the writer had not read) found that 11 of its
67 entries are the very change an entry of the first set makes (the same file, old and new
text). They stay, since nothing is dropped after the fact; the issue's figure is given both
over all 67 and over the 56 that the first set does not hold (``CHANGELOG.md``). One
survivor was judged equivalent after its score (the ``stream.openai.empty-response`` entry:
``self._error is None`` is implied by the rest of that test); it stays too.

Each entry names the file, the exact text it replaces (which must occur there exactly once,
so the table cannot drift silently from the code), the new text, and the rule it breaks (a
spec anchor). Its mutants have the operator ``edge2`` and are scored alone, with the suite
alone:

    python -m tools.mutation --edge2 --no-random --jobs 1 --timeout 90
"""

from __future__ import annotations

from .semantic import table_mutants
from .sites import Mutant

__all__ = ["EDGE2", "edge2_mutants"]

_K = "loom_ref/kernel/"
_J = "loom_ref/journal/"
_E = "loom_ref/effects/"
_G = "loom_ref/governance/"
_S = "loom_ref/stream/"
_A = "loom_ref/agent/"

#: (file, old text occurring exactly once, new text, the spec anchor of the rule it breaks)
EDGE2: list[tuple[str, str, str, str]] = [
    # ---- kernel ----------------------------------------------------------------------------
    # a step with two outcomes (resolved after a crash): the first kept, not the latest
    (_K + "history.py",
     "step.outcome = ev  # spec: kernel.latest-outcome",
     "step.outcome = step.outcome or ev  # spec: kernel.latest-outcome",
     "kernel.latest-outcome"),
    # an in-doubt step already marked is marked again on every drive (once -> every time)
    (_K + "driver.py",
     "        if not rec.marked_in_doubt:\n",
     "        if True:\n",
     "kernel.in-doubt"),
    # a body that ends one record before its journal does is not a divergence (off by one)
    (_K + "driver.py",
     "if self.cursor < len(self.records):  # spec: kernel.replay-compare",
     "if self.cursor < len(self.records) - 1:  # spec: kernel.replay-compare",
     "kernel.replay-compare"),
    # the same id under two kinds of command (a step and a decision) is not a duplicate
    (_K + "driver.py",
     "        if cid in self.seen:  # spec: kernel.duplicate-id\n"
     "            return None, DuplicateIdError(f\"id {cid!r} is used twice in one execution\", "
     "id=cid)\n"
     "        self.seen.add(cid)\n",
     "        if (kind, cid) in self.seen:  # spec: kernel.duplicate-id\n"
     "            return None, DuplicateIdError(f\"id {cid!r} is used twice in one execution\", "
     "id=cid)\n"
     "        self.seen.add((kind, cid))\n",
     "kernel.duplicate-id"),
    # a gate whose resume is journaled but not yet driven can be resumed a second time
    (_K + "runtime.py",
     "state.waiting_gate != gate_id or (\n                state.pending_resume\n"
     "            ):  # spec: kernel.resume-gate",
     "state.waiting_gate != gate_id:  # spec: kernel.resume-gate",
     "kernel.resume-gate"),
    # with both schemas present, only the first (the gate's own) is checked
    (_K + "runtime.py",
     "problems = [p for schema in schemas for p in validate(payload, schema)]",
     "problems = [p for schema in schemas[:1] for p in validate(payload, schema)]",
     "kernel.resume-schema"),
    # resolving a step other than the one in doubt is accepted
    (_K + "runtime.py",
     "if state.status is not Status.IN_DOUBT or state.in_doubt_step != step_id:",
     "if state.status is not Status.IN_DOUBT:",
     "kernel.resolve"),
    # a journal holding only a torn first event (no event) is taken as started
    (_K + "runtime.py",
     "if journal.events:  # spec: kernel.start -- an existing execution is refused",
     "if journal.events or journal.torn is not None:  # spec: kernel.start",
     "kernel.start"),
    # an empty decision context ({}) is left out as if it were absent
    (_K + "driver.py",
     "        if cmd.context is not None:\n",
     "        if cmd.context:\n",
     "kernel.decision-record"),
    # an empty resume schema ({}) is not journaled with its gate
    (_K + "driver.py",
     "if cmd.resume_schema is not None:  # spec: kernel.resume-schema (journaled)",
     "if cmd.resume_schema:  # spec: kernel.resume-schema (journaled)",
     "kernel.resume-schema"),
    # a replayed failure matches the journaled one by its code alone (the message ignored)
    (_K + "driver.py",
     "if recorded is None or (recorded.get(\"code\"), recorded.get(\"message\")) != (\n"
     "                error.get(\"code\"), error.get(\"message\")):",
     "if recorded is None or recorded.get(\"code\") != error.get(\"code\"):",
     "kernel.replay-end"),
    # ---- journal ---------------------------------------------------------------------------
    # an integer of exactly 309 digits (the first length that can exceed a double) is not
    # looked at: 2e308 written out in digits is accepted
    (_J + "codec.py",
     '_LONG_DIGITS = re.compile(rb"[0-9]{309}")',
     '_LONG_DIGITS = re.compile(rb"[0-9]{310}")',
     "journal.json-values"),
    # the torn tail's line number is the last complete line's, not the next one (off by one)
    (_J + "reader.py",
     "torn = TornTail(line=len(lines) + 1, size=len(data) - good_size)",
     "torn = TornTail(line=len(lines), size=len(data) - good_size)",
     "journal.torn-tail"),
    # a line with both a wrong seq and an extra member: the member check runs first
    (_J + "reader.py",
     "    found = obj.get(\"seq\")\n"
     "    if found != seq or type(found) is not int:  # spec: journal.seq\n"
     "        raise JournalError(f\"expected seq {seq}, found {found!r}\", "
     "code=\"journal.seq-gap\")\n"
     "    if len(obj) != 3:  # spec: journal.line-shape -- exactly seq, kind, payload (and crc)\n"
     "        raise MalformedLineError(f\"unexpected members {sorted(obj)}\")\n",
     "    if len(obj) != 3:  # spec: journal.line-shape -- exactly seq, kind, payload (and crc)\n"
     "        raise MalformedLineError(f\"unexpected members {sorted(obj)}\")\n"
     "    found = obj.get(\"seq\")\n"
     "    if found != seq or type(found) is not int:  # spec: journal.seq\n"
     "        raise JournalError(f\"expected seq {seq}, found {found!r}\", "
     "code=\"journal.seq-gap\")\n",
     "journal.corrupt-line"),
    # "seq": true read as seq 1 (and 2.0 as 2): the number's type not checked
    (_J + "reader.py",
     "if found != seq or type(found) is not int:  # spec: journal.seq",
     "if found != seq:  # spec: journal.seq",
     "journal.seq"),
    # the crc's uppercase spelling of the right value is accepted
    (_J + "codec.py",
     "if b\"%08x\" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:",
     "if b\"%08x\" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2].lower():",
     "journal.checksum"),
    # a header whose version is true (== 1 in Python) is accepted
    (_J + "codec.py",
     "return type(value) is int and value == SCHEMA_VERSION",
     "return value == SCHEMA_VERSION",
     "journal.header"),
    # a second RESUME_RECEIVED of the waiting gate is folded without complaint
    (_J + "fold.py",
     "if p[\"gateId\"] != waiting_gate or pending:",
     "if p[\"gateId\"] != waiting_gate:",
     "journal.transitions"),
    # the in-doubt step stays named after it is resolved (cleared only by another marking)
    (_J + "fold.py",
     "in_doubt = step_id if kind is K.STEP_IN_DOUBT else None",
     "in_doubt = step_id if kind is K.STEP_IN_DOUBT else in_doubt",
     "journal.fold"),
    # COM0 and LPT0 taken as ordinary names (the range starts one late)
    (_J + "ids.py",
     "com[0-9]|lpt[0-9]",
     "com[1-9]|lpt[1-9]",
     "journal.execution-ids"),
    # a run of content items with count 0 is accepted (the range's lower end moved)
    (_J + "contentstore.py",
     "run[0] >= 0 and run[1] >= 1",
     "run[0] >= 0 and run[1] >= 0",
     "journal.content-refs"),
    # a gate's resumeSchema present but null is taken as absent
    (_J + "events.py",
     "if kind is _SUSPENDED and \"resumeSchema\" in payload:",
     "if kind is _SUSPENDED and payload.get(\"resumeSchema\") is not None:",
     "journal.required-fields"),
    # ---- effects ---------------------------------------------------------------------------
    # the jitter of attempt n is drawn with the next attempt's number
    (_E + "middleware/retry.py",
     "delay = capped * (1.0 - jitter + jitter * jitter_fraction(key, attempt))",
     "delay = capped * (1.0 - jitter + jitter * jitter_fraction(key, attempt + 1))",
     "effects.retry-backoff"),
    # a bucket refills up to one token above its capacity
    (_E + "middleware/rate_limit.py",
     "return min(self.capacity, bucket[0] + max(0.0, now - bucket[1]) * self.rate)",
     "return min(self.capacity + 1.0, bucket[0] + max(0.0, now - bucket[1]) * self.rate)",
     "effects.rate-limit"),
    # over budget and killed at once: the kill switch is asked first and wins
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
    # an attempt's usage is not started afresh: a retry's record carries the earlier attempt's
    (_E + "runtime.py",
     "            if ctx._usage is not None:\n                ctx._usage = None\n",
     "",
     "effects.metering-record"),
    # an attempt both aborted and severed: the sever is raised, not the abort
    (_E + "runtime.py",
     "            if signal.aborted:\n                raise AbortedError(signal.reason)\n"
     "            if channel is not None and channel.severed is not None:\n"
     "                raise channel.severed  # spec: deltas.sever-sticky -- "
     "the effect swallowed it\n",
     "            if channel is not None and channel.severed is not None:\n"
     "                raise channel.severed  # spec: deltas.sever-sticky -- "
     "the effect swallowed it\n"
     "            if signal.aborted:\n                raise AbortedError(signal.reason)\n",
     "effects.signal-abort"),
    # streaming refused: a call whose only sink is the effect's configured one is not warned
    (_E + "runtime.py",
     "if per_call is not None or configured is not None:\n                self.on_warn(",
     "if per_call is not None:\n                self.on_warn(",
     "effects.streaming-refused"),
    # killed globally and per tool: the tool's reason wins over the global one
    (_E + "kill_switch.py",
     "        if self._global is not None:\n            return self._global\n"
     "        return self._tools.get(tool_id)\n",
     "        return self._tools.get(tool_id) or self._global\n",
     "effects.kill-switch"),
    # reviving the global switch forgets the per-tool kills still engaged
    (_E + "kill_switch.py",
     "self._engaged = self._global is not None or bool(self._tools)",
     "self._engaged = self._global is not None",
     "effects.kill-switch"),
    # two usage reports of one attempt: the last replaces the first instead of adding to it
    (_E + "context.py",
     "total[key] = total.get(key, 0) + value",
     "total[key] = value",
     "effects.usage"),
    # the reset chunk goes to the per-call sink only, not to the configured sink too
    (_E + "deltas.py",
     "self._deliver(EffectDelta.restart(n, self.origin), both=True)",
     "self._deliver(EffectDelta.restart(n, self.origin), both=False)",
     "deltas.channel"),
    # an empty text write counts as streaming: a terminal chunk follows a stream of nothing
    (_E + "deltas.py",
     "        if not what:\n            return\n        self.streamed = True\n",
     "        self.streamed = True\n        if not what:\n            return\n",
     "deltas.terminal"),
    # a write after the call settled, on a severed attempt, raises the sever instead of
    # being dropped
    (_E + "deltas.py",
     "        if self.settled or self.signal.aborted:  # spec: deltas.live-window\n"
     "            self.dropped += 1\n"
     "            return\n"
     "        if self.severed is not None:  # spec: deltas.sever-sticky\n"
     "            raise self.severed\n"
     "        if not what:\n",
     "        if self.severed is not None:  # spec: deltas.sever-sticky\n"
     "            raise self.severed\n"
     "        if self.settled or self.signal.aborted:  # spec: deltas.live-window\n"
     "            self.dropped += 1\n"
     "            return\n"
     "        if not what:\n",
     "deltas.live-window"),
    # ---- governance ------------------------------------------------------------------------
    # a window exactly as wide as the widest pattern is refused (>= for >)
    (_G + "holdback.py",
     "if self.max_width > self._guard.window:",
     "if self.max_width >= self._guard.window:",
     "guards.hold-back-width"),
    # several validators: the hold is the last one's width, not the widest
    (_G + "holdback.py",
     "widest = max(widest, width)",
     "widest = width",
     "guards.hold-back-width"),
    # max_width given: it replaces a bounded rule's own width too
    (_G + "deny.py",
     "if rule.max_width is None and max_width is not None:",
     "if max_width is not None:",
     "validators.deny"),
    # several rules of one validator: the width is the first rule's, not the widest
    (_G + "validators.py",
     "return max((w for w in widths if w is not None), default=0)",
     "return widths[0] if widths else 0",
     "guards.hold-back-width"),
    # a mapping entry is walked value first, then key: a tainted key behind a tainted value
    # is no longer the first one reported
    (_G + "walk.py",
     "            nodes.append(Node(path=child, value=k, key=True))\n"
     "            nodes.append(Node(path=child, value=v))\n",
     "            nodes.append(Node(path=child, value=v))\n"
     "            nodes.append(Node(path=child, value=k, key=True))\n",
     "taint.guard-details"),
    # a card run followed by one separator (and no digit after it) is not maximal
    (_G + "pii.py",
     "after = _digit(text, end) or (_separator(text, end) and _digit(text, end + 1))",
     "after = _digit(text, end) or _separator(text, end)",
     "validators.pii-card"),
    # the SSN's right boundary looks one character too far
    (_G + "pii.py",
     "return not _digit(text, start - 1) and not _digit(text, end)",
     "return not _digit(text, start - 1) and not _digit(text, end + 1)",
     "validators.pii-ssn"),
    # the text's first character is taken as not there (inclusive start made exclusive)
    (_G + "pii.py",
     "return 0 <= at < len(text) and \"0\" <= text[at] <= \"9\"",
     "return 0 < at < len(text) and \"0\" <= text[at] <= \"9\"",
     "validators.pii-card"),
    # the email scan starts 63, not 64, characters before the "@": a 64-character local part
    # is matched from its second character (the span moves)
    (_G + "pii.py",
     "required=\"@\", required_offset=64)",
     "required=\"@\", required_offset=63)",
     "validators.pii-email"),
    # a retry zeroes the budget's sum but not its delta index
    (_G + "budget.py",
     "        self._stamp.bump()\n        self.used = 0\n        self._index = 0\n",
     "        self._stamp.bump()\n        self.used = 0\n",
     "guards.reset"),
    # two guards of a chain both severing: the last guard is asked first and wins
    (_G + "guards.py",
     "            commits = [stage(delta) for stage in self._staging]\n"
     "            if self._last is not None:\n"
     "                self._last(delta)\n",
     "            if self._last is not None:\n"
     "                self._last(delta)\n"
     "            commits = [stage(delta) for stage in self._staging]\n",
     "guards.chain-order"),
    # the running text keeps one character fewer than the window
    (_G + "guards.py",
     "kept = checked[-self.window :]",
     "kept = checked[-self.window + 1 :]",
     "guards.window"),
    # ---- stream ----------------------------------------------------------------------------
    # every space after a field's colon is removed, not just one
    (_S + "sse.py",
     "        if colon and value.startswith(\" \"):\n            value = value[1:]\n",
     "        if colon and value.startswith(\" \"):\n            value = value.lstrip(\" \")\n",
     "stream.openai.sse"),
    # an event whose data is one empty line is not dispatched (data present but empty)
    (_S + "sse.py",
     "        if not data:\n            return None\n",
     "        if not \"\".join(data):\n            return None\n",
     "stream.openai.sse"),
    # 1e20 (21 digits, the last written in full) is written with an exponent
    (_S + "json_text.py",
     "if k <= n <= 21:",
     "if k <= n < 21:",
     "stream.openai.restringify-form"),
    # both cached spellings present: DeepSeek's wins over cached_tokens
    (_S + "openai_mapping.py",
     "    if cached is None:\n        cached = _count(raw.get(\"prompt_cache_hit_tokens\"))",
     "    if \"prompt_cache_hit_tokens\" in raw:\n"
     "        cached = _count(raw.get(\"prompt_cache_hit_tokens\"))",
     "stream.openai.disjoint-usage"),
    # the last string finish_reason of the stream is mapped, not the first
    (_S + "openai_mapping.py",
     "if isinstance(reason, str) and self._finish is None:",
     "if isinstance(reason, str):",
     "stream.openai.payload"),
    # two in-band errors: the last recorded wins
    (_S + "openai_mapping.py",
     "            if self._error is None:\n                self._error = FinishReason.error(",
     "            if True:\n                self._error = FinishReason.error(",
     "stream.openai.in-band-error"),
    # a choice without an index is not the first choice (the default of an absent member)
    (_S + "openai_mapping.py",
     "index = choice.get(\"index\", 0)",
     "index = choice.get(\"index\")",
     "stream.openai.payload"),
    # reasoning and content in one delta: content folded first
    (_S + "openai_mapping.py",
     "        if isinstance(reasoning, str) and reasoning:\n"
     "            self._text_like(BlockType.REASONING, reasoning, out)\n"
     "        content = delta.get(\"content\")\n"
     "        if isinstance(content, str) and content:\n"
     "            self._text_like(BlockType.TEXT, content, out)\n",
     "        content = delta.get(\"content\")\n"
     "        if isinstance(content, str) and content:\n"
     "            self._text_like(BlockType.TEXT, content, out)\n"
     "        if isinstance(reasoning, str) and reasoning:\n"
     "            self._text_like(BlockType.REASONING, reasoning, out)\n",
     "stream.openai.text-and-reasoning"),
    # reasoning_content present but empty hides the other spelling's reasoning
    (_S + "openai_mapping.py",
     "if not isinstance(reasoning, str) or not reasoning:\n"
     "            reasoning = delta.get(\"reasoning\")",
     "if not isinstance(reasoning, str):\n"
     "            reasoning = delta.get(\"reasoning\")",
     "stream.openai.text-and-reasoning"),
    # an in-band error in a stream that opened no block is reported as an empty response
    (_S + "openai_mapping.py",
     "if self._error is None and self._next_index == 0 and (",
     "if self._next_index == 0 and (",
     "stream.openai.empty-response"),
    # a resent name replaces the first (the last kept, not the first)
    (_S + "openai_mapping.py",
     "if block.name is None and isinstance(name, str) and name:",
     "if isinstance(name, str) and name and name != block.name:",
     "stream.openai.tool-call-identity"),
    # ---- agent -----------------------------------------------------------------------------
    # both thresholds crossed: the count rule wins over the byte rule
    (_A + "compaction.py",
     "    if by_bytes:\n        assert after_bytes is not None\n",
     "    if by_bytes and not by_messages:\n        assert after_bytes is not None\n",
     "agent.kept-suffix-bytes"),
    # the byte rule's suffix is not floored at 1: a newest message over half the budget is
    # folded too
    (_A + "compaction.py",
     "return max(1, keep) if sizes else 0",
     "return keep",
     "agent.kept-suffix-bytes"),
    # the byte rule's cap at keep_recent applied one message late
    (_A + "compaction.py",
     "        if keep >= keep_recent:\n            break\n",
     "        if keep > keep_recent:\n            break\n",
     "agent.kept-suffix-bytes"),
    # the first boundary of a push is the cut, not the last one
    (_A + "chunk_deltas.py",
     "        for match in _BOUNDARY.finditer(self._buffer, self._scan):\n"
     "            self._cut = match.end()\n",
     "        for match in _BOUNDARY.finditer(self._buffer, self._scan):\n"
     "            self._cut = match.end()\n"
     "            break\n",
     "agent.chunk-min-chars"),
    # the query is the oldest user message's text, not the newest's
    (_A + "loop.py",
     "    for message in reversed(messages):\n        if message[\"role\"] == \"user\":",
     "    for message in messages:\n        if message[\"role\"] == \"user\":",
     "agent.recall"),
    # a call past the limit naming an unknown tool: the name is checked first and wins
    (_A + "loop.py",
     "    if j >= config.max_tool_calls_per_turn:\n"
     "        return error(TOOL_CALL_LIMIT, "
     "f\"more than {config.max_tool_calls_per_turn} tool calls \"\n"
     "                     \"in one turn; this one was not run\")\n"
     "    tool = config.tool(name)\n"
     "    if tool is None:\n"
     "        return error(UNKNOWN_TOOL, f\"there is no tool named {canonical_json(name)}\")\n",
     "    tool = config.tool(name)\n"
     "    if tool is None:\n"
     "        return error(UNKNOWN_TOOL, f\"there is no tool named {canonical_json(name)}\")\n"
     "    if j >= config.max_tool_calls_per_turn:\n"
     "        return error(TOOL_CALL_LIMIT, "
     "f\"more than {config.max_tool_calls_per_turn} tool calls \"\n"
     "                     \"in one turn; this one was not run\")\n",
     "agent.tool-error"),
    # arguments of whitespace only are parsed as JSON (and refused), not taken as {}
    (_A + "loop.py",
     "args = parse_json(raw) if isinstance(raw, str) and raw.strip() else (",
     "args = parse_json(raw) if isinstance(raw, str) and raw else (",
     "agent.tool-spec"),
    # a cut reply that held only tool calls leaves an empty assistant message in the transcript
    (_A + "loop.py",
     "        if message.content or not truncated:\n",
     "        if True:\n",
     "agent.max-tokens-turn"),
    # the transcript warning is given at every check over the limit, not once per drive
    (_A + "loop.py",
     "if self.done or not self.limit or transcript.bytes <= self.limit:",
     "if not self.limit or transcript.bytes <= self.limit:",
     "agent.warn-transcript"),
    # a refusal whose reason is the empty string keeps "" instead of the default reason
    (_A + "approval.py",
     "return False, reason if isinstance(reason, str) and reason else DEFAULT_REFUSAL_REASON",
     "return False, reason if isinstance(reason, str) else DEFAULT_REFUSAL_REASON",
     "agent.approval-payload"),
]


def edge2_mutants(root: str) -> list[Mutant]:
    """The table as mutants of the files under ``root`` (operator ``edge2``); an entry whose
    old text no longer occurs exactly once is reported and left out (the pytest
    ``tests/test_mutation_edge.py`` fails on it)."""
    return table_mutants(root, EDGE2, "edge2")
