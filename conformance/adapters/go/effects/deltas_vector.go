package effects

import "strings"

// The conformance functions deltas.run (spec/deltas.md §3a.9, {#deltas.vector-run}) and
// deltas.record (§3a.10).

type runEntry struct {
	text     *string
	abort    *abortSpec
	write    any
	hasWrite bool
}

type runAttempt struct {
	entries    []runEntry
	end        bool
	usage      *Usage
	raise      bool
	output     any
	hasOutput  bool
	catchSever bool
}

func parseRunAttempt(v any) *runAttempt {
	m := object(v, "attempt", "deltas", "end", "usage", "outcome", "output", "catchSever")
	a := &runAttempt{end: optBool(m, "end", "attempt", true), catchSever: optBool(m, "catchSever", "attempt", false)}
	if dv, ok := m["deltas"]; ok {
		for _, x := range list(dv, "deltas") {
			switch e := x.(type) {
			case string:
				s := e
				a.entries = append(a.entries, runEntry{text: &s})
			case map[string]any:
				if w, ok := e["write"]; ok {
					object(e, "write entry", "write")
					if _, isStr := w.(string); isStr {
						bad("write: a string")
					}
					a.entries = append(a.entries, runEntry{write: w, hasWrite: true})
					continue
				}
				object(e, "abort entry", "abort", "source")
				ab := &abortSpec{reason: reqStr(e, "abort", "abort entry", true), source: "call"}
				if _, ok := e["source"]; ok {
					ab.source = reqStr(e, "source", "abort entry", true)
					if ab.source != "call" && ab.source != "execution" {
						bad("abort: unknown source")
					}
				}
				a.entries = append(a.entries, runEntry{abort: ab})
			default:
				bad("deltas: an entry that is not a string or an object")
			}
		}
	}
	if u, ok := m["usage"]; ok {
		us, ok := parseUsage(u)
		if !ok {
			bad("usage: not the usage wire form")
		}
		a.usage = us
	}
	switch optStr(m, "outcome", "attempt", "return", true) {
	case "return":
	case "raise":
		a.raise = true
	default:
		bad("outcome: not return or raise")
	}
	a.output, a.hasOutput = m["output"]
	return a
}

type collector struct {
	chunks []any
	raise  bool
	code   string
	name   string // "perCall" or "configured", for the sequence of deliveries
	seq    *[]any // every delivery to either sink, in the order made
}

func (c *collector) sink(d *Delta) error {
	c.chunks = append(c.chunks, d.JSON())
	*c.seq = append(*c.seq, map[string]any{"sink": c.name, "chunk": d.JSON()})
	if c.raise {
		return &LoomError{Code: c.code, Message: "scripted sink failure"}
	}
	return nil
}

// sinkFor builds a sink of kind "collect", "raise" or "none".
func sinkFor(kind, code, name string, seq *[]any) (*collector, Sink) {
	switch kind {
	case "collect":
		c := &collector{chunks: []any{}, name: name, seq: seq}
		return c, c.sink
	case "raise":
		c := &collector{chunks: []any{}, raise: true, code: code, name: name, seq: seq}
		return c, c.sink
	case "none":
		return nil, nil
	}
	bad("sink: not collect, raise or none")
	return nil, nil
}

func (c *collector) result() any {
	if c == nil {
		return nil
	}
	return c.chunks
}

func deltasRunVector(input any) (any, error) {
	in := object(input, "input", "attempts", "input", "scope", "toolId", "mode", "retry", "redact", "validators",
		"deltaWindow", "holdBack", "secondSafety", "maxStreamTokens", "inspectsOutput", "rewrite", "rateLimit", "order",
		"perCall", "configured", "late", "lateEnd", "kill", "deny", "refuse", "overBudget", "aborted", "modes", "sequence")
	if _, ok := in["attempts"]; !ok {
		bad("missing attempts")
	}
	var attempts []*runAttempt
	for _, x := range list(in["attempts"], "attempts") {
		attempts = append(attempts, parseRunAttempt(x))
	}
	if len(attempts) == 0 {
		bad("attempts: empty")
	}
	tool := optStr(in, "toolId", "input", "llm", true)
	mode := optStr(in, "mode", "input", "transient", true)
	if mode != "transient" && mode != "durable" {
		bad("mode: unknown")
	}
	useScope := optBool(in, "scope", "input", false)
	if useScope && mode == "durable" {
		bad("scope: transient only")
	}
	for _, a := range attempts {
		for _, e := range a.entries {
			if e.abort != nil && e.abort.source == "execution" && !useScope {
				bad("abort of source execution without a scope")
			}
		}
	}

	// Members are read in this order, the middleware last in the order of the table, so that the
	// first malformation reported is loom-ref's (probes p3-*, notes D25).
	defPer := "collect"
	if mode == "durable" {
		defPer = "none"
	}
	perKind := optStr(in, "perCall", "input", defPer, true)
	if mode == "durable" && perKind != "none" {
		bad("perCall: a durable call has no per-call sink")
	}
	sequence := []any{}
	perC, perSink := sinkFor(perKind, "effect.scripted-sink-failure", "perCall", &sequence)
	confC, confSink := sinkFor(optStr(in, "configured", "input", "none", true), "effect.scripted-sink-failure", "configured", &sequence)
	var late []string
	if lv, ok := in["late"]; ok {
		for _, x := range list(lv, "late") {
			s, ok := x.(string)
			if !ok {
				bad("late: not a string")
			}
			late = append(late, s)
		}
	}
	lateEnd := optBool(in, "lateEnd", "input", false)
	var kill *string
	if _, ok := in["kill"]; ok {
		k := reqStr(in, "kill", "input", true)
		kill = &k
	}
	// The refusals of deltas.refused-call: each a reason, a non-empty string.
	reason := func(name string) *string {
		if _, ok := in[name]; !ok {
			return nil
		}
		r := reqStr(in, name, "input", true)
		if r == "" {
			bad(name + ": not a non-empty string")
		}
		return &r
	}
	deny, refuse, overBudget, aborted := reason("deny"), reason("refuse"), reason("overBudget"), reason("aborted")
	modes := map[string]bool{"durable": true, "transient": true}
	if mv, ok := in["modes"]; ok {
		ml := list(mv, "modes")
		if len(ml) == 0 {
			bad("modes: empty")
		}
		modes = map[string]bool{}
		for _, x := range ml {
			m, _ := x.(string)
			if m != "durable" && m != "transient" {
				bad("modes: not durable or transient")
			}
			modes[m] = true
		}
	}
	withSequence := optBool(in, "sequence", "input", false)
	window := optInt(in, "deltaWindow", "input", 4096)
	if window < 1 {
		bad("deltaWindow: below 1")
	}
	holdBack := optBool(in, "holdBack", "input", false)

	// The middleware, by name, in the default order of the table.
	named := map[string]*Middleware{}
	var names []string
	retry := optInt(in, "retry", "input", int64(len(attempts)))
	if retry < 1 || retry > int64(len(attempts)) {
		bad("retry: outside [1, len(attempts)]")
	}
	if retry > 1 {
		named["retry"] = retryMiddleware(retry, 0, 2.0, 10.0, 0, "", nil)
		names = append(names, "retry")
	}
	if rv, ok := in["redact"]; ok {
		switch x := rv.(type) {
		case bool:
			if x {
				bad("redact: true")
			}
			named["redact"] = redactionMiddleware(nil, false)
		case []any:
			vs := parseValidators(x, "redact")
			for _, v := range vs {
				if !v.HasOutput { // pattern_redactor needs an output form to mask (#deltas.vector-run)
					bad("redact: a validator with no output form")
				}
			}
			named["redact"] = redactionMiddleware(vs, true)
		default:
			bad("redact: not validators or false")
		}
		names = append(names, "redact")
	}
	if vv, ok := in["validators"]; ok {
		mw, err := safetyMiddleware(parseValidators(vv, "validators"), int(window), holdBack)
		if err != nil {
			return nil, err
		}
		named["safety"] = mw
		names = append(names, "safety")
	}
	if vv, ok := in["secondSafety"]; ok { // several hold-back guards compose (#deltas.hold-back)
		mw, err := safetyMiddleware(parseValidators(vv, "secondSafety"), int(window), holdBack)
		if err != nil {
			return nil, err
		}
		named["secondSafety"] = mw
		names = append(names, "secondSafety")
	}
	if _, ok := in["maxStreamTokens"]; ok {
		n := reqInt(in, "maxStreamTokens", "input")
		if n < 0 {
			bad("maxStreamTokens: below 0")
		}
		named["budget"] = budgetMiddleware(int(n))
		names = append(names, "budget")
	}
	if optBool(in, "inspectsOutput", "input", false) {
		named["inspector"] = inspectorMiddleware()
		names = append(names, "inspector")
	}
	if rv, ok := in["rewrite"]; ok {
		rm := object(rv, "rewrite", "replace", "inspectsOutput")
		if _, ok := rm["replace"]; !ok {
			bad("rewrite: missing replace")
		}
		pair := list(rm["replace"], "replace")
		if len(pair) != 2 {
			bad("rewrite: replace is not [old, new]")
		}
		old, ok1 := pair[0].(string)
		nw, ok2 := pair[1].(string)
		if !ok1 || !ok2 || old == "" { // "" refused as loom-ref does (probe d12, notes D12)
			bad("rewrite: replace is not [old, new] with a non-empty old")
		}
		named["rewrite"] = rewriteMiddleware(old, nw, optBool(rm, "inspectsOutput", "rewrite", false))
		names = append(names, "rewrite")
	}
	if rv, ok := in["rateLimit"]; ok {
		rm, isObj := rv.(map[string]any)
		if !isObj {
			bad("rateLimit: not an object")
		}
		rm2 := map[string]any{"kind": "rateLimit"}
		for k, v := range rm {
			if k == "kind" {
				bad("rateLimit: unknown member kind")
			}
			rm2[k] = v
		}
		named["rateLimit"] = parseRateLimit(rm2)
		names = append(names, "rateLimit")
	}
	if refuse != nil {
		r := *refuse
		named["refuse"] = &Middleware{Name: "refuse", Handle: func(ctx *Ctx, input any, next Next) (any, error) {
			return nil, refusal("effect.refused", r) // EffectRefusal, without calling next
		}}
		names = append(names, "refuse")
	}
	if ov, ok := in["order"]; ok {
		ol := list(ov, "order")
		seen := map[string]bool{}
		var order []string
		for _, x := range ol {
			s, ok := x.(string)
			if !ok || named[s] == nil || seen[s] {
				bad("order: not exactly the configured middleware")
			}
			seen[s] = true
			order = append(order, s)
		}
		if len(order) != len(names) {
			bad("order: not exactly the configured middleware")
		}
		names = order
	}
	var mws []*Middleware
	for _, n := range names {
		mws = append(mws, named[n])
	}
	callInput := in["input"]

	warnings := []any{}
	rt := NewRuntime(mws, nil, func(code, text string) { warnings = append(warnings, code) })
	callSig, execSig := NewSignal(), NewSignal()
	executions := 0
	var channels []DeltaWriter
	if deny != nil {
		r := *deny
		rt.authorize = func(string, string, string) (bool, string) { return false, r }
	}
	if overBudget != nil {
		// A meter that admits no call (and so records nothing).
		rt.meter = &BudgetMeter{budget: 0, estimate: 1, onRecord: func(MeterRecord) {}}
	}
	if aborted != nil {
		callSig.Abort(*aborted) // the caller's signal, aborted before the call
	}
	eff := &Effect{ToolID: tool, Modes: modes, DeltaSink: confSink}
	eff.Execute = func(ctx *Ctx, input any) (any, error) {
		executions++
		a := attempts[ctx.Attempt-1]
		channels = append(channels, ctx.OnDelta)
		var joined strings.Builder
		write := func(v any) error {
			if err := ctx.OnDelta.Write(v); err != nil && !a.catchSever {
				return err
			}
			return nil
		}
		for _, e := range a.entries {
			switch {
			case e.text != nil:
				joined.WriteString(*e.text)
				if err := write(*e.text); err != nil {
					return nil, err
				}
			case e.hasWrite:
				if err := write(e.write); err != nil {
					return nil, err
				}
			case e.abort.source == "execution":
				execSig.Abort(e.abort.reason)
			default:
				callSig.Abort(e.abort.reason)
			}
		}
		if a.end {
			var u any
			if a.usage != nil {
				u = a.usage
			}
			if err := ctx.OnDelta.End(u); err != nil && !a.catchSever {
				return nil, err
			}
		}
		if a.raise {
			return nil, &LoomError{Code: "effect.scripted-failure", Message: "scripted failure"}
		}
		if a.hasOutput {
			return a.output, nil
		}
		return joined.String(), nil
	}
	if err := rt.Register(eff); err != nil {
		return nil, err
	}
	if kill != nil {
		t := tool
		rt.kill.kill(*kill, &t)
	}

	var out any
	var err error
	switch {
	case useScope:
		sc := &routeScope{execID: "x1", execSignal: execSig, lifetime: NewSignal()}
		out, err = sc.invokeTransient(rt, tool, callInput, callSig, perSink)
	case mode == "durable":
		out, err = rt.Invoke(&EffectCall{ToolID: tool, Input: callInput, Mode: "durable", Principal: "p", Signal: callSig})
	default:
		out, err = rt.InvokeTransient(tool, callInput, "p", callSig, perSink)
	}
	for _, ch := range channels { // {#deltas.live-window}: late writes are dropped
		for _, s := range late {
			ch.Write(s)
		}
	}
	if lateEnd { // {#deltas.live-window}: a late end chunk is dropped too, never raising a sever
		for _, ch := range channels {
			if endErr := ch.End(nil); endErr != nil {
				return nil, endErr
			}
		}
	}
	outcome := map[string]any{"ok": true, "output": out}
	if err != nil {
		outcome = map[string]any{"ok": false, "code": codeOf(err)}
		if e, ok := err.(*LoomError); ok && e.Code == "effect.aborted" {
			outcome["reason"] = strOrNil(e.Reason)
		}
	}
	result := map[string]any{"perCall": perC.result(), "configured": confC.result(), "warnings": warnings,
		"executions": executions, "outcome": outcome}
	if withSequence {
		result["sequence"] = sequence
	}
	return result, nil
}

// deltasRecordVector is deltas.record: the JSON form of the EffectDelta built from a chunk's
// JSON form ({#deltas.record}, {#deltas.json}).
func deltasRecordVector(input any) (any, error) {
	m := object(input, "input", "delta", "origin", "done", "reset", "attempt", "usage")
	text := reqStr(m, "delta", "input", false)
	origin := reqStr(m, "origin", "input", false)
	done := optBool(m, "done", "input", false)
	reset := optBool(m, "reset", "input", false)
	var attempt *int64
	if _, ok := m["attempt"]; ok {
		a := reqInt(m, "attempt", "input")
		attempt = &a
	}
	var usage *Usage
	if u, ok := m["usage"]; ok {
		us, ok := parseUsage(u)
		if !ok {
			bad("usage: not the usage wire form")
		}
		usage = us
	}
	d, err := newDelta(text, origin, done, reset, attempt, usage)
	if err != nil {
		return nil, err
	}
	return d.JSON(), nil
}
