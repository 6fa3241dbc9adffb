package effects

import "strconv"

// deltas.replay (spec/deltas.md §3a.10): a streaming effect under a durable execution. A
// kernel runs workflow w over an in-memory journal,
//
//	step = execute("llm"); plan = decide("plan", d); payload = suspend("approve")
//	return [step, plan, payload]
//
// where d calls llm through its decide scope with a per-call sink. It is started (x1),
// resumed on approve with "ok", then replayed read-only; each phase reports only what
// happened during it. A journaled result is served, never run again (kernel.replay-serve):
// the deltas of a served step or decision are never delivered again (deltas.never-journaled).

type journalEvent struct {
	kind    string
	payload map[string]any
}

// replayKernel is the minimal kernel of this one workflow: an append-only journal and a
// cursor that serves what the journal holds.
type replayKernel struct {
	journal  []journalEvent
	readOnly bool
	rt       *Runtime
}

// errSuspended stops the body at a gate that has no resume yet.
type errSuspended struct{}

func (errSuspended) Error() string { return "suspended" }

func (k *replayKernel) find(kind, key, id string) map[string]any {
	for _, e := range k.journal {
		if e.kind == kind && e.payload[key] == id {
			return e.payload
		}
	}
	return nil
}

func (k *replayKernel) append(kind string, payload map[string]any) {
	if k.readOnly {
		bad("the read-only replay would append %s", kind)
	}
	k.journal = append(k.journal, journalEvent{kind, payload})
}

// execute is a durable step: served from STEP_COMPLETED, else journaled around the call.
func (k *replayKernel) execute(tool string, n int) (any, error) {
	stepID := tool + "#" + strconv.Itoa(n)
	if done := k.find("STEP_COMPLETED", "stepId", stepID); done != nil {
		return done["output"], nil
	}
	key := "x1/" + stepID
	k.append("STEP_STARTED", map[string]any{"stepId": stepID, "toolId": tool, "input": nil,
		"idempotencyKey": key})
	exec := "x1"
	out, err := k.rt.Invoke(&EffectCall{ToolID: tool, Mode: "durable", Principal: "x1",
		ExecutionID: &exec, StepID: &stepID, IdempotencyKey: &key, Signal: NewSignal()})
	if err != nil {
		return nil, err
	}
	k.append("STEP_COMPLETED", map[string]any{"stepId": stepID, "output": out})
	return out, nil
}

// decide is served from DECISION_RECORDED, else runs the decider and records its choice.
func (k *replayKernel) decide(id string, d func() (any, error)) (any, error) {
	if rec := k.find("DECISION_RECORDED", "decisionId", id); rec != nil {
		return rec["choice"], nil
	}
	choice, err := d()
	if err != nil {
		return nil, err
	}
	k.append("DECISION_RECORDED", map[string]any{"decisionId": id, "choice": choice})
	return choice, nil
}

// suspend returns a gate's resume payload, or suspends the execution at it.
func (k *replayKernel) suspend(gate string) (any, error) {
	if r := k.find("RESUME_RECEIVED", "gateId", gate); r != nil {
		return r["payload"], nil
	}
	k.append("EXECUTION_SUSPENDED", map[string]any{"gateId": gate, "on": nil, "correlationKey": nil})
	return nil, errSuspended{}
}

func deltasReplayVector(input any) (any, error) {
	in := object(input, "input", "deltas", "configured", "host")
	if _, ok := in["deltas"]; !ok {
		bad("missing deltas")
	}
	var deltas []string
	for _, x := range list(in["deltas"], "deltas") {
		s, ok := x.(string)
		if !ok || s == "" {
			bad("deltas: not a non-empty string")
		}
		deltas = append(deltas, s)
	}
	if len(deltas) == 0 {
		bad("deltas: empty")
	}
	configured := optStr(in, "configured", "input", "collect", true)
	if configured != "collect" && configured != "none" {
		bad("configured: not collect or none")
	}
	// "runtime": an EffectRuntime; "registry": the kernel's plain registry, whose channel is
	// the direct one of deltas.no-runtime. With no middleware configured, the governed
	// channel delivers exactly what the direct one does (the deltas to the configured sink,
	// the terminal chunk to the per-call sink only), so both hosts run on the runtime here.
	if h := optStr(in, "host", "input", "runtime", true); h != "runtime" && h != "registry" {
		bad("host: not runtime or registry")
	}

	var seq []any
	var confC *collector
	var confSink Sink
	if configured == "collect" {
		confC, confSink = sinkFor("collect", "", "configured", &seq)
	}
	var modes []any
	eff := &Effect{ToolID: "llm", Modes: map[string]bool{"durable": true, "transient": true},
		DeltaSink: confSink}
	eff.Execute = func(ctx *Ctx, input any) (any, error) {
		modes = append(modes, ctx.Mode)
		joined := ""
		for _, d := range deltas {
			joined += d
			if err := ctx.OnDelta.Write(d); err != nil {
				return nil, err
			}
		}
		if err := ctx.OnDelta.End(nil); err != nil {
			return nil, err
		}
		return joined, nil
	}
	rt := NewRuntime(nil, nil, func(string, string) {})
	if err := rt.Register(eff); err != nil {
		return nil, err
	}
	k := &replayKernel{rt: rt}
	var perC *collector
	body := func() (any, error) {
		step, err := k.execute("llm", 1)
		if err != nil {
			return nil, err
		}
		plan, err := k.decide("plan", func() (any, error) {
			sc := &routeScope{execID: "x1", execSignal: NewSignal(), lifetime: NewSignal()}
			var perSink Sink
			perC, perSink = sinkFor("collect", "", "perCall", &seq)
			defer sc.lifetime.Abort("scope closed")
			return sc.invokeTransient(rt, "llm", nil, NewSignal(), perSink)
		})
		if err != nil {
			return nil, err
		}
		payload, err := k.suspend("approve")
		if err != nil {
			return nil, err
		}
		return []any{step, plan, payload}, nil
	}
	phase := func(run func() (any, error)) map[string]any {
		modes, perC = []any{}, nil
		if confC != nil {
			confC.chunks = []any{}
		}
		out, err := run()
		status := "completed"
		switch err.(type) {
		case nil:
		case errSuspended:
			status, out = "suspended", nil
		default:
			status, out = "failed", nil
		}
		per := []any{}
		if perC != nil {
			per = perC.chunks
		}
		return map[string]any{"status": status, "output": out, "perCall": per,
			"configured": confC.result(), "executions": modes}
	}
	complete := func() (any, error) {
		out, err := body()
		if err == nil && !k.readOnly {
			k.append("EXECUTION_COMPLETED", map[string]any{"output": out})
		}
		return out, err
	}
	start := phase(func() (any, error) {
		k.append("EXECUTION_STARTED", map[string]any{"executionId": "x1", "workflow": "w", "input": nil})
		return complete()
	})
	resume := phase(func() (any, error) {
		k.append("RESUME_RECEIVED", map[string]any{"gateId": "approve", "payload": "ok"})
		k.append("EXECUTION_RESUMED", map[string]any{"gateId": "approve"})
		return complete()
	})
	k.readOnly = true
	replay := phase(complete)
	journal := make([]any, len(k.journal))
	for i, e := range k.journal {
		journal[i] = map[string]any{"kind": e.kind, "payload": e.payload}
	}
	return map[string]any{"start": start, "resume": resume, "replay": replay, "journal": journal}, nil
}
