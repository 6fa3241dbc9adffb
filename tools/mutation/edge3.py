"""A third set of edge mutants: hand-written changes, each breaking one rule of ``spec/`` AT ITS
BOUNDARY, written by a third reader who has seen neither the suite's cases nor the first two
sets' entries.

Issue 30's measure ("Hand-written edge mutants written by someone who has not seen the cases
are caught by the suite alone at >= 90%"). The first two sets (``tools/mutation/edge.py``,
``tools/mutation/edge2.py``) have been scored and the cases strengthened against them, so a
third, independent reader wrote this one, from the spec chapters (kernel, journal, effects,
deltas, governance, stream, agent, errors, README), ``conformance/INTERPRETING.md``, the seeds
and ``loom_ref/`` alone, without opening ``conformance/cases/``, ``conformance/boundaries.json``,
``conformance/not-pinned/``, ``tests/`` (but ``tests/test_mutation_edge.py``),
``spec/TRACE.md``, ``spec/BOUNDARIES.md``, ``spec/SEEDS.md``, ``spec/blind/``, the reviewed
lists, the project's history, or the entries of ``edge.py`` and ``edge2.py``. (The writer did
read ``edge2.py``'s module docstring, to follow its form, after every entry below had been
written and checked; no entry of either earlier table was seen.)

Each entry is one plausible mistake of another implementer at the edge of a rule, 12 per
layer (the effects layer holds effects and deltas): a threshold off by one, a limit applied
one step early or late, two checks in the other order (which error wins when both problems
are present), two settings with their precedence reversed, empty taken as non-empty (or the
reverse), one/two/several at once confused, the first occurrence kept for the last, an
inclusive range end made exclusive, a value present but null taken as absent. Every one
changes what the JSON-lines protocol observes: before the table was fixed, a small program ran
loom_ref and a scratch copy with the one change on the input the comment above the entry
names (a vector function's input, or a scenario of ``conformance/INTERPRETING.md`` run through
the in-process adapter) and saw a different answer, so none is equivalent.

The table was fixed, and committed, before it was first scored; an entry is never dropped or
changed after its score is known (only its old text may be mended when the code moves, so
that it still names the same change). Its survivors are the suite's gaps, not the table's.

Each entry names the file, the exact text it replaces (which must occur there exactly once,
so the table cannot drift silently from the code), the new text, and the rule it breaks (a
spec anchor). Its mutants have the operator ``edge3`` and are scored alone, with the suite
alone:

    python -m tools.mutation --edge3 --no-random --jobs 1 --timeout 90

Score (its first and only scoring, on the tree of commit 9dc7dcf, where the table was fixed:
``python -m tools.mutation --edge3 --no-random --jobs 1 --timeout 90``, the suite alone, its
generated variants included), killed / total: kernel 12/12, journal 12/12, effects
12/12, governance 11/12, stream 12/12, agent 12/12; overall 71/72 (98.6%), none judged
equivalent. The one survivor is the governance entry of ``validators.rule-conditions``
(``loom_ref/governance/rules.py``, ``_scan``): a listing of every match (a redactor's) that
resumes one character after an accepted match's start instead of at its end. On ``deltas.run``
with ``"redact": [{"kind": "deny", "patterns": {"r": "aa"}}]`` and one attempt writing
``"aaa"``, loom_ref answers the output ``"[redacted]a"``, the mutant ``"[redacted][redacted]"``
(it masks the overlapping second match), so it is not equivalent: the suite simply holds no
input that tells the two apart.
"""

from __future__ import annotations

from .semantic import table_mutants
from .sites import Mutant

__all__ = ["EDGE3", "edge3_mutants"]

#: (file, old text, new text, rule broken); the comment above each entry is the input on which
#: the original and the mutant answer differently (what the original answers, then the mutant).
EDGE3: list[tuple[str, str, str, str]] = [
    # -- kernel --------------------------------------------------------------------------------
    # a body that executes tool t with stepId 'x', then t without one: t#1 (the mutant derives t#2)
    ('loom_ref/kernel/context.py',
     '        else:\n            _check_id("step_id", step_id)\n',
     '        else:\n            _check_id("step_id", step_id)\n            self._derived[tool_id'
     '] = self._derived.get(tool_id, 0) + 1\n',
     'kernel.derived-counters'),
    # try: suspend gate '' with resumeSchema {'format': 'email'}: argument.id (the mutant:
    #   argument.schema)
    ('loom_ref/kernel/context.py',
     '        _check_id("gate_id", gate_id)\n        for name, value in',
     '        if resume_schema is not None:\n            check_schema(resume_schema, where="resum'
     'e_schema")\n        _check_id("gate_id", gate_id)\n        for name, value in',
     'kernel.ids'),
    # decide 'd' with context {}: DECISION_RECORDED holds context {} (the mutant leaves it out)
    ('loom_ref/kernel/driver.py',
     '        if cmd.context is not None:\n',
     '        if cmd.context:\n',
     'kernel.decision-record'),
    # suspend g with resumeSchema false, resume with 1: kernel.invalid-resume (the mutant journals
    #   no schema and completes)
    ('loom_ref/kernel/driver.py',
     '        if cmd.resume_schema is not None:  # spec: kernel.resume-schema (journaled)',
     '        if cmd.resume_schema:  # spec: kernel.resume-schema (journaled)',
     'kernel.gate-record'),
    # gate schema {type: integer} and workflow schema {minimum: 5}, resume with 1: invalid-resume
    #   (the mutant checks the gate's alone)
    ('loom_ref/kernel/runtime.py',
     '                       if s is not None]',
     '                       if s is not None][:1]',
     'kernel.resume-schema'),
    # resume g crashing after RESUME_RECEIVED, then resume g again: kernel.gate-not-waiting (the
    #   mutant: journal.illegal-transition, after an append)
    ('loom_ref/kernel/runtime.py',
     '            if state.status is not Status.SUSPENDED or state.waiting_gate != gate_id or (\n'
     '                state.pending_resume\n            ):',
     '            if state.status is not Status.SUSPENDED or state.waiting_gate != gate_id:',
     'kernel.resume-gate'),
    # in-doubt step t#1 resolved with output null: completes (the mutant refuses argument.invalid)
    ('loom_ref/kernel/runtime.py',
     'chosen = [output is not _MISSING, error is not None, bool(retry)]',
     'chosen = [output is not None, error is not None, bool(retry)]',
     'kernel.resolve'),
    # execute tool 'stream' (step stream#1), then ctx.stream: kernel.duplicate-id (the mutant
    #   completes)
    ('loom_ref/kernel/driver.py',
     '        if cid in self.seen:  # spec: kernel.duplicate-id\n            return None, Duplica'
     'teIdError(f"id {cid!r} is used twice in one execution", id=cid)\n        self.seen.add(cid)',
     '        if (kind, cid) in self.seen:  # spec: kernel.duplicate-id\n            return None,'
     ' DuplicateIdError(f"id {cid!r} is used twice in one execution", id=cid)\n        self.seen.'
     'add((kind, cid))  # type: ignore[arg-type]',
     'kernel.duplicate-id'),
    # start crashing torn on the first event (header only), then start again: it starts (the mutant:
    #   kernel.execution-exists)
    ('loom_ref/kernel/runtime.py',
     '            if journal.events:  # spec: kernel.start -- an existing execution is refused',
     '            if journal is not None:  # spec: kernel.start -- an existing execution is refus'
     'ed',
     'kernel.start'),
    # start crashing after STEP_STARTED, then replay: running (the mutant: in-doubt)
    ('loom_ref/kernel/driver.py',
     'raise _Park(Status.IN_DOUBT if rec.marked_in_doubt else Status.RUNNING,',
     'raise _Park(Status.IN_DOUBT,',
     'kernel.replay-readonly'),
    # return $drift [1, true], then replay: kernel.nondeterminism (the mutant: completed, Python's
    #   True == 1)
    ('loom_ref/kernel/driver.py',
     '            if term.kind is not K.EXECUTION_COMPLETED or not json_equal(\n                 '
     '   _copy(output), term.payload["output"]):',
     '            if term.kind is not K.EXECUTION_COMPLETED or (\n                    _copy(outpu'
     't) != term.payload["output"]):',
     'kernel.replay-end'),
    # journal with STEP_COMPLETED t#1 output 1 then an appended STEP_COMPLETED output 2, recover:
    #   output 2 (the mutant: 1)
    ('loom_ref/kernel/history.py',
     '                step.outcome = ev  # spec: kernel.latest-outcome (a later one replaces it)',
     '                step.outcome = step.outcome or ev  # spec: kernel.latest-outcome (a later o'
     'ne replaces it)',
     'kernel.latest-outcome'),
    # -- journal -------------------------------------------------------------------------------
    # journal.parse of a header naming an id of 200 'a': accepted (the mutant: bad-header)
    ('loom_ref/journal/ids.py',
     '_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}")',
     '_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,198}")',
     'journal.execution-ids'),
    # journal.parse of a header naming 'COM0': bad-header (the mutant accepts it)
    ('loom_ref/journal/ids.py',
     'com[0-9]|lpt[0-9]',
     'com[1-9]|lpt[1-9]',
     'journal.execution-ids'),
    # journal.parse of a line nesting exactly 128 levels with more than 128 brackets: accepted (the
    #   mutant: malformed-line)
    ('loom_ref/journal/codec.py',
     '        if depth > NESTING_LIMIT:\n',
     '        if depth >= NESTING_LIMIT:\n',
     'journal.nesting-limit'),
    # journal.parse of a header whose crc matches but is written in upper case: malformed-line (the
    #   mutant accepts it)
    ('loom_ref/journal/codec.py',
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:',
     'if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2].lower():',
     'journal.checksum'),
    # journal.parse of an event line with seq 2 (a gap) and kind NOPE: bad-payload (the mutant: seq-
    #   gap)
    ('loom_ref/journal/reader.py',
     '    kind = kind_from_name(obj.get("kind"))\n    payload = obj.get("payload")\n    check_pay'
     'load(kind, payload)\n',
     '    found = obj.get("seq")\n    if found != seq or type(found) is not int:\n        raise J'
     'ournalError(f"expected seq {seq}, found {found!r}", code="journal.seq-gap")\n    kind = kin'
     'd_from_name(obj.get("kind"))\n    payload = obj.get("payload")\n    check_payload(kind, pay'
     'load)\n',
     'journal.corrupt-line'),
    # journal.parse of an event line with seq true: seq-gap (the mutant accepts it as 1)
    ('loom_ref/journal/reader.py',
     'if found != seq or type(found) is not int:  # spec: journal.seq',
     'if found != seq or not isinstance(found, int):  # spec: journal.seq',
     'journal.seq'),
    # journal.parse of EXECUTION_STARTED with input null: accepted (the mutant: bad-payload)
    ('loom_ref/journal/events.py',
     '    if payload.keys() >= _REQUIRED_SETS[kind]:  # the common case, in one set comparison\n '
     '       return\n    missing = [name for name in REQUIRED[kind] if name not in payload]  # on'
     'e at least\n',
     '    if all(payload.get(name) is not None for name in REQUIRED[kind]):\n        return\n    '
     'missing = [name for name in REQUIRED[kind] if payload.get(name) is None]  # one at least\n',
     'journal.required-fields'),
    # journal.parse of EXECUTION_SUSPENDED with resumeSchema null: bad-payload (the mutant accepts
    #   it)
    ('loom_ref/journal/events.py',
     'if kind is _SUSPENDED and "resumeSchema" in payload:',
     'if kind is _SUSPENDED and payload.get("resumeSchema") is not None:',
     'journal.required-fields'),
    # journal.fold of STARTED, SUSPENDED g, RESUME_RECEIVED g twice: illegal-transition (the mutant
    #   folds it)
    ('loom_ref/journal/fold.py',
     '            if p["gateId"] != waiting_gate or pending:\n',
     '            if p["gateId"] != waiting_gate:\n',
     'journal.transitions'),
    # journal.fold of STARTED, SUSPENDED g, EXECUTION_RESUMED g (no resume pending): running (the
    #   mutant: illegal-transition)
    ('loom_ref/journal/fold.py',
     '            if p["gateId"] != waiting_gate:  # spec: journal.transitions',
     '            if p["gateId"] != waiting_gate or not pending:  # spec: journal.transitions',
     'journal.transitions'),
    # journal.content stored reference {new: ['a'], items: [[0, 1]]}: resolves to ['a'] (the mutant:
    #   missing-content)
    ('loom_ref/journal/contentstore.py',
     '        if first + count > size:\n',
     '        if first + count >= size:\n',
     'journal.content-errors'),
    # journal.content appends two STEP_STARTED with messages ['a']: the second reference has no
    #   'new' (the mutant writes new: [])
    ('loom_ref/journal/contentstore.py',
     '            if new:\n                ref["new"] = [item for item, _ in new]',
     '            if new is not None:\n                ref["new"] = [item for item, _ in new]',
     'journal.content-vector'),
    # -- effects -------------------------------------------------------------------------------
    # effects.route: kill global 'G', kill t 'T', call t: message G (the mutant: T)
    ('loom_ref/effects/kill_switch.py',
     '        if self._global is not None:\n            return self._global\n        return self.'
     '_tools.get(tool_id)',
     '        return self._tools.get(tool_id, self._global)',
     'effects.kill-switch'),
    # effects.route: kill t 'T', kill global 'G', revive global, call t: killed T (the mutant runs
    #   it)
    ('loom_ref/effects/kill_switch.py',
     '        if tool is None:\n            self._global = None\n',
     '        if tool is None:\n            self._global = None\n            self._tools.clear()'
     '\n',
     'effects.kill-switch'),
    # effects.route: a probe around a call the kill switch refuses: the probe leaves with attempt 0
    #   (the mutant: 1)
    ('loom_ref/effects/runtime.py',
     '            call = ctx.call\n            if call.mode not in modes:  # spec: effects.route-'
     'order (4: mode check)',
     '            call = ctx.call\n            ctx.attempt += 1\n            if call.mode not in '
     'modes:  # spec: effects.route-order (4: mode check)',
     'effects.retry-attempts'),
    # effects.route: attempt usage {a: 1, b: -1} under a meter: record usage {} (the mutant records
    #   {a: 1})
    ('loom_ref/effects/context.py',
     '            if value < 0:\n                raise InvalidArgument(f"usage {key!r} must be no'
     'n-negative, got {value}")\n        total = self._usage if self._usage is not None else {}\n'
     '        for key, value in usage.items():\n            total[key] = total.get(key, 0) + valu'
     'e\n        self._usage = total',
     '            if value < 0:\n                raise InvalidArgument(f"usage {key!r} must be no'
     'n-negative, got {value}")\n            total = self._usage if self._usage is not None else '
     '{}\n            total[key] = total.get(key, 0) + value\n            self._usage = total',
     'effects.usage'),
    # effects.route: attempt usage [{a: 1}, {a: 2}]: record usage {a: 3} (the mutant: {a: 2})
    ('loom_ref/effects/context.py',
     '            total[key] = total.get(key, 0) + value',
     '            total[key] = value',
     'effects.usage'),
    # effects.route: retry maxAttempts 2 baseDelay 0, script [raise, return]: trace holds {sleep:
    #   0.0} (the mutant sleeps not)
    ('loom_ref/effects/middleware/retry.py',
     '                ctx.clock.sleep(self.delay(ctx, attempt))',
     '                if self.delay(ctx, attempt) > 0:\n                    ctx.clock.sleep(self.'
     'delay(ctx, attempt))',
     'effects.retry-backoff'),
    # effects.route: transient invokeTransient call with idempotencyKey 'k', retry jitter 1
    #   baseDelay 1: sleep 0.772893 (the mutant: 0.137701)
    ('loom_ref/effects/middleware/retry.py',
     'key=f"{self.seed}:{ctx.idempotency_key or \'\'}",',
     'key=f"{self.seed}:{ctx.idempotency_key or ctx.call.idempotency_key or \'\'}",',
     'effects.retry-backoff'),
    # effects.route: rateLimit capacity 1 rate 1; call, advance 5, call, call: the third is rate-
    #   limited (the mutant runs it)
    ('loom_ref/effects/middleware/rate_limit.py',
     '        return min(self.capacity, bucket[0] + max(0.0, now - bucket[1]) * self.rate)',
     '        return bucket[0] + max(0.0, now - bucket[1]) * self.rate',
     'effects.rate-limit'),
    # deltas.run: attempts [['a'] raise, ['b']]: the per-call sink gets the reset of attempt 2 (the
    #   mutant sends none)
    ('loom_ref/effects/deltas.py',
     '        if n > 1:\n            self._deliver(EffectDelta.restart(n, self.origin), both=True'
     ')',
     '        if n > 2:\n            self._deliver(EffectDelta.restart(n, self.origin), both=True'
     ')',
     'deltas.reset'),
    # deltas.run: two hold-back safety middlewares (maxWidth 2 and 10): released pieces follow the
    #   widest hold (the mutant releases by the narrowest)
    ('loom_ref/effects/deltas.py',
     '        ready = min(self._released) - self._delivered',
     '        ready = max(self._released) - self._delivered',
     'deltas.hold-back'),
    # deltas.run: validators deny 'secret' and maxStreamTokens 1 on the delta 'abc secret':
    #   governance.delta-severed (the mutant: stream-token-budget)
    ('loom_ref/effects/deltas.py',
     '            for check in self._checks:\n                check(what)',
     '            for check in reversed(self._checks):\n                check(what)',
     'deltas.guard-order'),
    # deltas.run: an attempt that writes only its end chunk: the per-call sink gets the terminal
    #   chunk (the mutant sends none)
    ('loom_ref/effects/deltas.py',
     '        self.held = EffectDelta.end(self.origin, usage)\n        self.streamed = True\n',
     '        self.held = EffectDelta.end(self.origin, usage)\n',
     'deltas.terminal'),
    # -- governance ----------------------------------------------------------------------------
    # guards.run: deltas ['abcd', 'efgh'] with maxTokens 2 (sum exactly the budget): both delivered
    #   (the mutant severs the second)
    ('loom_ref/governance/budget.py',
     '        if self.used + n > self.max_tokens:',
     '        if self.used + n >= self.max_tokens:',
     'guards.token-budget'),
    # guards.run: delta 'abc' with maxTokens 0: severed, ceil(3/4) = 1 (the mutant counts 0 and
    #   delivers it)
    ('loom_ref/governance/budget.py',
     '    return -(-len(delta) // 4)',
     '    return len(delta) // 4',
     'guards.token-count'),
    # guards.run: deny 'a[0-9]*b' maxWidth 3, deltas ['xa12', 'b']: not severed (the mutant reports
    #   the 4-wide match)
    ('loom_ref/governance/rules.py',
     'start = 0 if self.max_width is None else max(0, fresh - (self.max_width - 1))',
     'start = 0 if self.max_width is None else max(0, fresh - self.max_width)',
     'guards.tail-scan'),
    # guards.run: pii window 13, deltas ['12345674222222222222', 'y']: not severed (the mutant
    #   reports a card lying wholly before the delta)
    ('loom_ref/governance/rules.py',
     '            if match.end() > fresh and self._accepts(text, match):',
     '            if match.end() >= fresh and self._accepts(text, match):',
     'guards.tail-scan'),
    # deltas.run: redact deny 'aa' over output 'aaa': '[redacted]a' (the mutant masks overlapping
    #   matches: '[redacted][redacted]')
    ('loom_ref/governance/rules.py',
     '                pos = match.end() if match.end() > match.start() else match.end() + 1',
     '                pos = match.start() + 1',
     'validators.rule-conditions'),
    # validators.check_output: deny {a: 'zzz', b: 'xx'} on 'xx zzz': rule a (the mutant reports the
    #   earliest match, rule b)
    ('loom_ref/governance/validators.py',
     '        for rule in self.rules:\n            match = rule._first_match(text, fresh)\n      '
     '      if match is not None:\n                return rule, match\n        return None',
     '        found = [(m.start(), i, rule, m) for i, rule in enumerate(self.rules)\n            '
     '     if (m := rule._first_match(text, fresh)) is not None]\n        return (min(found)[2], '
     'min(found)[3]) if found else None',
     'validators.rule-order'),
    # guards.run: holdBack with deny '(?:a+){0}b' (width 1): severs at 'xb' (the mutant calls the
    #   rule unbounded: argument.invalid)
    ('loom_ref/governance/dialect.py',
     '        max_width = (0 if hi == 0 else None if hi is None or body_max is None\n            '
     '         else hi * body_max)',
     '        max_width = (None if hi is None or body_max is None\n                     else hi *'
     ' body_max)',
     'validators.width'),
    # guards.run: holdBack with deny 'abc' and window 3 (exactly as wide): accepted (the mutant:
    #   argument.invalid)
    ('loom_ref/governance/holdback.py',
     '        if self.max_width > self._guard.window:',
     '        if self.max_width >= self._guard.window:',
     'guards.hold-back-width'),
    # validators.check_output: pii on 'card 4222222222222 ok' (13 digits, Luhn valid): card (the
    #   mutant accepts)
    ('loom_ref/governance/pii.py',
     'CARD_REGEX = r"[0-9](?:[ -]?[0-9]){12,18}"',
     'CARD_REGEX = r"[0-9](?:[ -]?[0-9]){13,18}"',
     'validators.pii-card'),
    # validators.check_output: pii on '1 4111111111111111': accepted, a digit and a separator
    #   precede the run (the mutant: card)
    ('loom_ref/governance/pii.py',
     '    before = _digit(text, start - 1) or (_separator(text, start - 1) and _digit(text, start'
     ' - 2))',
     '    before = _digit(text, start - 1)',
     'validators.pii-card'),
    # validators.check_output: deny of 32 nested groups: accepted (the mutant: argument.pattern,
    #   nesting)
    ('loom_ref/governance/dialect.py',
     '        if self.depth > MAX_DEPTH:',
     '        if self.depth >= MAX_DEPTH:',
     'patterns.limits'),
    # validators.check input: deny {a: 'zzz', b: 'xx'} on ['xx', 'zzz']: path /0 rule b (the mutant:
    #   /1 rule a)
    ('loom_ref/governance/validators.py',
     '        for node in walk(value):\n            if isinstance(node.value, str):\n            '
     '    found = self.scan._find(node.value)\n                if found is not None:\n           '
     '         raise self.scan.violation(*found, path=node.path)',
     '        nodes = [node for node in walk(value) if isinstance(node.value, str)]\n        for '
     'rule in self.scan.rules:\n            for node in nodes:\n                match = rule._fir'
     'st_match(node.value, 0)\n                if match is not None:\n                    raise s'
     'elf.scan.violation(rule, match, path=node.path)',
     'validators.input-walk'),
    # -- stream --------------------------------------------------------------------------------
    # stream.check: two text blocks open at a stop finish: one open-blocks-at-finish (the mutant:
    #   two)
    ('loom_ref/stream/contract.py',
     '        if still_open:\n            shown = ", ".join(str(int(k)) for k in still_open)',
     '        for _k in still_open:\n            shown = ", ".join(str(int(k)) for k in still_ope'
     'n)',
     'stream.open-blocks-at-finish'),
    # stream.check: a text block open at an aborted finish: no violation (the mutant reports one)
    ('loom_ref/stream/contract.py',
     '        if chunk.reason.failed:\n            return\n        still_open',
     '        if chunk.reason.kind.value == "error":\n            return\n        still_open',
     'stream.open-blocks-at-finish'),
    # stream.check: tool-call deltas named '' then 'f': an identity change at 2 (and 3) (the mutant:
    #   none)
    ('loom_ref/stream/contract.py',
     '        if name is None:\n            return\n        if block.name is None:',
     '        if not name:\n            return\n        if block.name is None:',
     'stream.tool-call-identity-stable'),
    # stream.check: tool-call ids c1, c2, block-end c1: one identity change, at 2 (the mutant: at 2
    #   and 3)
    ('loom_ref/stream/contract.py',
     '                f"tool-call id changed from {block.call_id!r} to {call_id!r}",\n           '
     ' )\n',
     '                f"tool-call id changed from {block.call_id!r} to {call_id!r}",\n           '
     ' )\n            block.call_id = call_id\n',
     'stream.tool-call-identity-stable'),
    # stream.check: finish then usage: usage-before-finish (the mutant: nothing-after-finish)
    ('loom_ref/stream/contract.py',
     '    (StreamState.FINISHED, StreamEvent.USAGE): Rule.USAGE_BEFORE_FINISH,',
     '    (StreamState.FINISHED, StreamEvent.USAGE): Rule.NOTHING_AFTER_FINISH,',
     'stream.nothing-after-finish'),
    # stream.assemble: tool-call deltas named 'f' then '': name f (the mutant: '')
    ('loom_ref/stream/assembler.py',
     '                    if chunk.name:  # the last non-empty name',
     '                    if chunk.name is not None:  # the last non-empty name',
     'stream.assembler.deltas-by-block-type'),
    # stream.assemble: text blocks '\u001c' and '\ufeff': interrupted keeps the first (the mutant,
    #   str.strip, keeps the second)
    ('loom_ref/stream/assembler.py',
     '    return all(c in BLANK for c in text)',
     '    return text.strip() == ""',
     'stream.assembler.interrupted'),
    # stream.assemble: index opened by a text delta, ended by a tool-call block-end, finish max-
    #   tokens: dropped (the mutant keeps it)
    ('loom_ref/stream/assembler.py',
     '            if block is None or (drop_calls and isinstance(block, ToolCallBlock)):',
     '            if block is None or (drop_calls and slot.block_type is BlockType.TOOL_CALL):',
     'stream.assembler.max-tokens-drops-tool-calls'),
    # stream.openai_fold: usage prompt 10 cached 10: inputTokens 0, cacheReadTokens 10 (the mutant
    #   drops the usage)
    ('loom_ref/stream/openai_mapping.py',
     '    if (cached or 0) > prompt or (reasoning or 0) > completion:',
     '    if (cached or 0) >= prompt or (reasoning or 0) > completion:',
     'stream.openai.usage-checked'),
    # stream.openai_fold: finish_reason 'length' then 'stop': max-tokens (the mutant: stop)
    ('loom_ref/stream/openai_mapping.py',
     '            if isinstance(reason, str) and self._finish is None:',
     '            if isinstance(reason, str):',
     'stream.openai.payload'),
    # stream.openai_fold: a choice with no delta content and no finish_reason: empty-response (the
    #   mutant: no-finish-reason)
    ('loom_ref/stream/openai_mapping.py',
     '        if self._error is None and self._next_index == 0 and (\n                reason is N'
     'one or reason.kind is FinishKind.STOP):',
     '        if self._error is None and self._next_index == 0 and (\n                reason is n'
     'ot None and reason.kind is FinishKind.STOP):',
     'stream.openai.empty-response'),
    # stream.openai_fold: a payload with error {} then content and stop: stop (the mutant: in-band-
    #   error)
    ('loom_ref/stream/openai_mapping.py',
     '        error = payload.get("error")\n        if error:',
     '        error = payload.get("error")\n        if error is not None:',
     'stream.openai.payload'),
    # -- agent ---------------------------------------------------------------------------------
    # agent.kept_suffix sizes [5, 5, 5] afterBytes 20: keep 2 (total 10 is exactly half; the mutant:
    #   1)
    ('loom_ref/agent/compaction.py',
     '        if 2 * (total + size) > after_bytes:  # exact: no float halving',
     '        if 2 * (total + size) >= after_bytes:  # exact: no float halving',
     'agent.kept-suffix-bytes'),
    # agent.kept_suffix sizes [1, 100, 1] afterBytes 10: keep 1 (the mutant skips the 100 and keeps
    #   2)
    ('loom_ref/agent/compaction.py',
     '            break\n        total += size',
     '            continue\n        total += size',
     'agent.kept-suffix-bytes'),
    # agent.compaction_plan sizes [1, 1, 1] afterMessages 3: no compaction (the mutant compacts at
    #   3)
    ('loom_ref/agent/compaction.py',
     '    by_messages = after_messages is not None and n > after_messages',
     '    by_messages = after_messages is not None and n >= after_messages',
     'agent.compaction-trigger'),
    # agent.compaction_plan sizes [100] afterBytes 10: skipped (the mutant compacts, folding 0)
    ('loom_ref/agent/compaction.py',
     '    if keep >= n:  # spec: agent.compaction-skip',
     '    if keep > n:  # spec: agent.compaction-skip',
     'agent.compaction-skip'),
    # agent.compaction_plan afterMessages 2 keepRecent 2: argument.agent-compaction (the mutant
    #   accepts)
    ('loom_ref/agent/compaction.py',
     '        if self.after_messages is not None and keep >= self.after_messages:',
     '        if self.after_messages is not None and keep > self.after_messages:',
     'agent.compaction-guard'),
    # agent_loop with compaction and warnTranscriptBytes 1: no warning (the mutant warns
    #   agent.transcript-bytes)
    ('loom_ref/agent/loop.py',
     '        self.limit = 0 if limit is False or config.compaction is not None else limit',
     '        self.limit = 0 if limit is False else limit',
     'agent.warn-transcript'),
    # agent.chunk_deltas ['He said ("\'stop.\'") then'] minChars 1: two batches, three closers (the
    #   mutant: one)
    ('loom_ref/agent/chunk_deltas.py',
     '_BOUNDARY = re.compile(r"[.!?。！？][\\"\'”’)\\]]{0,3}\\s|\\n")',
     '_BOUNDARY = re.compile(r"[.!?。！？][\\"\'”’)\\]]{0,2}\\s|\\n")',
     'agent.chunk-boundary'),
    # agent.chunk_deltas ['Hi. ', 'there'] minChars 4: ['Hi. ', 'there'] (the mutant: one batch)
    ('loom_ref/agent/chunk_deltas.py',
     '        if self._cut >= self.min_chars:',
     '        if self._cut > self.min_chars:',
     'agent.chunk-min-chars'),
    # agent_loop needsApproval, resume {approved: 1}: a refusal (the mutant runs the tool)
    ('loom_ref/agent/approval.py',
     '    if isinstance(payload, Mapping) and payload.get("approved") is True:',
     '    if isinstance(payload, Mapping) and payload.get("approved") == True:  # noqa: E712',
     'agent.approval-payload'),
    # agent_loop needsApproval, resume {approved: false, reason: ''}: reason 'declined by the
    #   approver' (the mutant: '')
    ('loom_ref/agent/approval.py',
     '    return False, reason if isinstance(reason, str) and reason else DEFAULT_REFUSAL_REASON',
     '    return False, reason if isinstance(reason, str) else DEFAULT_REFUSAL_REASON',
     'agent.approval-payload'),
    # agent_loop maxToolCallsPerTurn 1, a turn of two calls: the second is agent.tool-call-limit
    #   (the mutant runs it)
    ('loom_ref/agent/loop.py',
     '    if j >= config.max_tool_calls_per_turn:',
     '    if j > config.max_tool_calls_per_turn:',
     'agent.tool-error'),
    # agent_loop, a tool call with arguments '  ': the tool runs with {} (the mutant: agent.tool-
    #   arguments)
    ('loom_ref/agent/loop.py',
     '        args = parse_json(raw) if isinstance(raw, str) and raw.strip() else (',
     '        args = parse_json(raw) if isinstance(raw, str) and raw else (',
     'agent.tool-spec'),
]


def edge3_mutants(root: str) -> list[Mutant]:
    """The table as mutants of the files under ``root`` (operator ``edge3``); an entry whose
    old text no longer occurs exactly once is reported and left out (the pytest
    ``tests/test_mutation_edge.py`` fails on it)."""
    return table_mutants(root, EDGE3, "edge3")
