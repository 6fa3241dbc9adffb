package effects

// The conformance function effects.route (spec/effects.md §3.8, {#effects.route-vector}).

type killSpec struct {
	reason string
	tool   *string
}

type abortSpec struct {
	reason string
	source string // call, execution, scope
}

// routeAttempt is one entry of a scripted effect's script.
type routeAttempt struct {
	usage    []map[string]any
	emit     []any
	advance  *float64
	kill     *killSpec
	abort    *abortSpec
	ending   string // return, echo, raise, crash
	ret      any
	raiseMsg string
	raiseCod string
}

type routeCall struct {
	tool, mode, door, principal         string
	input                               any
	executionID, stepID, idempotencyKey *string
	aborted                             *string
	watch                               bool
	scope                               *string
}

type routeScope struct {
	execID     string
	execSignal *Signal
	lifetime   *Signal
}

func optNullableStr(m map[string]any, key, what string) *string {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		bad("%s: %s is not a string or null", what, key)
	}
	return &s
}

func parseKill(v any, what string) *killSpec {
	m := object(v, what, "reason", "toolId")
	k := &killSpec{reason: reqStr(m, "reason", what, true)}
	if _, ok := m["toolId"]; ok {
		t := reqStr(m, "toolId", what, true) // null included: only an absent toolId is global
		k.tool = &t
	}
	return k
}

func parseModes(v any, what string) map[string]bool {
	l := list(v, what)
	if len(l) == 0 {
		bad("%s: empty modes", what)
	}
	modes := map[string]bool{}
	for _, x := range l {
		if x != "durable" && x != "transient" {
			bad("%s: unknown mode", what)
		}
		modes[x.(string)] = true
	}
	return modes
}

func parseRouteAttempt(v any) *routeAttempt {
	m := object(v, "attempt", "usage", "emit", "advance", "kill", "abort", "return", "echo", "raise", "crash")
	a := &routeAttempt{ending: "return"}
	if u, ok := m["usage"]; ok {
		switch x := u.(type) {
		case map[string]any:
			a.usage = []map[string]any{x}
		case []any:
			for _, r := range x {
				rm, ok := r.(map[string]any)
				if !ok {
					bad("usage: a report is not an object")
				}
				a.usage = append(a.usage, rm)
			}
		default:
			bad("usage: not an object or a list")
		}
	}
	if e, ok := m["emit"]; ok {
		a.emit = list(e, "emit")
	}
	if _, ok := m["advance"]; ok {
		f := reqNum(m, "advance", "attempt")
		a.advance = &f
	}
	if k, ok := m["kill"]; ok {
		a.kill = parseKill(k, "kill")
	}
	if ab, ok := m["abort"]; ok {
		switch x := ab.(type) {
		case string:
			if x == "" {
				bad("abort: empty reason")
			}
			a.abort = &abortSpec{reason: x, source: "call"}
		case map[string]any:
			// source defaults to "call" (loom-ref's answer to probe e2, notes E2)
			src := optStr(x, "source", "abort", "call", true)
			switch src {
			case "call", "execution":
				object(x, "abort", "reason", "source")
				a.abort = &abortSpec{reason: reqStr(x, "reason", "abort", true), source: src}
			case "scope":
				object(x, "abort", "source")
				a.abort = &abortSpec{source: src}
			default:
				bad("abort: unknown source")
			}
		default:
			bad("abort: not a reason or an object")
		}
	}
	endings := 0
	if r, ok := m["return"]; ok {
		endings++
		a.ending, a.ret = "return", r
	}
	if e, ok := m["echo"]; ok {
		endings++
		if e != true {
			bad("echo other than true")
		}
		a.ending = "echo"
	}
	if c, ok := m["crash"]; ok {
		endings++
		if c != true {
			bad("crash other than true")
		}
		a.ending = "crash"
	}
	if r, ok := m["raise"]; ok {
		endings++
		rm := object(r, "raise", "code", "message")
		a.ending = "raise"
		a.raiseCod = reqStr(rm, "code", "raise", true)
		a.raiseMsg = optStr(rm, "message", "raise", "scripted failure", false)
	}
	if endings > 1 {
		bad("an attempt with more than one ending")
	}
	return a
}

func parseRouteCall(v any, scopes map[string]bool) *routeCall {
	m, ok := v.(map[string]any)
	if !ok {
		bad("call: not an object")
	}
	c := &routeCall{principal: "p", mode: "transient"}
	if s, ok := m["scope"]; ok {
		object(m, "call", "tool", "input", "aborted", "watchSignal", "scope")
		name, ok := s.(string)
		if !ok || name == "" {
			bad("call: scope is not a scope name")
		}
		if !scopes[name] {
			bad("call: scope %q not opened", name)
		}
		c.scope = &name
	} else {
		object(m, "call", "tool", "input", "mode", "door", "principal", "executionId", "stepId",
			"idempotencyKey", "aborted", "watchSignal")
	}
	c.tool = reqStr(m, "tool", "call", true)
	c.input = m["input"]
	if _, ok := m["mode"]; ok {
		c.mode = reqStr(m, "mode", "call", true)
		if c.mode != "durable" && c.mode != "transient" {
			bad("call: unknown mode")
		}
	}
	c.door = "invokeTransient"
	if c.mode == "durable" {
		c.door = "invoke"
	}
	if _, ok := m["door"]; ok {
		c.door = reqStr(m, "door", "call", true)
		switch c.door {
		case "invoke", "invokeTransient":
		case "callTransient":
			for _, k := range []string{"mode", "executionId", "stepId", "idempotencyKey"} {
				if _, ok := m[k]; ok {
					bad("call: callTransient takes no %s", k)
				}
			}
		default:
			bad("call: unknown door")
		}
	}
	c.principal = optStr(m, "principal", "call", "p", true)
	c.executionID = optNullableStr(m, "executionId", "call")
	c.stepID = optNullableStr(m, "stepId", "call")
	c.idempotencyKey = optNullableStr(m, "idempotencyKey", "call")
	if _, ok := m["aborted"]; ok {
		r := reqStr(m, "aborted", "call", true)
		c.aborted = &r
	}
	c.watch = optBool(m, "watchSignal", "call", false)
	return c
}

func parseRouteMiddleware(v any) *Middleware {
	m, ok := v.(map[string]any)
	if !ok {
		bad("middleware: not an object")
	}
	kind, ok := m["kind"].(string)
	if !ok {
		bad("middleware: kind is not a string")
	}
	switch kind {
	case "retry":
		object(m, "retry", "kind", "maxAttempts", "baseDelay", "multiplier", "maxDelay", "jitter", "seed", "retryOn")
		n := reqInt(m, "maxAttempts", "retry")
		if n < 1 {
			bad("retry: maxAttempts below 1")
		}
		base := optNum(m, "baseDelay", "retry", 0.1)
		mult := optNum(m, "multiplier", "retry", 2.0)
		maxD := optNum(m, "maxDelay", "retry", 10.0)
		jit := optNum(m, "jitter", "retry", 0.0)
		if e := checkBackoffParams(base, mult, maxD, jit); e != nil {
			panic(malformed{e})
		}
		seed := optStr(m, "seed", "retry", "", false)
		var retryOn []string
		if r, ok := m["retryOn"]; ok {
			retryOn = []string{}
			for _, x := range list(r, "retryOn") {
				s, ok := x.(string)
				if !ok || s == "" {
					bad("retryOn: not a code")
				}
				retryOn = append(retryOn, s)
			}
		}
		return retryMiddleware(n, base, mult, maxD, jit, seed, retryOn)
	case "rateLimit":
		return parseRateLimit(m)
	case "envelope":
		object(m, "envelope", "kind")
		return envelopeMiddleware()
	case "probe":
		return nil // built by the runner, which owns the trace
	}
	bad("middleware: unknown kind %q", kind)
	return nil
}

func parseRateLimit(m map[string]any) *Middleware {
	object(m, "rateLimit", "kind", "capacity", "rate", "per")
	capacity := reqNum(m, "capacity", "rateLimit")
	rate := reqNum(m, "rate", "rateLimit")
	per := optStr(m, "per", "rateLimit", "tool", true)
	if capacity < 1 || rate < 0 || (per != "tool" && per != "principal" && per != "call") {
		bad("rateLimit: parameters refused")
	}
	return rateLimitMiddleware(capacity, rate, per)
}

// routeRun is one run of the effects.route vector.
type routeRun struct {
	rt      *Runtime
	trace   *[]any
	scopes  map[string]*routeScope
	cur     *routeCall // the call being made
	curSig  *Signal    // its own signal
	curScop *routeScope
	seen    **Signal // where the signal the running call's effect saw is kept
}

func (r *routeRun) add(entry map[string]any) {
	if r.trace != nil {
		*r.trace = append(*r.trace, entry)
	}
}

func usageJSON(u map[string]int64) map[string]any {
	m := map[string]any{}
	for k, v := range u {
		m[k] = v
	}
	return m
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// execute runs attempt ctx.attempt of a scripted effect (§3.8 `effects`).
func (r *routeRun) execute(script []*routeAttempt) func(ctx *Ctx, input any) (any, error) {
	return func(ctx *Ctx, input any) (any, error) {
		i := ctx.Attempt
		if i > len(script) {
			i = len(script)
		}
		a := script[i-1]
		if r.seen != nil {
			*r.seen = ctx.Signal
		}
		r.add(map[string]any{"execute": map[string]any{"attempt": ctx.Attempt, "toolId": ctx.ToolID,
			"mode": ctx.Mode, "principal": ctx.Principal, "executionId": strOrNil(ctx.ExecutionID),
			"idempotencyKey": strOrNil(ctx.IdempotencyKey), "input": input, "now": ctx.Clock.Now()}})
		for _, rep := range a.usage {
			if err := ctx.ReportUsage(rep); err != nil {
				return nil, err
			}
		}
		for _, ev := range a.emit {
			ctx.Emit(ev)
		}
		if a.advance != nil {
			if err := ctx.Clock.Advance(*a.advance); err != nil {
				return nil, err
			}
		}
		if a.kill != nil {
			r.rt.kill.kill(a.kill.reason, a.kill.tool)
		}
		if a.abort != nil {
			switch a.abort.source {
			case "call":
				r.curSig.Abort(a.abort.reason)
			case "execution":
				if r.curScop == nil {
					bad("abort of source execution in a call not made through a scope")
				}
				r.curScop.execSignal.Abort(a.abort.reason)
			case "scope":
				if r.curScop == nil {
					bad("abort of source scope in a call not made through a scope")
				}
				r.curScop.lifetime.Abort("scope closed")
			}
		}
		switch a.ending {
		case "echo":
			return input, nil
		case "crash":
			panic(crash{})
		case "raise":
			e := &LoomError{Code: a.raiseCod, Message: a.raiseMsg, Scripted: true}
			if a.raiseCod == "argument.invalid" {
				e.Kind = kindInvalid
			}
			return nil, e
		}
		return a.ret, nil
	}
}

// routeErrorJSON is an outcome's <error> (§3.8): the members of effect.aborted, effect.killed,
// effect.denied and effect.rate-limited by the code alone; `message` for a scripted failure
// (open point E11 of notes/effects-deltas.md).
func routeErrorJSON(err error) map[string]any {
	e, ok := err.(*LoomError)
	if !ok {
		return map[string]any{"code": "loom.error"}
	}
	out := map[string]any{"code": e.Code}
	detail := func(k string) any {
		if e.Details == nil {
			return nil
		}
		return e.Details[k]
	}
	switch e.Code {
	case "effect.aborted":
		out["reason"] = strOrNil(e.Reason)
		if e.Cause != nil {
			out["cause"] = codeOf(e.Cause)
		}
	case "effect.killed":
		out["message"] = e.Message
	case "effect.denied":
		out["toolId"], out["principal"], out["mode"] = detail("toolId"), detail("principal"), detail("mode")
	case "effect.rate-limited":
		out["retryAfter"] = detail("retryAfter")
	default: // `message` for a scripted failure only (effects.refusals/argument-invalid-not-retried)
		if e.Scripted {
			out["message"] = e.Message
		}
	}
	return out
}

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
