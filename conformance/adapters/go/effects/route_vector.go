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
