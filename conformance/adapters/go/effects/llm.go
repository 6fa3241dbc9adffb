package effects

import "fmt"

// The stream collector and the LLM effect (spec/deltas.md §3a.7), and the conformance
// function deltas.llm (§3a.10).

// directWriter is the channel of a context with no host ({#deltas.no-runtime}): text to the
// per-call sink then to the configured sink, the end chunk to the per-call sink only; no guard
// runs and a sink's error propagates.
type directWriter struct {
	perCall, configured Sink
	origin              string
}

func (w *directWriter) Write(v any) error {
	text, ok := v.(string)
	if !ok {
		return invalid("on_delta takes a str")
	}
	if text == "" {
		return nil
	}
	for _, s := range []Sink{w.perCall, w.configured} {
		if s != nil {
			if err := s(&Delta{Text: text, Origin: w.origin}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *directWriter) End(usage any) error {
	var u *Usage
	if usage != nil {
		x, ok := usage.(*Usage)
		if !ok {
			return invalid("end(usage) takes a TokenUsage")
		}
		u = x
	}
	if w.perCall != nil {
		return w.perCall(&Delta{Origin: w.origin, Done: true, Usage: u})
	}
	return nil
}

// llmFailed is LlmStreamFailed: effect.llm-error or effect.llm-aborted with its failure.
func llmFailed(code string, f *Failure) *LoomError {
	var fc any
	msg := ""
	if f != nil {
		msg = f.Message
		if f.Code != nil {
			fc = *f.Code
		}
	}
	return &LoomError{Code: code, Message: msg, Details: map[string]any{"failure": map[string]any{"code": fc, "message": msg}}}
}

// collectStream folds consume's chunks with the assembler, writes each text delta to the
// channel after the fold accepted it, and after a successful finish reports the billed usage
// and writes the end chunk ({#deltas.collect-signal}, {#deltas.collect-text},
// {#deltas.collect-finish}, {#deltas.collect-usage}).
func collectStream(c *consumer, ctx *Ctx, w DeltaWriter) (any, error) {
	asm := newAssembler()
	for {
		if ctx.Signal.aborted {
			c.close()
			return nil, abortedErr(ctx.Signal.reason, nil)
		}
		ch := c.next()
		if ch == nil {
			break
		}
		if err := asm.feed(ch); err != nil {
			return nil, err
		}
		// The text of a non-empty text or reasoning delta the fold appended to a text block is
		// written; one into a reasoning, tool-call or tool-result block, or a straggler after
		// its block's block-end, is not ({#deltas.collect-text}).
		if asm.appended && ch.Text != "" {
			if err := w.Write(ch.Text); err != nil {
				return nil, err // a sever propagates: the collector never catches it
			}
		}
		if ch.Type == "finish" {
			break
		}
	}
	f := asm.finish
	switch {
	case f == nil:
		code := "stream.missing-finish"
		return nil, llmFailed("effect.llm-error", &Failure{Message: "stream ended without a finish", Code: &code})
	case f.Kind == "error":
		return nil, llmFailed("effect.llm-error", f.Failure)
	case f.Kind == "aborted":
		if ctx.Signal.aborted {
			return nil, abortedErr(ctx.Signal.reason, nil)
		}
		return nil, llmFailed("effect.llm-aborted", f.Failure)
	}
	if u := asm.usage; u != nil {
		rep := map[string]any{"inputTokens": u.Input, "outputTokens": u.Output}
		if u.CacheRead != nil {
			rep["cacheReadTokens"] = *u.CacheRead
		}
		if u.CacheWrite != nil {
			rep["cacheWriteTokens"] = *u.CacheWrite
		}
		if err := ctx.ReportUsage(rep); err != nil {
			return nil, err
		}
	}
	var u any
	if asm.usage != nil {
		u = asm.usage
	}
	if err := w.End(u); err != nil {
		return nil, err
	}
	out := asm.message()
	if f.Kind == "max-tokens" { // {#deltas.llm-output-finish}
		out["finish"] = map[string]any{"kind": "max-tokens"}
	}
	return out, nil
}

// checkLLMInput reads the effect's input ({#deltas.llm-input}); it returns the request model.
func checkLLMInput(input any, defModel string) (string, error) {
	m, ok := input.(map[string]any)
	if !ok {
		return "", invalid("llm input: not an object")
	}
	for k := range m {
		switch k {
		case "messages", "system", "tools", "model", "maxTokens", "temperature":
		default:
			return "", invalid("llm input: unknown member %q", k)
		}
	}
	msgs, ok := m["messages"].([]any)
	if !ok {
		return "", invalid("llm input: messages is not an array")
	}
	for _, x := range msgs {
		if _, ok := decodeMessage(x); !ok {
			return "", invalid("llm input: a message does not decode")
		}
	}
	if s, ok := m["system"]; ok {
		if _, isStr := s.(string); !isStr {
			return "", invalid("llm input: system is not a string")
		}
	}
	if tv, ok := m["tools"]; ok {
		tools, isList := tv.([]any)
		if !isList {
			return "", invalid("llm input: tools is not an array")
		}
		for _, t := range tools {
			tm, isObj := t.(map[string]any)
			if !isObj {
				return "", invalid("llm input: a tool is not an object")
			}
			for k, v := range tm {
				switch k {
				case "name":
					if s, ok := v.(string); !ok || s == "" {
						return "", invalid("llm input: a tool name is not a non-empty string")
					}
				case "description":
					if _, ok := v.(string); !ok {
						return "", invalid("llm input: a tool description is not a string")
					}
				case "parameters":
					if _, ok := v.(map[string]any); !ok {
						return "", invalid("llm input: tool parameters are not an object")
					}
				default:
					return "", invalid("llm input: unknown tool member %q", k)
				}
			}
			if _, ok := tm["name"]; !ok {
				return "", invalid("llm input: a tool without a name")
			}
		}
	}
	model := defModel
	if mv, ok := m["model"]; ok {
		s, isStr := mv.(string)
		if !isStr || s == "" {
			return "", invalid("llm input: model is not a non-empty string")
		}
		model = s
	}
	if v, ok := m["maxTokens"]; ok && v != nil {
		if _, isI := isInt(v); !isI {
			return "", invalid("llm input: maxTokens is not an int")
		}
	}
	if v, ok := m["temperature"]; ok && v != nil {
		if _, isN := isNum(v); !isN {
			return "", invalid("llm input: temperature is not a finite number")
		}
	}
	return model, nil
}

// newLLMEffect is create_llm_effect(adapter, tool_id, model, on_delta, on_reset)
// ({#deltas.llm-input}, {#deltas.llm-output}, {#deltas.llm-sinks}).
func newLLMEffect(a *scriptedAdapter, tool, model string, onDelta Sink, onReset func(int)) *Effect {
	eff := &Effect{ToolID: tool, Modes: map[string]bool{"durable": true, "transient": true}}
	switch {
	case onReset != nil:
		eff.DeltaSink = func(d *Delta) error {
			if d.Reset {
				onReset(d.Attempt)
				return nil
			}
			if onDelta != nil {
				return onDelta(d)
			}
			return nil
		}
	case onDelta != nil:
		eff.DeltaSink = onDelta
	}
	eff.Execute = func(ctx *Ctx, input any) (any, error) {
		if err := guardRequest(input); err != nil { // FIRST the taint fence (#9)
			return nil, err
		}
		reqModel, err := checkLLMInput(input, model)
		if err != nil {
			return nil, err
		}
		w := ctx.OnDelta
		if w == nil {
			var per Sink
			if ctx.Call != nil {
				per = ctx.Call.OnDelta
			}
			w = &directWriter{perCall: per, configured: onDelta, origin: "llm:" + tool}
		}
		return collectStream(&consumer{a: a, model: reqModel, sig: ctx.Signal}, ctx, w)
	}
	return eff
}

func llmOutcome(out any, err error) map[string]any {
	if err == nil {
		return map[string]any{"ok": true, "output": out}
	}
	res := map[string]any{"ok": false, "code": codeOf(err)}
	if e, ok := err.(*LoomError); ok {
		switch e.Code {
		case "effect.aborted":
			res["reason"] = strOrNil(e.Reason)
			if e.Cause != nil {
				res["cause"] = codeOf(e.Cause)
			}
		case "effect.llm-error", "effect.llm-aborted":
			res["failure"] = e.Details["failure"]
		}
	}
	return res
}

func deltasLLMVector(input any) (any, error) {
	in := object(input, "input", "scripts", "input", "toolId", "model", "retry", "validators", "maxStreamTokens",
		"perCall", "deltaSink", "onReset", "runtime", "abortOn", "feedBack")
	if _, ok := in["scripts"]; !ok {
		bad("missing scripts")
	}
	adapter := &scriptedAdapter{}
	for _, x := range list(in["scripts"], "scripts") {
		sm := object(x, "script", "chunks", "raiseAfter", "honorSignal")
		if _, ok := sm["chunks"]; !ok {
			bad("script: missing chunks")
		}
		s := adapterScript{honor: optBool(sm, "honorSignal", "script", true)}
		for _, cv := range list(sm["chunks"], "chunks") {
			c, ok := decodeChunk(cv)
			if !ok {
				bad("a chunk does not decode")
			}
			s.chunks = append(s.chunks, c)
		}
		if _, ok := sm["raiseAfter"]; ok {
			k := reqInt(sm, "raiseAfter", "script")
			if k < 0 {
				bad("raiseAfter below 0")
			}
			s.raiseAfter = &k
		}
		adapter.scripts = append(adapter.scripts, s)
	}
	if len(adapter.scripts) == 0 {
		bad("scripts: empty")
	}
	// The input is plain JSON: the $tainted encoding ({#taint.vector-encoding}) is not read here
	// (loom-ref's answer to probe p2-llm-tainted-in-input, notes L17); only the feedBack call
	// carries a tainted value.
	callInput := in["input"]
	tool := optStr(in, "toolId", "input", "planner", true)
	model := optStr(in, "model", "input", "m1", true)
	var mws []*Middleware
	retry := optInt(in, "retry", "input", 1)
	if retry < 1 {
		bad("retry below 1")
	}
	if retry > 1 {
		mws = append(mws, retryMiddleware(retry, 0, 2.0, 10.0, 0, "", nil))
	}
	var deliveries []any // not observed by deltas.llm
	perC, perSink := sinkFor(optStr(in, "perCall", "input", "collect", true), "effect.scripted-sink-failure", "perCall", &deliveries)
	confC, confSink := sinkFor(optStr(in, "deltaSink", "input", "none", true), "effect.scripted-sink-failure", "configured", &deliveries)
	var resets []any
	var onReset func(int)
	if optBool(in, "onReset", "input", false) {
		resets = []any{}
		onReset = func(n int) { resets = append(resets, n) }
	}
	callSig := NewSignal()
	var firstText *Delta
	abortOn, hasAbort := in["abortOn"]
	if hasAbort {
		if s, ok := abortOn.(string); !ok || s == "" {
			bad("abortOn: not a non-empty string")
		}
	}
	// abortOn without a per-call sink never fires, and is not malformed ({#deltas.vector-llm}).
	if perSink != nil {
		inner := perSink
		perSink = func(d *Delta) error {
			if firstText == nil && d.Text != "" {
				firstText = d
			}
			err := inner(d)
			if hasAbort && d.Text != "" && d.Text == abortOn {
				callSig.Abort(fmt.Sprintf("stop at '%s'", d.Text))
			}
			return err
		}
	}
	// The middleware after the sinks, then runtime and feedBack: the first malformation reported
	// is then loom-ref's (probes p3-*, notes D25). The chain is retry, safety, budget.
	if vv, ok := in["validators"]; ok {
		mw, err := safetyMiddleware(parseValidators(vv, "validators"), 4096, false)
		if err != nil {
			return nil, err
		}
		mws = append(mws, mw)
	}
	if _, ok := in["maxStreamTokens"]; ok {
		n := reqInt(in, "maxStreamTokens", "input")
		if n < 0 {
			bad("maxStreamTokens below 0")
		}
		mws = append(mws, budgetMiddleware(int(n)))
	}
	useRuntime := optBool(in, "runtime", "input", true)
	if !useRuntime && len(mws) > 0 {
		bad("runtime false takes no middleware")
	}
	feedBack := optBool(in, "feedBack", "input", false)

	warnings := []any{}
	eff := newLLMEffect(adapter, tool, model, confSink, onReset)
	var call func(input any, sig *Signal, sink Sink) (any, error, []any)
	if useRuntime {
		rt := NewRuntime(mws, nil, func(code, text string) { warnings = append(warnings, code) })
		rt.meter = &BudgetMeter{budget: 1 << 62, estimate: 1}
		if err := rt.Register(eff); err != nil {
			return nil, err
		}
		call = func(input any, sig *Signal, sink Sink) (any, error, []any) {
			before := len(rt.meter.records)
			out, err := rt.InvokeTransient(tool, input, "x1", sig, sink)
			var usage []any
			for _, r := range rt.meter.records[before:] {
				usage = append(usage, usageJSON(r.Usage))
			}
			return out, err, usage
		}
	} else {
		call = func(input any, sig *Signal, sink Sink) (any, error, []any) {
			c := &EffectCall{ToolID: tool, Input: input, Mode: "transient", Principal: "x1", Signal: sig, OnDelta: sink}
			ctx := &Ctx{Call: c, ToolID: tool, Mode: "transient", Principal: "x1", Signal: sig, Attempt: 1,
				Clock: &ManualClock{}, usage: map[string]int64{}}
			out, err := eff.Execute(ctx, input)
			return out, err, []any{usageJSON(ctx.usage)}
		}
	}
	out, err, usage := call(callInput, callSig, perSink)
	if usage == nil {
		usage = []any{}
	}
	models := append([]any{}, adapter.models...)
	res := map[string]any{"perCall": perC.result(), "deltaSink": confC.result(), "resets": nil,
		"warnings": warnings, "usage": usage,
		"adapter": map[string]any{"calls": adapter.calls, "pulled": adapter.pulled, "models": models},
		"outcome": llmOutcome(out, err)}
	if resets != nil {
		res["resets"] = resets
	}
	if feedBack {
		// The second call needs the first text chunk the per-call sink received; without one
		// the script cannot run as written (loom-ref's answer to probes l9-*, notes L9).
		if firstText == nil {
			bad("feedBack: the per-call sink received no text chunk")
		}
		prompt := map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": Tainted{Value: firstText.Text, Origin: firstText.Origin}}}}}}
		before := adapter.calls
		out2, err2, _ := call(prompt, NewSignal(), nil)
		res["feedBack"] = map[string]any{"outcome": llmOutcome(out2, err2), "adapterCalls": adapter.calls - before}
	}
	return res, nil
}
