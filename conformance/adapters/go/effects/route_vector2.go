package effects

// Continued from route_vector.go.

func routeVector(input any) (any, error) {
	in := object(input, "input", "effects", "grants", "middleware", "meter", "clock", "steps")
	if _, ok := in["effects"]; !ok {
		bad("missing effects")
	}
	if _, ok := in["steps"]; !ok {
		bad("missing steps")
	}
	run := &routeRun{scopes: map[string]*routeScope{}}

	start := optNum(in, "clock", "input", 0)
	clock, cerr := newClock(start)
	if cerr != nil {
		return nil, cerr
	}
	clock.onSleep = func(s float64) { run.add(map[string]any{"sleep": s}) }

	var mws []*Middleware
	if mv, ok := in["middleware"]; ok {
		for _, x := range list(mv, "middleware") {
			mw := parseRouteMiddleware(x)
			if mw == nil {
				mw = run.probe(x.(map[string]any))
			}
			mws = append(mws, mw)
		}
	}
	rt := NewRuntime(mws, clock, nil)
	run.rt = rt

	if gv, ok := in["grants"]; ok {
		type grant struct {
			principal, tool string
			modes           map[string]bool
		}
		var grants []grant
		for _, x := range list(gv, "grants") {
			g := object(x, "grant", "principal", "toolId", "modes")
			gr := grant{principal: reqStr(g, "principal", "grant", true), tool: reqStr(g, "toolId", "grant", true),
				modes: map[string]bool{"durable": true, "transient": true}}
			if mv, ok := g["modes"]; ok {
				gr.modes = parseModes(mv, "grant")
			}
			grants = append(grants, gr)
		}
		rt.authorize = func(principal, tool, mode string) (bool, string) { // GrantAuthorizer
			for _, g := range grants {
				if (g.principal == "*" || g.principal == principal) && (g.tool == "*" || g.tool == tool) && g.modes[mode] {
					return true, ""
				}
			}
			return false, "no grant for " + principal + " on " + tool + " (" + mode + ")"
		}
	}
	if mv, ok := in["meter"]; ok {
		m := object(mv, "meter", "budget", "estimate")
		budget := reqInt(m, "budget", "meter")
		est := optInt(m, "estimate", "meter", 1)
		if budget < 0 || est < 0 {
			bad("meter: budget and estimate are integers >= 0")
		}
		rt.meter = &BudgetMeter{budget: budget, estimate: est, onRecord: func(rec MeterRecord) {
			run.add(map[string]any{"record": map[string]any{"toolId": rec.ToolID, "principal": rec.Principal,
				"mode": rec.Mode, "usage": usageJSON(rec.Usage), "charged": rec.Charged, "advisory": rec.Advisory}})
		}}
	}

	effects := list(in["effects"], "effects")
	if len(effects) == 0 {
		bad("effects: empty")
	}
	for _, x := range effects {
		e := object(x, "effect", "toolId", "modes", "idempotent", "script")
		eff := &Effect{ToolID: reqStr(e, "toolId", "effect", true), Modes: map[string]bool{"durable": true, "transient": true},
			Idempotent: optBool(e, "idempotent", "effect", false)}
		if mv, ok := e["modes"]; ok {
			eff.Modes = parseModes(mv, "effect")
		}
		if _, ok := e["script"]; !ok {
			bad("effect: missing script")
		}
		var script []*routeAttempt
		for _, a := range list(e["script"], "script") {
			script = append(script, parseRouteAttempt(a))
		}
		if len(script) == 0 {
			bad("effect: empty script")
		}
		eff.Execute = run.execute(script)
		if err := rt.Register(eff); err != nil {
			return nil, err
		}
	}

	// Read every step before running any (a step naming no scope opened so far is malformed).
	steps := list(in["steps"], "steps")
	if len(steps) == 0 {
		bad("steps: empty")
	}
	opened := map[string]bool{}
	type step struct {
		kind string
		m    map[string]any
		call *routeCall
		val  any
	}
	var parsed []step
	for _, x := range steps {
		m, ok := x.(map[string]any)
		if !ok || len(m) != 1 {
			bad("step: not exactly one of the step kinds")
		}
		var s step
		for k, v := range m {
			s.kind, s.val = k, v
		}
		switch s.kind {
		case "call":
			s.call = parseRouteCall(s.val, opened)
		case "advance":
			f, ok := isNum(s.val)
			if !ok || f < 0 {
				bad("advance: not a number >= 0")
			}
		case "kill":
			parseKill(s.val, "kill")
		case "revive":
			rm := object(s.val, "revive", "toolId")
			if _, ok := rm["toolId"]; ok {
				reqStr(rm, "toolId", "revive", true)
			}
		case "scope":
			sm := object(s.val, "scope", "name", "executionId", "executionAborted")
			name := reqStr(sm, "name", "scope", true)
			reqStr(sm, "executionId", "scope", true)
			if _, ok := sm["executionAborted"]; ok {
				reqStr(sm, "executionAborted", "scope", true)
			}
			opened[name] = true
		case "close":
			name, ok := s.val.(string)
			if !ok || !opened[name] {
				bad("close: not an opened scope")
			}
		case "cancelExecution":
			cm := object(s.val, "cancelExecution", "scope", "reason")
			name, ok := cm["scope"].(string)
			if !ok || !opened[name] {
				bad("cancelExecution: not an opened scope")
			}
			reqStr(cm, "reason", "cancelExecution", true)
		case "isIdempotent":
			t, ok := s.val.(string)
			if !ok || t == "" {
				bad("isIdempotent: not a tool id")
			}
		default:
			bad("step: unknown kind %q", s.kind)
		}
		parsed = append(parsed, s)
	}

	type watched struct {
		res map[string]any
		sig **Signal
	}
	var watches []watched
	results := make([]any, 0, len(parsed))
	for _, s := range parsed {
		switch s.kind {
		case "call":
			res, sig := run.call(s.call)
			if s.call.watch {
				watches = append(watches, watched{res, sig})
			}
			results = append(results, res)
			continue
		case "advance":
			f, _ := isNum(s.val)
			clock.Advance(f)
		case "kill":
			k := parseKill(s.val, "kill")
			rt.kill.kill(k.reason, k.tool)
		case "revive":
			rm := s.val.(map[string]any)
			var t *string
			if v, ok := rm["toolId"]; ok {
				x := v.(string)
				t = &x
			}
			rt.kill.revive(t)
		case "scope":
			sm := s.val.(map[string]any)
			sc := &routeScope{execID: sm["executionId"].(string), execSignal: NewSignal(), lifetime: NewSignal()}
			if r, ok := sm["executionAborted"]; ok {
				sc.execSignal.Abort(r.(string))
			}
			run.scopes[sm["name"].(string)] = sc
		case "close":
			run.scopes[s.val.(string)].lifetime.Abort("scope closed")
		case "cancelExecution":
			cm := s.val.(map[string]any)
			run.scopes[cm["scope"].(string)].execSignal.Abort(cm["reason"].(string))
		case "isIdempotent":
			results = append(results, map[string]any{"idempotent": rt.IsIdempotent(s.val.(string))})
			continue
		}
		results = append(results, map[string]any{})
	}
	for _, w := range watches {
		if *w.sig == nil {
			w.res["signalAtEnd"] = nil
		} else if (*w.sig).aborted {
			w.res["signalAtEnd"] = map[string]any{"aborted": true, "reason": (*w.sig).reason}
		} else {
			w.res["signalAtEnd"] = map[string]any{"aborted": false}
		}
	}
	return map[string]any{"steps": results}, nil
}

// probe builds a probe middleware: it traces what it sees ({"enter"}, {"leave"}).
func (r *routeRun) probe(m map[string]any) *Middleware {
	object(m, "probe", "kind", "name", "setInput", "return")
	name := reqStr(m, "name", "probe", true)
	setInput, hasSet := m["setInput"]
	ret, hasRet := m["return"]
	return &Middleware{Name: "probe:" + name, Handle: func(ctx *Ctx, input any, next Next) (any, error) {
		r.add(map[string]any{"enter": name, "attempt": ctx.Attempt, "input": input})
		if hasRet {
			r.add(map[string]any{"leave": name, "attempt": ctx.Attempt, "output": ret})
			return ret, nil
		}
		in := input
		if hasSet {
			in = setInput
		}
		out, err := next(ctx, in)
		if err != nil {
			r.add(map[string]any{"leave": name, "attempt": ctx.Attempt, "error": codeOf(err)})
			return nil, err
		}
		r.add(map[string]any{"leave": name, "attempt": ctx.Attempt, "output": out})
		return out, nil
	}}
}

// call makes one call step; it returns the step's result and where the signal the effect saw
// will be found.
func (r *routeRun) call(c *routeCall) (map[string]any, **Signal) {
	trace := []any{}
	r.trace = &trace
	sig := NewSignal()
	if c.aborted != nil {
		sig.Abort(*c.aborted)
	}
	r.cur, r.curSig, r.curScop = c, sig, nil
	var seen *Signal
	// The effect's context is observed through the execute trace hook: wrap Execute once.
	var out any
	var err error
	crashed := false
	func() {
		defer func() {
			if x := recover(); x != nil {
				if _, ok := x.(crash); ok {
					crashed = true
					return
				}
				panic(x)
			}
		}()
		r.seen = &seen
		if c.scope != nil {
			sc := r.scopes[*c.scope]
			r.curScop = sc
			out, err = sc.invokeTransient(r.rt, c.tool, c.input, sig, nil)
			return
		}
		call := &EffectCall{ToolID: c.tool, Input: c.input, Mode: c.mode, Principal: c.principal,
			ExecutionID: c.executionID, StepID: c.stepID, IdempotencyKey: c.idempotencyKey, Signal: sig}
		if c.mode == "durable" {
			call.OnEmit = func(ev any) { r.add(map[string]any{"emit": ev}) }
		}
		switch c.door {
		case "invoke":
			out, err = r.rt.Invoke(call)
		case "invokeTransient":
			out, err = r.rt.InvokeTransientCall(call)
		default:
			out, err = r.rt.InvokeTransient(c.tool, c.input, c.principal, sig, nil)
		}
	}()
	r.trace, r.seen = nil, nil
	res := map[string]any{"trace": trace}
	switch {
	case crashed:
		res["outcome"] = map[string]any{"crashed": true}
	case err != nil:
		res["outcome"] = map[string]any{"error": routeErrorJSON(err)}
	default:
		res["outcome"] = map[string]any{"output": out}
	}
	return res, &seen
}

// invokeTransient is DecideScope.invoke_transient: a transient call AS the deciding execution,
// its signal any_of(execution, caller, lifetime), detached once it settles
// ({#effects.scope-principal}, {#effects.scope-closed}, {#effects.signal-detach}).
func (sc *routeScope) invokeTransient(host *Runtime, tool string, input any, signal *Signal, onDelta Sink) (any, error) {
	if sc.lifetime.aborted {
		return nil, abortedErr("scope closed", nil)
	}
	composite, detach := anyOf(sc.execSignal, signal, sc.lifetime)
	defer detach()
	id := sc.execID
	return host.InvokeTransientCall(&EffectCall{ToolID: tool, Input: input, Mode: "transient",
		Principal: id, ExecutionID: &id, Signal: composite, OnDelta: onDelta})
}
